/**
 * Execution mode is a property of the account (issue 17 item 1; docs/api.md §1, §2.4, §2.6, §4.3, §4.4, §7.2),
 * through the api, the worker, Temporal and the Hyperliquid simulator: an internalised account's order on
 * BTC.HL is matched by the platform engine on BTC.PAPER at the paper mark (its rows carry `venue: paper`), a
 * prediction market has no paper twin; a routed account's order on paper is refused and its BTC.HL order goes
 * to the exchange; the tenant's policy decides the mode of the accounts traders open; smart routing of an
 * internalised account estimates every candidate where the platform engine would fill it.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { MikroORM } from '@mikro-orm/postgresql';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { Decimal } from '../../domain/decimal.js';
import type { MarkTick } from '../../domain/market/types.js';
import { Account, AccountBalance, OrderIntent } from '../../db/entities.js';
import { openOrm, scoped } from '../../db/orm.js';
import { startStack, type Stack } from '../support/stack.js';
import { publish, recordedTick } from '../support/marks.js';
import { addAgent } from '../support/agents.js';
import { signInWithSmartRouting } from '../support/siwe.js';
import { waitFor } from '../support/wait.js';
import { authorizeAgent, startSimulators, type Simulators } from '../support/venues.js';

/** `tick` with every price times `k`: a venue's mark far from the paper one. */
const scaled = (tick: MarkTick, k: number): MarkTick => {
  const level = (l: { price: Decimal; size: Decimal }) => ({ price: l.price.times(k), size: l.size });
  return {
    ...tick,
    mark: tick.mark.times(k),
    bid: tick.bid.times(k),
    ask: tick.ask.times(k),
    book: { bids: tick.book.bids.map(level), asks: tick.book.asks.map(level) },
  };
};

describe('execution mode follows the account', () => {
  let s: Stack;
  let sims: Simulators;
  let simOrm: MikroORM;
  let paperTick: MarkTick;

  beforeAll(async () => {
    simOrm = await openOrm(inject('databaseUrl'));
    sims = await startSimulators(simOrm);
    s = await startStack({ env: sims.env });
    paperTick = await recordedTick('BTC.PAPER', 0.5);
  });
  afterAll(async () => {
    await s?.stop();
    await sims?.stop();
    await simOrm?.close();
  });

  const compose = (token: string, order: Record<string, unknown>) =>
    s.call('POST', '/api/v1/oms/intents', {
      token,
      body: { side: 'buy', type: 'market', qty: '0.01', ...order },
    });
  const settled = (token: string, intentId: string) =>
    waitFor(
      () => s.call('GET', `/api/v1/oms/intents/${intentId}`, { token }),
      (x) => x.body.state === 'filled' || x.body.state === 'rejected',
    );
  /** The paper mark, and BTC.HL's at twice its prices: a fill at the paper mark cannot be an HL one. */
  const publishMarks = async () => {
    await publish(s.orm, paperTick);
    await publish(s.orm, scaled(await recordedTick('BTC.HL', 0.5, 'hyperliquid'), 2));
  };
  const near = (price: string, mark: Decimal) => new Decimal(price).minus(mark).abs().lt(mark.times('0.005'));
  const intentsOf = (credentialId: string) => scoped(s.orm, s.tenant.id).count(OrderIntent, { credentialId });

  it('an internalised account’s BTC.HL market order fills on paper at the paper mark, without an agent; its rows carry venue paper', async () => {
    const t = await s.trader();
    expect((await s.call('GET', `/api/v1/accounts/${t.accountId}`, { token: t.token })).body.executionMode).toBe(
      'internalised',
    );
    await publishMarks();
    const res = await compose(t.token, { venue: 'hyperliquid', symbol: 'BTC.HL', clientOrderId: 'int-hl-1' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ venue: 'paper', symbol: 'BTC.PAPER', clientOrderId: 'int-hl-1' });

    const done = await settled(t.token, res.body.intentId);
    expect(done.body, JSON.stringify(done.body)).toMatchObject({
      state: 'filled',
      venue: 'paper',
      symbol: 'BTC.PAPER',
      filledQty: '0.01',
      venueOrderId: `paper-${res.body.intentId}`,
    });
    expect(near(done.body.avgFillPrice, paperTick.mark), done.body.avgFillPrice).toBe(true);

    const fills = (await s.call('GET', `/api/v1/accounts/${t.accountId}/fills`, { token: t.token })).body.fills;
    expect(fills.map((f: { venue: string; symbol: string }) => [f.venue, f.symbol])).toEqual([['paper', 'BTC.PAPER']]);
    const positions = (await s.call('GET', `/api/v1/accounts/${t.accountId}/positions`, { token: t.token })).body
      .positions;
    expect(positions).toEqual([expect.objectContaining({ venue: 'paper', symbol: 'BTC.PAPER', qty: '0.01' })]);
    const report = await s.call('GET', `/api/v1/reports/fills?accountId=${t.accountId}`, { token: t.token });
    expect(report.body.fills.map((f: { venue: string }) => f.venue)).toEqual(['paper']);

    // Limits are the paper symbol's: ETH.ASTER ticks at 0.01, ETH.PAPER at 0.1.
    const offTick = await compose(t.token, { venue: 'aster', symbol: 'ETH.ASTER', type: 'limit', price: '1000.05' });
    expect(offTick).toMatchObject({ status: 400, body: { error: 'validation_failed' } });
    expect(offTick.body.detail[0]).toMatchObject({ path: 'body.price', code: 'price_tick' });
  });

  it('an internalised account’s prediction-market order is 400 venue_not_internalised and writes nothing', async () => {
    const t = await s.trader();
    const res = await compose(t.token, {
      venue: 'kalshi',
      symbol: 'PRES-2024-DJT-YES.KX',
      type: 'limit',
      price: '0.5',
    });
    expect(res).toMatchObject({
      status: 400,
      body: { error: 'venue_not_internalised', venue: 'kalshi', symbol: 'PRES-2024-DJT-YES.KX' },
    });
    expect(await intentsOf(t.credentialId)).toBe(0);
  });

  it('a routed account’s paper order is 400 account_routed; its BTC.HL order goes to the Hyperliquid simulator', async () => {
    const t = await s.trader('fullTrading', { executionMode: 'routed' });
    await publish(s.orm, paperTick);
    expect(await compose(t.token, { venue: 'paper', symbol: 'BTC.PAPER' })).toMatchObject({
      status: 400,
      body: { error: 'account_routed', venue: 'paper' },
    });
    expect(await intentsOf(t.credentialId)).toBe(0);

    const { user } = await authorizeAgent(s, sims, t.token, t.accountId!, 'hyperliquid');
    await publish(s.orm, await recordedTick('BTC.HL', 0.5, 'hyperliquid'));
    const before = sims.hyperliquid.orderCount(user.owner);
    const res = await compose(t.token, { venue: 'hyperliquid', symbol: 'BTC.HL' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ venue: 'hyperliquid', symbol: 'BTC.HL' });
    const done = await settled(t.token, res.body.intentId);
    expect(done.body, JSON.stringify(done.body)).toMatchObject({ state: 'filled', venue: 'hyperliquid' });
    expect(done.body.venueOrderId).toMatch(/^\d+$/); // the exchange's oid
    expect(sims.hyperliquid.orderCount(user.owner)).toBe(before + 1);
    const fills = (await s.call('GET', `/api/v1/accounts/${t.accountId}/fills`, { token: t.token })).body.fills;
    expect(fills.map((f: { venue: string }) => f.venue)).toEqual(['hyperliquid']);
  });

  describe('smart routing of an internalised account', () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    let cookie: Record<string, string>;
    let trader: Awaited<ReturnType<Stack['trader']>>;
    const route = (asset: string) =>
      s.call('POST', '/api/v1/oms/route-intents', {
        headers: cookie,
        body: { asset, side: 'buy', qty: '0.01', type: 'market' },
      });

    beforeAll(async () => {
      trader = await s.trader();
      // The wallet signs in through a Hyperliquid agent; the account has none on Aster.
      await addAgent(s.orm, s.tenant.id, trader.accountId!, 'hyperliquid', wallet.address);
      cookie = await signInWithSmartRouting(s, wallet, trader.accountId!);
    });

    it('estimates every candidate at the paper mark and the tenant’s fee, needs no agent, and fills on paper', async () => {
      await publishMarks();
      await publish(s.orm, scaled(await recordedTick('BTC.ASTER', 0.5, 'aster'), 3));
      const res = await route('BTC');
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const mark = new Decimal(paperTick.mark).toFixed();
      const { decision } = res.body;
      expect(decision).toMatchObject({
        selectedVenue: 'hyperliquid',
        selectedSymbol: 'BTC.HL',
        savingsVsNextBestUsd: '0',
      });
      expect(decision.candidates).toEqual([
        expect.objectContaining({ venue: 'hyperliquid', symbol: 'BTC.HL', eligible: true, takerFeeBps: '4.5' }),
        expect.objectContaining({ venue: 'aster', symbol: 'BTC.ASTER', eligible: true, takerFeeBps: '4.5' }),
        { venue: 'polymarket', symbol: null, eligible: false, reason: 'asset_not_listed' },
      ]);
      for (const c of decision.candidates.slice(0, 2)) expect(new Decimal(c.mark).toFixed()).toBe(mark);

      const intent = await waitFor(
        () => s.call('GET', `/api/v1/oms/intents/${res.body.intentId}`, { headers: cookie }),
        (x) => x.body.state === 'filled' || x.body.state === 'rejected',
      );
      expect(intent.body).toMatchObject({ state: 'filled', venue: 'paper', symbol: 'BTC.PAPER', filledQty: '0.01' });
    });

    it('skips a prediction market as not_internalised', async () => {
      const res = await route('TRUMP-INAUGURATED-YES');
      expect(res).toMatchObject({ status: 400, body: { error: 'no_eligible_venue' } });
      expect(res.body.candidates).toContainEqual({
        venue: 'polymarket',
        symbol: 'TRUMP-INAUGURATED-YES.PM',
        eligible: false,
        reason: 'not_internalised',
      });
    });
  });

  it('the tenant’s policy decides the mode of the accounts traders open', async () => {
    const t = await s.trader();
    const config = (await s.operator(['tenant:config', 'credentials:manage'])).token;
    const em = () => scoped(s.orm, s.tenant.id);
    const owned = () => em().count(Account, { ownerId: t.ownerId });
    const open = (body: Record<string, unknown>, path = '/api/v1/accounts') =>
      s.call('POST', path, { token: t.token, body });
    const policy = (body: Record<string, unknown>) =>
      s.call('PUT', `/api/v1/tenants/${s.tenant.id}/accounts`, { token: config, body });

    // The default: internalised only.
    expect((await s.call('GET', '/api/v1/tenants/me', { token: t.token })).body.accounts).toMatchObject({
      executionMode: 'internalised',
    });
    const held = await owned();
    expect(await open({ executionMode: 'routed' })).toMatchObject({
      status: 403,
      body: { error: 'execution_mode_not_allowed', policy: 'internalised', requested: 'routed' },
    });
    expect(await owned()).toBe(held);
    expect(await open({})).toMatchObject({
      status: 201,
      body: { executionMode: 'internalised', name: 'Paper account' },
    });

    // The trader's choice: routed opens without a paper balance and takes no deposit.
    expect(await policy({ executionMode: 'trader_choice' })).toMatchObject({
      status: 200,
      body: { executionMode: 'trader_choice' },
    });
    const routed = await open({ executionMode: 'routed' });
    expect(routed).toMatchObject({ status: 201, body: { executionMode: 'routed', name: 'Routed account' } });
    expect(await em().count(AccountBalance, { accountId: routed.body.accountId })).toBe(0);
    const withDeposit = await open({ executionMode: 'routed', initialDepositUsd: '5000' });
    expect(withDeposit).toMatchObject({ status: 400, body: { error: 'validation_failed' } });
    expect(withDeposit.body.detail[0]).toMatchObject({
      path: 'body.initialDepositUsd',
      code: 'deposit_not_applicable',
    });
    const internalised = await open({ initialDepositUsd: '5000' });
    expect(internalised).toMatchObject({ status: 201, body: { executionMode: 'internalised' } });
    expect(
      (await em().findOneOrFail(AccountBalance, { accountId: internalised.body.accountId, venue: 'paper' })).balanceUsd,
    ).toBe('5000');

    // Routed only: the sandbox route and operator-issued credentials follow it too.
    expect((await policy({ executionMode: 'routed' })).status).toBe(200);
    expect(await open({}, '/api/v1/sandbox/paper-account')).toMatchObject({
      status: 201,
      body: { executionMode: 'routed' },
    });
    const before = await owned();
    expect(await open({ executionMode: 'internalised' })).toMatchObject({
      status: 403,
      body: { error: 'execution_mode_not_allowed', policy: 'routed' },
    });
    expect(await owned()).toBe(before);
    const issued = await s.call('POST', '/api/v1/operator/credentials', {
      token: config,
      body: { audience: 'trader', tier: 'fullTrading' },
    });
    expect(issued.status, JSON.stringify(issued.body)).toBe(201);
    expect((await em().findOneOrFail(Account, { id: issued.body.accountId })).executionMode).toBe('routed');

    expect((await policy({})).status).toBe(200);
  });
});

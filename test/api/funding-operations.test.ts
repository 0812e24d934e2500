/**
 * Funding operations and routed accounts' balances (issue 17 item 8; docs/api.md §2.4 `accounts.funding`,
 * §2.5 "Routed accounts", §4.3 "Funding operations", §4.8, §6.3-6.5), through the API, the real worker,
 * Temporal, PostgreSQL, the webhook delivery workflows and the Hyperliquid simulator: a deposit moves the
 * balance and the state and reaches `/ws/risk` and a webhook receiver; a withdrawal is bounded by the margin
 * available; a transfer moves both balances at once and only between the caller's own accounts; the
 * tenant's approval policy holds operations until an operator decides; an `Idempotency-Key` replays the
 * answer; a routed account shows what its venue holds and takes no funding operation.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse } from 'csv-parse/sync';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Decimal } from '../../domain/decimal.js';
import { findSymbol } from '../../domain/market/symbols.js';
import { openOrm } from '../../db/orm.js';
import { publishMark } from '../../modules/market/feeds/marks.js';
import { startStack, type Stack } from '../support/stack.js';
import { publish, recordedTick } from '../support/marks.js';
import { riskSocket } from '../support/ws.js';
import { waitFor } from '../support/wait.js';
import { authorizeAgent, startSimulators, type Simulators } from '../support/venues.js';

/** A webhook receiver on this machine: every delivery's parsed body. */
async function receiver() {
  const got: { type: string; accountId: string; data: Record<string, unknown> }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    got,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

describe('funding operations', () => {
  let s: Stack;
  let sims: Simulators;
  let simOrm: MikroORM;
  let hook: Awaited<ReturnType<typeof receiver>>;
  /** An operator that configures the tenant and registers webhooks (`tenant:config`). */
  let config: string;
  /** An operator that decides held operations (`accounts:intervene`). */
  let intervene: string;

  beforeAll(async () => {
    simOrm = await openOrm(inject('databaseUrl'));
    sims = await startSimulators(simOrm);
    s = await startStack({ env: { ...sims.env, WEBHOOK_DISPATCH_MS: '100', WEBHOOK_INITIAL_BACKOFF_MS: '50' } });
    config = (await s.operator(['tenant:config'])).token;
    intervene = (await s.operator(['accounts:intervene'])).token;
    await publish(s.orm, await recordedTick('ETH.PAPER', 0.5));
    hook = await receiver();
    const endpoint = await s.call('POST', '/api/v1/webhooks', { token: config, body: { url: hook.url } });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
  });
  afterAll(async () => {
    await s?.stop();
    await sims?.stop();
    await simOrm?.close();
    await hook?.close();
  });

  /** The `paper` entry of the account's state (§2.5). */
  const paperState = async (token: string, accountId: string) => {
    const res = await s.call('GET', `/api/v1/accounts/${accountId}/state`, { token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.perVenue.find((v: { venue: string }) => v.venue === 'paper');
  };
  const balanceOf = async (token: string, accountId: string) => (await paperState(token, accountId)).balanceUsd;
  const ledger = async (token: string, accountId: string) =>
    (await s.call('GET', `/api/v1/accounts/${accountId}/funding`, { token })).body.events;
  const post = (token: string, path: string, body: unknown, key?: string) =>
    s.call('POST', path, { token, body, headers: key ? { 'idempotency-key': key } : {} });
  const setPolicy = (funding: Record<string, unknown>) =>
    s.call('PUT', `/api/v1/tenants/${s.tenant.id}/accounts`, { token: config, body: { funding } });

  it('deposits: the balance and the state move, /ws/risk and a webhook see it; a replayed key answers the same', async () => {
    const t = await s.trader();
    const ws = await riskSocket(s, t.token, { topics: ['Funding'] });

    const path = `/api/v1/accounts/${t.accountId}/deposits`;
    // Amounts are decimal strings: a JSON number is refused, and so is nothing at all.
    expect(await post(t.token, path, { amountUsd: 2500.5 })).toMatchObject({
      status: 400,
      body: { error: 'validation_failed' },
    });
    expect((await post(t.token, path, { amountUsd: '0' })).status).toBe(400);

    const first = await post(t.token, path, { amountUsd: '2500.50' }, 'deposit-key-1');
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body).toMatchObject({
      type: 'deposit',
      status: 'completed',
      accountId: t.accountId,
      toAccountId: null,
      amountUsd: '2500.5',
    });
    const opId = first.body.operationId;
    expect(await balanceOf(t.token, t.accountId!)).toBe('102500.5');

    const replay = await post(t.token, path, { amountUsd: '2500.50' }, 'deposit-key-1');
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers.get('idempotency-replay')).toBe('true');
    expect(await balanceOf(t.token, t.accountId!)).toBe('102500.5');
    expect(await post(t.token, path, { amountUsd: '1' }, 'deposit-key-1')).toMatchObject({
      status: 409,
      body: { error: 'idempotency_key_conflict' },
    });

    const frame = await ws.next((f) => f.type === 'Funding-Update' && f.data.operationId === opId);
    expect(frame).toMatchObject({
      topic: 'Funding',
      event: 'funding.deposit',
      accountId: t.accountId,
      data: { type: 'deposit', amountUsd: '2500.5', venue: 'paper' },
    });
    ws.close();

    expect((await ledger(t.token, t.accountId!))[0]).toMatchObject({
      type: 'deposit',
      operationId: opId,
      amountUsd: '2500.5',
    });
    const history = await s.call('GET', `/api/v1/accounts/${t.accountId}/state/history`, { token: t.token });
    expect(history.body.points.at(-1)).toMatchObject({ reason: 'deposit', balanceUsd: '102500.5' });

    const delivered = await waitFor(
      async () => hook.got.find((d) => d.type === 'funding.deposit' && d.data.operationId === opId),
      Boolean,
    );
    expect(delivered).toMatchObject({ accountId: t.accountId, data: { amountUsd: '2500.5' } });
  });

  it('withdrawals are bounded by the margin available, not the balance', async () => {
    const t = await s.trader();
    const path = `/api/v1/accounts/${t.accountId}/withdrawals`;
    const intent = await s.call('POST', '/api/v1/oms/intents', {
      token: t.token,
      body: { venue: 'paper', symbol: 'ETH.PAPER', side: 'buy', type: 'market', qty: '10' },
    });
    expect(intent.status, JSON.stringify(intent.body)).toBe(201);
    const state = await waitFor(
      () => paperState(t.token, t.accountId!),
      (v) => v.openPositions === 1,
    );
    const available = new Decimal(state.marginAvailableUsd);
    expect(available.lt(state.balanceUsd)).toBe(true);

    const between = available.plus(state.balanceUsd).div(2).toDecimalPlaces(2).toFixed();
    const refused = await post(t.token, path, { amountUsd: between });
    expect(refused).toMatchObject({
      status: 409,
      body: { error: 'insufficient_margin', accountId: t.accountId, requestedUsd: between },
    });
    expect(new Decimal(refused.body.availableUsd).lt(between)).toBe(true);
    expect((await paperState(t.token, t.accountId!)).balanceUsd).toBe(state.balanceUsd);

    const ok = await post(t.token, path, { amountUsd: '1000' });
    expect(ok).toMatchObject({ status: 201, body: { type: 'withdrawal', status: 'completed' } });
    expect(await balanceOf(t.token, t.accountId!)).toBe(new Decimal(state.balanceUsd).minus(1000).toFixed());
    expect((await ledger(t.token, t.accountId!))[0]).toMatchObject({ type: 'withdrawal', amountUsd: '1000' });
  });

  it('transfers between the caller’s own accounts move both balances at once, in either direction concurrently', async () => {
    const t = await s.trader();
    const second = await s.call('POST', '/api/v1/accounts', {
      token: t.token,
      body: { name: 'Second', initialDepositUsd: '5000' },
    });
    expect(second.status, JSON.stringify(second.body)).toBe(201);
    const a = t.accountId!;
    const b = second.body.accountId;

    const moved = await post(t.token, `/api/v1/accounts/${a}/transfers`, { toAccountId: b, amountUsd: '1500' });
    expect(moved).toMatchObject({
      status: 201,
      body: { type: 'transfer', status: 'completed', accountId: a, toAccountId: b, amountUsd: '1500' },
    });
    expect(await balanceOf(t.token, a)).toBe('98500');
    expect(await balanceOf(t.token, b)).toBe('6500');
    const id = moved.body.operationId;
    expect((await ledger(t.token, a))[0]).toMatchObject({ type: 'transfer', operationId: id, amountUsd: '-1500' });
    expect((await ledger(t.token, b))[0]).toMatchObject({ type: 'transfer', operationId: id, amountUsd: '1500' });
    for (const [account, balance] of [
      [a, '98500'],
      [b, '6500'],
    ]) {
      const h = await s.call('GET', `/api/v1/accounts/${account}/state/history`, { token: t.token });
      expect(h.body.points.at(-1)).toMatchObject({ reason: 'transfer', balanceUsd: balance });
    }

    // More than the source holds: refused, and neither balance moves.
    expect(
      await post(t.token, `/api/v1/accounts/${b}/transfers`, { toAccountId: a, amountUsd: '6500.01' }),
    ).toMatchObject({ status: 409, body: { error: 'insufficient_margin' } });
    expect([await balanceOf(t.token, a), await balanceOf(t.token, b)]).toEqual(['98500', '6500']);
    expect(await post(t.token, `/api/v1/accounts/${a}/transfers`, { toAccountId: a, amountUsd: '1' })).toMatchObject({
      status: 400,
      body: { error: 'validation_failed', detail: [{ code: 'same_account' }] },
    });

    // Transfers both ways at once: the locks are taken in id order, so none deadlocks and the total holds.
    const both = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        i % 2
          ? post(t.token, `/api/v1/accounts/${a}/transfers`, { toAccountId: b, amountUsd: '100' })
          : post(t.token, `/api/v1/accounts/${b}/transfers`, { toAccountId: a, amountUsd: '100' }),
      ),
    );
    expect(both.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect([await balanceOf(t.token, a), await balanceOf(t.token, b)]).toEqual(['98500', '6500']);

    // The month's statement counts transfers in as deposits and out as withdrawals, and still reconciles.
    const month = new Date().toISOString().slice(0, 7);
    const csv = await fetch(`${s.api.baseUrl}/api/v1/reports/statements/${a}/${month}`, {
      headers: { authorization: `Bearer ${t.token}`, 'x-tenant-slug': s.tenant.slug },
    });
    expect(csv.status).toBe(200);
    const rows = parse<Record<string, string>>(await csv.text(), { columns: true });
    const total = (section: string) => rows.find((r) => r.section === section)!.amountUsd;
    expect([total('deposits_total'), total('withdrawals_total'), total('closing_balance')]).toEqual([
      '100400',
      '1900',
      '98500',
    ]);
    expect(rows.find((r) => r.reference === 'reconciles')!.detail).toBe('true');
  });

  it('refuses a transfer to another trader’s account or an unknown one, and moves nothing', async () => {
    const t = await s.trader();
    const other = await s.trader();
    expect(
      await post(t.token, `/api/v1/accounts/${t.accountId}/transfers`, {
        toAccountId: other.accountId,
        amountUsd: '10',
      }),
    ).toMatchObject({ status: 403, body: { error: 'forbidden' } });
    expect(
      await post(t.token, `/api/v1/accounts/${t.accountId}/transfers`, { toAccountId: 'acc_nope', amountUsd: '10' }),
    ).toMatchObject({ status: 404, body: { error: 'account_not_found' } });
    expect(await post(t.token, `/api/v1/accounts/${other.accountId}/withdrawals`, { amountUsd: '10' })).toMatchObject({
      status: 403,
      body: { error: 'forbidden' },
    });
    expect(await balanceOf(t.token, t.accountId!)).toBe('100000');
    expect(await balanceOf(other.token, other.accountId!)).toBe('100000');
    // A credential below fullTrading moves no money.
    const readonly = await s.trader('readonly');
    expect(
      await post(readonly.token, `/api/v1/accounts/${readonly.accountId}/deposits`, { amountUsd: '10' }),
    ).toMatchObject({ status: 403, body: { error: 'tier_readonly' } });
  });

  it('under an approval policy an operation waits pending until an operator approves; a rejection moves nothing', async () => {
    const t = await s.trader();
    const path = `/api/v1/accounts/${t.accountId}/withdrawals`;
    try {
      expect(await setPolicy({ approval: 'withdrawals' })).toMatchObject({
        status: 200,
        body: { funding: { approval: 'withdrawals', deposits: true, maxDepositUsd: null } },
      });

      const held = await post(t.token, path, { amountUsd: '1000' });
      expect(held).toMatchObject({ status: 202, body: { type: 'withdrawal', status: 'pending', decidedAt: null } });
      const id = held.body.operationId;
      expect(await balanceOf(t.token, t.accountId!)).toBe('100000');
      expect((await ledger(t.token, t.accountId!))[0]).toMatchObject({
        type: 'requested',
        operation: 'withdrawal',
        operationId: id,
        status: 'pending',
      });
      // Under `withdrawals`, a deposit is not held.
      expect((await post(t.token, `/api/v1/accounts/${t.accountId}/deposits`, { amountUsd: '5' })).status).toBe(201);

      const pending = await s.call('GET', '/api/v1/operator/funding?status=pending', { token: intervene });
      expect(pending.status).toBe(200);
      expect(pending.body.data.find((o: { operationId: string }) => o.operationId === id)).toMatchObject({
        status: 'pending',
        requestedBy: t.credentialId,
      });
      // Deciding needs an operator with accounts:intervene.
      expect(await s.call('POST', `/api/v1/operator/funding/${id}/approve`, { token: t.token })).toMatchObject({
        status: 403,
        body: { error: 'wrong_credential_audience' },
      });
      expect(await s.call('POST', `/api/v1/operator/funding/${id}/approve`, { token: config })).toMatchObject({
        status: 403,
        body: { error: 'forbidden' },
      });

      const approved = await s.call('POST', `/api/v1/operator/funding/${id}/approve`, { token: intervene });
      expect(approved).toMatchObject({ status: 200, body: { status: 'completed', decidedBy: expect.any(String) } });
      expect(await balanceOf(t.token, t.accountId!)).toBe('99005');
      expect((await ledger(t.token, t.accountId!))[0]).toMatchObject({ type: 'withdrawal', operationId: id });
      expect(await s.call('POST', `/api/v1/operator/funding/${id}/approve`, { token: intervene })).toMatchObject({
        status: 409,
        body: { error: 'invalid_state' },
      });

      const second = await post(t.token, path, { amountUsd: '2000' });
      expect(second.status).toBe(202);
      const rejected = await s.call('POST', `/api/v1/operator/funding/${second.body.operationId}/reject`, {
        token: intervene,
        body: { reason: 'documents missing' },
      });
      expect(rejected).toMatchObject({ status: 200, body: { status: 'rejected', rejectReason: 'documents missing' } });
      expect(await balanceOf(t.token, t.accountId!)).toBe('99005');
      expect((await ledger(t.token, t.accountId!))[0]).toMatchObject({
        type: 'rejected',
        operationId: second.body.operationId,
        reason: 'documents missing',
      });
      expect(
        await s.call('POST', '/api/v1/operator/funding/fop_nope/reject', { token: intervene, body: {} }),
      ).toMatchObject({ status: 404, body: { error: 'funding_operation_not_found' } });

      // The policy switches operations off and bounds a deposit.
      await setPolicy({ deposits: false });
      expect(await post(t.token, `/api/v1/accounts/${t.accountId}/deposits`, { amountUsd: '5' })).toMatchObject({
        status: 403,
        body: { error: 'funding_operation_disabled', operation: 'deposit' },
      });
      await setPolicy({ maxDepositUsd: '1000' });
      expect(await post(t.token, `/api/v1/accounts/${t.accountId}/deposits`, { amountUsd: '1000.01' })).toMatchObject({
        status: 400,
        body: { error: 'validation_failed', detail: [{ code: 'deposit_above_limit' }] },
      });
    } finally {
      await s.call('PUT', `/api/v1/tenants/${s.tenant.id}/accounts`, { token: config, body: {} });
    }
  });

  it('a routed account shows the venue’s own balance and positions, and takes no funding operation', async () => {
    const spec = findSymbol('hyperliquid', 'ETH.HL')!;
    const tick = await recordedTick(spec.symbol, 0.5, 'hyperliquid');
    await publishMark(s.orm, { ...tick, ts: Date.now() });
    const t = await s.trader('fullTrading', { executionMode: 'routed' });
    const { user } = await authorizeAgent(s, sims, t.token, t.accountId!, 'hyperliquid');
    sims.hyperliquid.fund(user.owner, '25000');

    const before = await s.call('GET', `/api/v1/accounts/${t.accountId}/state`, { token: t.token });
    expect(before.body).toMatchObject({
      accountId: t.accountId,
      perVenue: [
        {
          venue: 'hyperliquid',
          exchange: 'hyperliquid',
          balanceUsd: '25000',
          equityUsd: '25000',
          marginUsedUsd: '0',
          marginAvailableUsd: '25000',
          openPositions: 0,
        },
      ],
      unavailable: [],
    });

    const intent = await s.call('POST', '/api/v1/oms/intents', {
      token: t.token,
      body: { venue: 'hyperliquid', symbol: 'ETH.HL', side: 'buy', type: 'market', qty: '0.1' },
    });
    expect(intent.status, JSON.stringify(intent.body)).toBe(201);
    await waitFor(
      () => s.call('GET', `/api/v1/oms/intents/${intent.body.intentId}`, { token: t.token }),
      (r) => r.body.state === 'filled' || r.body.state === 'rejected',
    );
    const after = (await s.call('GET', `/api/v1/accounts/${t.accountId}/state`, { token: t.token })).body;
    const venue = after.perVenue[0];
    // The venue charged its taker fee (0.045 % of the notional) on the collateral the test funded.
    expect(venue).toMatchObject({ venue: 'hyperliquid', openPositions: 1 });
    expect(new Decimal(venue.balanceUsd).lt(25000)).toBe(true);
    expect(new Decimal(venue.balanceUsd).gt(24990)).toBe(true);
    expect(new Decimal(venue.marginUsedUsd).gt(0)).toBe(true);
    const positions = await s.call('GET', `/api/v1/accounts/${t.accountId}/positions`, { token: t.token });
    expect(positions.body.positions).toMatchObject([
      { venue: 'hyperliquid', symbol: 'ETH.HL', side: 'long', qty: '0.1', leverage: '20', realizedPnlUsd: null },
    ]);

    // Its money is on the venue: the platform's funding operations refuse it, either way round.
    expect(await post(t.token, `/api/v1/accounts/${t.accountId}/deposits`, { amountUsd: '10' })).toMatchObject({
      status: 400,
      body: { error: 'account_routed' },
    });
    const mine = await s.call('POST', '/api/v1/accounts', { token: t.token, body: {} });
    expect(mine).toMatchObject({ status: 201, body: { executionMode: 'internalised' } });
    expect(
      await post(t.token, `/api/v1/accounts/${mine.body.accountId}/transfers`, {
        toAccountId: t.accountId,
        amountUsd: '10',
      }),
    ).toMatchObject({ status: 400, body: { error: 'account_routed' } });
  });
});

/**
 * Browser sessions by Sign-In with Ethereum (docs/api.md §5.1) and smart order routing (docs/api.md §4.4
 * route-intents, §4.5, §2.11) on the real stack. Agents are inserted as authorised rows (no venue
 * simulator: the routed intent's dispatch goes nowhere and the tests do not wait for fills); marks
 * are recorded Hyperliquid ticks published per venue, one venue's book made worse to force a choice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { Decimal } from '../../domain/decimal.js';
import { Fill, OrderIntent } from '../../db/entities.js';
import { platformEm, scoped } from '../../db/orm.js';
import { callerFromSession } from '../../api/auth/session.js';
import { gate } from '../../api/middleware/auth.js';
import { startStack, UNREACHABLE_VENUES, type Stack } from '../support/stack.js';
import { addAgent as addAgentRow } from '../support/agents.js';
import { openRisk } from '../support/ws.js';
import { publishQuote } from '../support/marks.js';
import { sessionCookieOf, siwe, signIn, withCookie } from '../support/siwe.js';

describe('SIWE cookie sessions and smart order routing', () => {
  let s: Stack;
  let host: string;
  let trader: Awaited<ReturnType<Stack['trader']>>;
  const wallet = privateKeyToAccount(generatePrivateKey());
  const startedAt = new Date(Date.now() - 1000);

  beforeAll(async () => {
    // Routed dispatches of these tests fail at once and never reach a real venue.
    s = await startStack({ env: UNREACHABLE_VENUES });
    host = new URL(s.api.baseUrl).host;
    trader = await s.trader('fullTrading', { executionMode: 'routed' });
  });
  afterAll(async () => {
    await s?.stop();
  });

  const addAgent = (accountId: string, venue: string, owner: string) =>
    addAgentRow(s.orm, s.tenant.id, accountId, venue, owner);

  describe('sign-in', () => {
    let cookie: string;

    it('refuses a wallet that authorised no agent, telling it what to do', async () => {
      const res = await s.call('POST', '/api/auth/siwe/verify', { body: await siwe(s, wallet) });
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('wallet_not_linked');
      expect(res.body.detail).toMatch(/authorise an agent/);
    });

    it('nonce → verify sets an httpOnly SameSite=Lax cookie that reads as the trader', async () => {
      await addAgent(trader.accountId!, 'hyperliquid', wallet.address);
      const nonce = await s.call('POST', '/api/auth/siwe/nonce');
      expect(nonce.status).toBe(200);
      expect(nonce.body.nonce).toMatch(/^[A-Za-z0-9]{8,}$/);

      const res = await s.call('POST', '/api/auth/siwe/verify', {
        body: await siwe(s, wallet, { nonce: nonce.body.nonce }),
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        walletAddress: wallet.address.toLowerCase(),
        accountId: trader.accountId,
        tier: 'fullTrading',
      });
      cookie = sessionCookieOf(res.headers);
      expect(cookie).toMatch(/httponly/i);
      expect(cookie).toMatch(/samesite=lax/i);
      expect(cookie).not.toMatch(/secure/i); // plain http here; Secure over https

      const accounts = await s.call('GET', '/api/v1/accounts', { headers: withCookie(cookie) });
      expect(accounts.status).toBe(200);
      expect(accounts.body.accounts.map((a: { accountId: string }) => a.accountId)).toEqual([trader.accountId]);
    });

    it('a reused nonce, another host’s message and a signature by another key are refused', async () => {
      const used = await siwe(s, wallet);
      expect((await s.call('POST', '/api/auth/siwe/verify', { body: used })).status).toBe(200);
      const again = await s.call('POST', '/api/auth/siwe/verify', { body: used });
      expect([again.status, again.body.error]).toEqual([401, 'siwe_nonce_invalid']);

      const foreign = await s.call('POST', '/api/auth/siwe/verify', {
        body: await siwe(s, wallet, { domain: 'evil.example' }),
      });
      expect([foreign.status, foreign.body.error]).toEqual([401, 'siwe_domain_mismatch']);
      expect(foreign.body).toMatchObject({
        field: 'domain',
        expected: [`${s.tenant.slug}.test`, host],
        actual: 'evil.example',
      });

      const forged = await s.call('POST', '/api/auth/siwe/verify', {
        body: await siwe(s, wallet, { signer: privateKeyToAccount(generatePrivateKey()) }),
      });
      expect([forged.status, forged.body.error]).toEqual([401, 'siwe_signature_invalid']);

      const garbage = await s.call('POST', '/api/auth/siwe/verify', { body: { message: 'hello', signature: '0x00' } });
      expect([garbage.status, garbage.body.error]).toEqual([400, 'siwe_message_invalid']);
    });

    it('is refused on the operator surface and on sign-result (bearer only)', async () => {
      const token = cookie.split(';')[0].slice('service_session='.length);
      const caller = await callerFromSession(s.orm, token, s.tenant.id);
      expect(caller).toMatchObject({
        audience: 'trader',
        tier: 'fullTrading',
        accountId: trader.accountId,
        session: { walletAddress: wallet.address.toLowerCase() },
      });
      // No operator route is mounted yet: the operator gate itself, as every operator route uses it.
      const ctx = { state: { caller } } as never;
      await expect(gate({ audience: 'operator', scope: 'firm:operate' })(ctx, async () => {})).rejects.toMatchObject({
        status: 403,
        code: 'wrong_credential_audience',
        extra: { expected: 'operator', actual: 'trader' },
      });

      const sign = await s.call('POST', '/api/v1/oms/intents/int_0000/sign-result', {
        headers: withCookie(cookie),
        body: { signedPayload: { signature: '0x00' } },
      });
      expect([sign.status, sign.body.error]).toEqual([401, 'bearer_required']);
    });

    it('authenticates /ws/risk at connect (docs/api.md §6.2), and logout ends the session and tears the socket down', async () => {
      const { headers } = await s.call('POST', '/api/auth/siwe/verify', { body: await siwe(s, wallet) });
      const mine = sessionCookieOf(headers);
      const ws = await openRisk(`${s.api.baseUrl.replace(/^http/, 'ws')}/ws/risk`, {
        'x-tenant-slug': s.tenant.slug,
        ...withCookie(mine),
      });
      expect(await ws.next((f) => f.type === 'Authenticated')).toMatchObject({
        tenantId: s.tenant.id,
        accountId: trader.accountId,
        accountIds: [trader.accountId],
      });
      ws.send({ type: 'Authenticate', token: 'not-needed' }); // harmless: answered Authenticated again
      await expect.poll(() => ws.frames.filter((f) => f.type === 'Authenticated').length).toBe(2);
      ws.send({ type: 'Subscribe', topics: ['Fills'] });
      expect(await ws.next((f) => f.type === 'Result')).toMatchObject({ ok: true, topics: ['Fills'] });

      expect((await s.call('POST', '/api/auth/siwe/logout', { headers: withCookie(mine) })).status).toBe(200);
      const after = await s.call('GET', '/api/v1/accounts', { headers: withCookie(mine) });
      expect([after.status, after.body.error]).toEqual([401, 'unauthorized']);
      expect(await ws.next((f) => f.error === 'session_ended')).toMatchObject({ type: 'Result', ok: false });
      expect((await ws.closed).code).toBe(4401);

      // A stale cookie authenticates nothing: the socket waits for Authenticate as any other.
      const stale = await openRisk(`${s.api.baseUrl.replace(/^http/, 'ws')}/ws/risk`, {
        'x-tenant-slug': s.tenant.slug,
        ...withCookie(mine),
      });
      stale.send({ type: 'Subscribe', topics: ['Fills'] });
      expect(await stale.next((f) => f.type === 'Result')).toMatchObject({ ok: false, error: 'not_authenticated' });
      stale.close();
    });
  });

  describe('route-intents', () => {
    let cookie: Record<string, string>;
    const route = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      s.call('POST', '/api/v1/oms/route-intents', { headers: { ...cookie, ...headers }, body });
    const reasons = (candidates: { venue: string; reason?: string }[]) =>
      Object.fromEntries(candidates.map((c) => [c.venue, c.reason ?? 'eligible']));

    /** The recorded tick of `symbol` on `venue`, optionally with every ask moved up by `askMarkup` (a wider, dearer book). */
    const quote = (venue: 'hyperliquid' | 'aster', symbol: string, askMarkup = '0') =>
      publishQuote(s.orm, venue, symbol, askMarkup);

    beforeAll(async () => {
      await addAgent(trader.accountId!, 'aster', wallet.address);
      cookie = await signIn(s, wallet);
      // Marks are shared by the run: start from none on the candidate venues.
      await platformEm(s.orm)
        .getConnection()
        .execute(`delete from marks where venue in ('hyperliquid', 'aster', 'polymarket')`);
    });

    it('refuses a bearer credential: it has no wallet', async () => {
      const res = await s.call('POST', '/api/v1/oms/route-intents', {
        token: trader.token,
        body: { asset: 'BTC', side: 'buy', qty: '0.01', type: 'market' },
      });
      expect([res.status, res.body.error]).toEqual([403, 'wallet_session_required']);
    });

    it('is off until the account turns smart routing on', async () => {
      const off = await route({ asset: 'BTC', side: 'buy', qty: '0.01', type: 'market' });
      expect([off.status, off.body.error]).toEqual([400, 'routing_disabled']);
      expect(
        (
          await s.call('PATCH', `/api/v1/accounts/${trader.accountId}`, {
            headers: cookie,
            body: { settings: { smartRouting: 'yes' } },
          })
        ).status,
      ).toBe(400);
      const on = await s.call('PATCH', `/api/v1/accounts/${trader.accountId}`, {
        headers: cookie,
        body: { settings: { smartRouting: true } },
      });
      expect([on.status, on.body.settings.smartRouting]).toEqual([200, true]);
    });

    it('only market orders', async () => {
      const res = await route({ asset: 'BTC', side: 'buy', qty: '0.01', type: 'limit', price: '100' });
      expect([res.status, res.body.error]).toEqual([400, 'validation_failed']);
    });

    it('says why it cannot pick: asset_unknown, no_quotes, no_eligible_venue, with each candidate’s reason', async () => {
      const unknown = await route({ asset: 'DOGE', side: 'buy', qty: '1', type: 'market' });
      expect([unknown.status, unknown.body.error]).toEqual([400, 'asset_unknown']);
      expect(unknown.body.candidates).toEqual([
        { venue: 'hyperliquid', symbol: null, eligible: false, reason: 'asset_not_listed' },
        { venue: 'aster', symbol: null, eligible: false, reason: 'asset_not_listed' },
        { venue: 'polymarket', symbol: null, eligible: false, reason: 'asset_not_listed' },
      ]);

      const noQuotes = await route({ asset: 'sol', side: 'buy', qty: '1', type: 'market' });
      expect([noQuotes.status, noQuotes.body.error]).toEqual([400, 'no_quotes']);
      expect(noQuotes.body.candidates.map((c: { symbol: string | null }) => c.symbol)).toEqual([
        'SOL.HL',
        'SOL.ASTER',
        null,
      ]);
      expect(reasons(noQuotes.body.candidates)).toEqual({
        hyperliquid: 'no_quote',
        aster: 'no_quote',
        polymarket: 'asset_not_listed',
      });

      await quote('hyperliquid', 'ETH.HL');
      await quote('aster', 'ETH.ASTER');
      const tooBig = await route({ asset: 'ETH', side: 'sell', qty: '1000000', type: 'market' });
      expect([tooBig.status, tooBig.body.error]).toEqual([400, 'no_eligible_venue']);
      expect(reasons(tooBig.body.candidates)).toEqual({
        hyperliquid: 'insufficient_depth',
        aster: 'insufficient_depth',
        polymarket: 'asset_not_listed',
      });
      expect(tooBig.body.candidates[0].mark).toMatch(/^\d+(\.\d+)?$/);

      const noAgent = await route({ asset: 'TRUMP-INAUGURATED-YES', side: 'buy', qty: '10', type: 'market' });
      expect([noAgent.status, noAgent.body.error]).toEqual([400, 'no_eligible_venue']);
      expect(reasons(noAgent.body.candidates)).toEqual({
        hyperliquid: 'asset_not_listed',
        aster: 'asset_not_listed',
        polymarket: 'no_agent',
      });
    });

    const decisions: { intentId: string; selectedVenue: string; savingsVsNextBestUsd: string | null }[] = [];

    it('routes to the venue with the better all-in price and composes there', async () => {
      // Aster's taker fee is lower, but its asks sit 0.2 % higher: Hyperliquid is cheaper.
      await quote('hyperliquid', 'BTC.HL');
      await quote('aster', 'BTC.ASTER', '0.002');
      const res = await route({ asset: 'BTC', side: 'buy', qty: '0.01', type: 'market', clientId: 'sor-1' });
      expect(res.status).toBe(201);
      const d = res.body.decision;
      expect(res.body.intentId).toBe(d.intentId);
      expect(d).toMatchObject({
        asset: 'BTC',
        side: 'buy',
        qty: '0.01',
        selectedVenue: 'hyperliquid',
        selectedSymbol: 'BTC.HL',
        accountId: trader.accountId,
        nextBest: { venue: 'aster' },
      });
      expect(reasons(d.candidates)).toEqual({
        hyperliquid: 'eligible',
        aster: 'eligible',
        polymarket: 'asset_not_listed',
      });
      const [hl, aster] = d.candidates;
      expect(hl).toMatchObject({ symbol: 'BTC.HL', eligible: true, takerFeeBps: '4.5' });
      expect(aster).toMatchObject({ symbol: 'BTC.ASTER', eligible: true, takerFeeBps: '3.5' });
      expect(new Decimal(aster.feeUsd).lt(hl.feeUsd)).toBe(true); // cheaper fee …
      expect(new Decimal(aster.totalCostUsd).gt(hl.totalCostUsd)).toBe(true); // … dearer all in
      expect(new Decimal(hl.feeUsd).plus(hl.spreadUsd).plus(hl.impactUsd).toFixed()).toBe(
        new Decimal(hl.totalCostUsd).toFixed(),
      );
      expect(d.estimatedCostUsd).toBe(hl.totalCostUsd);
      expect(new Decimal(d.savingsVsNextBestUsd).gt(0)).toBe(true);

      const intent = await s.call('GET', `/api/v1/oms/intents/${d.intentId}`, { headers: cookie });
      expect(intent.status).toBe(200);
      expect(intent.body).toMatchObject({
        venue: 'hyperliquid',
        symbol: 'BTC.HL',
        side: 'buy',
        type: 'market',
        qty: '0.01',
      });
      decisions.unshift(d);
    });

    it('with equal books the lower fee wins; a retry with the same Idempotency-Key is the same order', async () => {
      await quote('aster', 'BTC.ASTER');
      const key = { 'idempotency-key': `sor-${randomBytes(6).toString('hex')}` };
      const first = await route({ asset: 'BTC', side: 'sell', qty: '0.01', type: 'market' }, key);
      expect(first.status).toBe(201);
      expect(first.body.decision).toMatchObject({ selectedVenue: 'aster', nextBest: { venue: 'hyperliquid' } });
      const again = await route({ asset: 'BTC', side: 'sell', qty: '0.01', type: 'market' }, key);
      expect([again.status, again.headers.get('idempotency-replay'), again.body.intentId]).toEqual([
        201,
        'true',
        first.body.intentId,
      ]);
      decisions.unshift(first.body.decision);

      const third = await route({ asset: 'BTC', side: 'buy', qty: '0.02', type: 'market' });
      expect(third.status).toBe(201);
      decisions.unshift(third.body.decision);
    });

    it('lists decisions newest first with cursor paging, for the cookie and for the owner’s bearer', async () => {
      const first = await s.call('GET', '/api/v1/sor/decisions?limit=2', { headers: cookie });
      expect(first.status).toBe(200);
      expect(first.body.data.map((x: { intentId: string }) => x.intentId)).toEqual(
        decisions.slice(0, 2).map((x) => x.intentId),
      );
      expect(first.body.hasMore).toBe(true);
      expect(first.body.nextCursor).toEqual(expect.any(String));
      const second = await s.call('GET', `/api/v1/sor/decisions?limit=2&cursor=${first.body.nextCursor}`, {
        token: trader.token,
      });
      expect(second.status).toBe(200);
      expect(second.body).toMatchObject({ hasMore: false, nextCursor: null });
      expect(second.body.data).toEqual([decisions[2]]);

      const stranger = await s.trader();
      expect((await s.call('GET', '/api/v1/sor/decisions', { token: stranger.token })).body).toEqual({
        data: [],
        nextCursor: null,
        hasMore: false,
      });
      expect((await s.call('GET', '/api/v1/sor/decisions?limit=501', { token: trader.token })).status).toBe(400);
    });

    it('summarises realised savings over a window: next-best all-in price against the fills, with fees', async () => {
      // A routed buy of 1 that filled at 100.6 with 0.1 of fees (all in 100.7), where the next best was estimated at 100.8.
      const em = scoped(s.orm, s.tenant.id);
      const intentId = `int_${randomBytes(10).toString('hex')}`;
      em.create(OrderIntent, {
        id: intentId,
        tenantId: s.tenant.id,
        accountId: trader.accountId!,
        credentialId: 'session:test',
        clientOrderId: null,
        venue: 'hyperliquid',
        symbol: 'BTC.HL',
        side: 'buy',
        type: 'market',
        qty: '1',
        price: null,
        triggerPrice: null,
        stopLimitPrice: null,
        reduceOnly: false,
        timeInForce: 'Ioc',
        leverage: '1',
        state: 'filled',
        orderStatus: 'filled',
        venueOrderId: '1',
        venueClientOrderId: null,
        filledQty: '1',
        avgFillPrice: '100.6',
        lastEvent: 'filled',
        rejectReason: null,
        batchId: null,
        batchLeg: null,
      });
      em.create(Fill, {
        id: `${intentId}-1`,
        tenantId: s.tenant.id,
        accountId: trader.accountId!,
        intentId,
        venue: 'hyperliquid',
        symbol: 'BTC.HL',
        side: 'buy',
        qty: '1',
        price: '100.6',
        feeUsd: '0.1',
        liquidity: 'taker',
        venueOrderId: '1',
        venueTradeId: '1',
        realizedPnlUsd: '0',
        executedAt: new Date(),
      });
      await em.flush();
      await platformEm(s.orm)
        .getConnection()
        .execute(
          `insert into sor_decisions (id, tenant_id, account_id, intent_id, asset, side, qty, selected_venue, selected_symbol, candidates, eligible_count, estimated_cost_usd, estimated_cost_bps, selected_all_in_price, mark, next_best_venue, next_best_cost_usd, next_best_cost_bps, next_best_all_in_price, savings_usd, created_at)
         values (?, ?, ?, ?, 'BTC', 'buy', 1, 'hyperliquid', 'BTC.HL', '[]', 2, 0.7, 70, 100.75, 100, 'aster', 0.8, 80, 100.8, 0.05, now())`,
          [`sor_${intentId.slice(4)}`, s.tenant.id, trader.accountId, intentId],
        );

      const res = await s.call('GET', `/api/v1/sor/decisions/summary?from=${startedAt.toISOString()}`, {
        headers: cookie,
      });
      expect(res.status).toBe(200);
      const estimated = decisions.reduce((sum, x) => sum.plus(x.savingsVsNextBestUsd ?? 0), new Decimal('0.05'));
      expect(res.body).toMatchObject({
        decisions: 4,
        filled: 1,
        savingsCounted: 1,
        avgEligibleCandidates: '2.00',
        realisedSavingsUsd: '0.1',
        estimatedSavingsUsd: estimated.toFixed(),
      });
      expect(res.body.byVenue).toContainEqual({
        venue: 'hyperliquid',
        decisions: 2,
        filled: 1,
        realisedSavingsUsd: '0.1',
      });
      expect(Date.parse(res.body.from)).toBe(startedAt.getTime());

      const empty = await s.call(
        'GET',
        `/api/v1/sor/decisions/summary?from=2020-01-01T00:00:00Z&to=2020-02-01T00:00:00Z`,
        { token: trader.token },
      );
      expect(empty.body).toMatchObject({
        decisions: 0,
        filled: 0,
        realisedSavingsUsd: '0',
        estimatedSavingsUsd: '0',
        byVenue: [],
      });
    });

    it('documents the routes and the decision shape in the OpenAPI document', async () => {
      const doc = (await (await fetch(`${s.api.baseUrl}/api/v1/openapi.json`)).json()) as {
        paths: Record<string, Record<string, any>>;
        components: { schemas: Record<string, any> };
      };
      expect(Object.keys(doc.paths)).toEqual(
        expect.arrayContaining([
          '/api/auth/siwe/nonce',
          '/api/auth/siwe/verify',
          '/api/auth/siwe/logout',
          '/api/v1/oms/route-intents',
          '/api/v1/sor/decisions',
          '/api/v1/sor/decisions/summary',
        ]),
      );
      expect(Object.keys(doc.components.schemas.SorDecision.properties)).toEqual(
        expect.arrayContaining([
          'decisionId',
          'selectedVenue',
          'estimatedCostUsd',
          'estimatedCostBps',
          'candidates',
          'savingsVsNextBestUsd',
          'decidedAt',
        ]),
      );
    });
  });
});

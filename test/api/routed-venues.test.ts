/**
 * Routed execution end to end (issue 4; docs/api.md §1 custody and routed execution, §4.3, §7): for each
 * of Hyperliquid, Aster, Polymarket and Kalshi, through the API, the real workflow and the venue's
 * simulator (which verifies every signature as the venue does): custody gates at compose, the
 * owner's wallet authorising the agent, compose → signed → dispatched → filled with the venue's
 * ids and fees → /ws/risk, a resting order canceled on the venue, a lost acknowledgement that never
 * becomes a second venue order (also when the dispatch runs again from its first attempt, as a
 * worker's re-run does, or when the first task sent it beside a record that failed), a venue refusal as
 * `venue_rejected`, and order history that shows an order placed in the venue's own interface.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it, onTestFinished } from 'vitest';
import pg from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import { MockActivityEnvironment } from '@temporalio/testing';
import { openOrm } from '../../db/orm.js';
import { Decimal, fmt } from '../../domain/decimal.js';
import { VENUE_SYMBOLS, type SymbolSpec } from '../../domain/market/symbols.js';
import { AgentWallet } from '../../db/entities.js';
import { platformEm } from '../../db/orm.js';
import { publishMark } from '../../modules/market/feeds/marks.js';
import type { MarkTick } from '../../domain/market/types.js';
import { predictionTickAt } from '../../modules/market/feeds/prediction-marks.js';
import { startStack, TEST_AGENT_KEYS, type Stack } from '../support/stack.js';
import { parseKeyRing } from '../../domain/custody/vault.js';
import { omsActivities } from '../../modules/oms/activities/oms.js';
import { routedActivities } from '../../modules/oms/activities/routed.js';
import { recordedTick } from '../support/marks.js';
import { riskSocket } from '../support/ws.js';
import { waitFor } from '../support/wait.js';
import { authorizeAgent, startSimulators, type Simulators } from '../support/venues.js';
import { maybeSaveHistory } from '../support/histories.js';
import { agentAuthorizationWorkflowId } from '../../modules/custody/workflows/agent-authorization.definitions.js';
import {
  cancelUpdate,
  intentWorkflowId,
  type IntentWorkflowInput,
} from '../../modules/oms/workflows/intent.definitions.js';
import { venueOrdersSyncWorkflowId } from '../../modules/oms/workflows/venue-orders.definitions.js';

type Venue = 'hyperliquid' | 'aster' | 'polymarket' | 'kalshi';

/** Each venue's request for an account's fills (URL and body as sent), the one a test may make fail. */
const FILLS_REQUEST: Record<Venue, RegExp> = {
  hyperliquid: /"userFillsByTime"/,
  aster: /\/fapi\/v3\/userTrades/,
  polymarket: /\/data\/trades/,
  kalshi: /\/portfolio\/fills/,
};

/** Per venue: the symbol traded, its size, and a buy price that rests far below the mark. */
interface Case {
  venue: Venue;
  spec: SymbolSpec;
  qty: string;
  restingPrice: string;
  /** The case's mark, stamped now. */
  tick: () => Promise<MarkTick>;
}

/** Makes `pool`'s first statement that inserts an order intent fail with `record lost (test)`, before it is sent. */
function failFirstIntentInsert(pool: pg.Pool) {
  const query = pool.query.bind(pool) as (q: { text: string }, ...rest: unknown[]) => Promise<unknown>;
  let failed = false;
  Object.assign(pool, {
    query: (q: { text: string }, ...rest: unknown[]) => {
      if (failed || !q?.text?.includes('insert into order_intents')) return query(q, ...rest);
      failed = true;
      return Promise.reject(new Error('record lost (test)'));
    },
  });
}

describe('routed venues', () => {
  let s: Stack;
  let sims: Simulators;
  let simOrm: MikroORM;
  const cases: Case[] = [];

  beforeAll(async () => {
    // The simulators read the run's mark store (their own connection); the stack is pointed at them.
    simOrm = await openOrm(inject('databaseUrl'));
    sims = await startSimulators(simOrm);
    s = await startStack({ env: sims.env });

    for (const venue of ['hyperliquid', 'aster'] as const) {
      const spec = VENUE_SYMBOLS[venue].find((x) => x.base === 'ETH')!;
      const tick = await recordedTick(spec.symbol, 0.5, venue);
      cases.push({
        venue,
        spec,
        qty: '0.01',
        restingPrice: fmt(tick.mark.div(2).toDecimalPlaces(0, Decimal.ROUND_DOWN)),
        tick: async () => ({ ...tick, ts: Date.now() }),
      });
    }
    // Prediction marks are pinned at 0.50 (the recorded replay wanders to 0.01 and 0.99, where a
    // market buy or a resting bid at 0.02 would not be the case under test).
    for (const venue of ['polymarket', 'kalshi'] as const) {
      const spec = VENUE_SYMBOLS[venue][0];
      cases.push({
        venue,
        spec,
        qty: '10',
        restingPrice: '0.02',
        tick: async () => predictionTickAt(spec, '0.5', Date.now()),
      });
    }
  });
  beforeEach(async () => {
    // Every case's mark, fresh (a mark older than MARK_MAX_AGE_MS is stale).
    for (const c of cases) await publishMark(s.orm, await c.tick());
  });
  afterAll(async () => {
    await s?.stop();
    await sims?.stop();
    await simOrm?.close();
  });

  const intent = (token: string, id: string) => s.call('GET', `/api/v1/oms/intents/${id}`, { token });

  for (const venue of ['hyperliquid', 'aster', 'polymarket', 'kalshi'] as const) {
    describe(venue, () => {
      const c = () => cases.find((x) => x.venue === venue)!;

      it('refuses compose without an authorised agent, authorises with the owner’s own signature, then fills with the venue’s ids on /ws/risk', async () => {
        const t = await s.trader('fullTrading', { executionMode: 'routed' });
        const order = { venue, symbol: c().spec.symbol, side: 'buy', type: 'market', qty: c().qty };
        expect(await s.call('POST', '/api/v1/oms/intents', { token: t.token, body: order })).toMatchObject({
          status: 403,
          body: { error: 'credential_missing_agent_wallet' },
        });

        // A signature by someone else does not authorise the agent.
        const created = await s.call('POST', `/api/v1/accounts/${t.accountId}/agents`, {
          token: t.token,
          body: { venue, owner: venue === 'kalshi' ? 'member-x' : '0x5e9ee1089755c3435139848e47e6635505d5a13a' },
        });
        expect(created.status).toBe(201);
        expect(JSON.stringify(created.body)).not.toMatch(/privateKey|encrypted/i);
        if (venue !== 'kalshi') {
          const forged = await s.call(
            'POST',
            `/api/v1/accounts/${t.accountId}/agents/${created.body.agentId}/authorization`,
            { token: t.token, body: { signature: `0x${'11'.repeat(65)}` } },
          );
          expect(forged).toMatchObject({ status: 400, body: { error: 'invalid_signature' } });
        }
        expect(
          (await s.call('DELETE', `/api/v1/accounts/${t.accountId}/agents/${created.body.agentId}`, { token: t.token }))
            .body.status,
        ).toBe('revoked');
        expect(await s.call('POST', '/api/v1/oms/intents', { token: t.token, body: order })).toMatchObject({
          status: 403,
          body: { error: 'agent_authorization_revoked' },
        });

        const { agent } = await authorizeAgent(s, sims, t.token, t.accountId!, venue);
        expect(agent).toMatchObject({ status: 'active', venue });
        await maybeSaveHistory(
          s.temporal.workflow.getHandle(agentAuthorizationWorkflowId(agent.agentId)),
          `agent-authorize-${venue}`,
        );

        const ws = await riskSocket(s, t.token, { topics: ['Order-Intent-Changed', 'Position-Changed', 'Fills'] });

        const res = await s.call('POST', '/api/v1/oms/intents', { token: t.token, body: order });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        const filled = await waitFor(
          () => intent(t.token, res.body.intentId),
          (x) => x.body.state === 'filled' || x.body.state === 'rejected',
        );
        expect(filled.body, JSON.stringify(filled.body)).toMatchObject({
          state: 'filled',
          orderStatus: 'filled',
          venue,
          filledQty: c().qty,
        });
        expect(filled.body.venueOrderId).not.toContain(res.body.intentId); // the exchange's id, not a platform one
        const frame = await ws.next(
          (f) => f.type === 'Order-Intent-Update' && f.data.intentId === res.body.intentId && f.data.state === 'filled',
        );
        expect(frame.data.venueOrderId).toBe(filled.body.venueOrderId);
        // Compose answers the intent as recorded at compose; its frames come in the order it moved: composed,
        // dispatched with the venue's order id (recorded with it, patch routed-first-task-sends), filled.
        expect(res.body).toMatchObject({ state: 'signed_pending_dispatch', venueOrderId: null });
        const moves = ws.frames.filter(
          (f) => f.type === 'Order-Intent-Update' && f.data.intentId === res.body.intentId,
        );
        expect(moves.map((f) => [f.data.state, f.data.venueOrderId])).toEqual([
          ['signed_pending_dispatch', null],
          ['dispatched', filled.body.venueOrderId],
          ['filled', filled.body.venueOrderId],
        ]);
        ws.close();
        const handle = s.temporal.workflow.getHandle(intentWorkflowId(res.body.intentId));
        expect(await handle.result()).toMatchObject({ state: 'filled' });
        await maybeSaveHistory(handle, `intent-routed-${venue}-market-filled`);

        const fills = await s.call('GET', `/api/v1/accounts/${t.accountId}/fills`, { token: t.token });
        const mine = fills.body.fills.filter((f: { intentId: string }) => f.intentId === res.body.intentId);
        expect(mine.length).toBeGreaterThan(0);
        expect(mine[0]).toMatchObject({ venue, venueOrderId: filled.body.venueOrderId });
        expect(mine[0].venueTradeId).not.toContain(res.body.intentId);
        expect(mine.reduce((sum: Decimal, f: { qty: string }) => sum.plus(f.qty), new Decimal(0)).toFixed()).toBe(
          new Decimal(c().qty).toFixed(),
        );
        const positions = await s.call('GET', `/api/v1/accounts/${t.accountId}/positions`, { token: t.token });
        expect(
          positions.body.positions.find(
            (p: { venue: string; symbol: string }) => p.venue === venue && p.symbol === c().spec.symbol,
          ),
        ).toMatchObject({ qty: new Decimal(c().qty).toFixed() });
        // The fill's state snapshot on the venue equals /state there: the balance after the venue's fee, one position.
        const points = (
          await s.call('GET', `/api/v1/accounts/${t.accountId}/state/history?venue=${venue}`, { token: t.token })
        ).body.points;
        const state = await s.call('GET', `/api/v1/accounts/${t.accountId}/state`, { token: t.token });
        const there = state.body.perVenue.find((v: { venue: string }) => v.venue === venue);
        expect(points.at(-1)).toMatchObject({ reason: 'fill', openPositions: 1, balanceUsd: there.balanceUsd });
        const fees = mine.reduce((sum: Decimal, f: { feeUsd: string }) => sum.plus(f.feeUsd), new Decimal(0));
        expect(new Decimal(points.at(-1).balanceUsd).eq(fees.negated())).toBe(true);
      });

      it('rests a limit order on the venue and cancels it there; a venue refusal is venue_rejected with the venue’s reason', async () => {
        const t = await s.trader('fullTrading', { executionMode: 'routed' });
        await authorizeAgent(s, sims, t.token, t.accountId!, venue);
        const res = await s.call('POST', '/api/v1/oms/intents', {
          token: t.token,
          body: { venue, symbol: c().spec.symbol, side: 'buy', type: 'limit', price: c().restingPrice, qty: c().qty },
        });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        const open = await waitFor(
          () => intent(t.token, res.body.intentId),
          (x) => x.body.orderStatus === 'open' || x.body.state === 'rejected',
        );
        expect(open.body, JSON.stringify(open.body)).toMatchObject({ state: 'dispatched', orderStatus: 'open' });
        const canceled = await s.call('POST', '/api/v1/oms/cancel', {
          token: t.token,
          body: { venueOrderId: open.body.venueOrderId },
        });
        expect(canceled.status, JSON.stringify(canceled.body)).toBe(200);
        expect(canceled.body).toMatchObject({ state: 'canceled', venueOrderId: open.body.venueOrderId });
        const handle = s.temporal.workflow.getHandle(intentWorkflowId(res.body.intentId));
        expect(await handle.result()).toMatchObject({ state: 'canceled' });
        // The Open-Orders-Update of the order resting and of its cancel carry the order's venue, not `paper`.
        const changes = await s.call('GET', `/api/v1/accounts/${t.accountId}/events?kind=orders.open_changed`, {
          token: t.token,
        });
        expect(changes.status, JSON.stringify(changes.body)).toBe(200);
        expect(changes.body.events.length).toBeGreaterThan(0);
        expect(changes.body.events.map((e: { venue: string }) => e.venue)).toEqual(
          changes.body.events.map(() => venue),
        );
        await maybeSaveHistory(handle, `intent-routed-${venue}-resting-canceled`);

        sims[venue].rejectNext('insufficient margin for this order');
        const refused = await s.call('POST', '/api/v1/oms/intents', {
          token: t.token,
          body: { venue, symbol: c().spec.symbol, side: 'buy', type: 'market', qty: c().qty },
        });
        const dead = await waitFor(
          () => intent(t.token, refused.body.intentId),
          (x) => x.body.state === 'rejected' || x.body.state === 'filled',
        );
        expect(dead.body.state).toBe('rejected');
        expect(dead.body.rejectReason).toBe('venue_rejected: insufficient margin for this order');
      });

      it('a lost acknowledgement is retried by looking the client order id up: exactly one venue order', async () => {
        const t = await s.trader('fullTrading', { executionMode: 'routed' });
        const { user } = await authorizeAgent(s, sims, t.token, t.accountId!, venue);
        const before = sims[venue].orderCount(user.owner);
        sims[venue].dropNextAck();
        const res = await s.call('POST', '/api/v1/oms/intents', {
          token: t.token,
          body: { venue, symbol: c().spec.symbol, side: 'buy', type: 'market', qty: c().qty },
        });
        expect(res.status).toBe(201);
        const done = await waitFor(
          () => intent(t.token, res.body.intentId),
          (x) => x.body.state === 'filled' || x.body.state === 'rejected',
          30_000,
        );
        expect(done.body.state).toBe('filled');
        expect(sims[venue].orderCount(user.owner)).toBe(before + 1);
        const fills = await s.call('GET', `/api/v1/accounts/${t.accountId}/fills`, { token: t.token });
        expect(
          fills.body.fills
            .filter((f: { intentId: string }) => f.intentId === res.body.intentId)
            .reduce((sum: Decimal, f: { qty: string }) => sum.plus(f.qty), new Decimal(0))
            .toFixed(),
        ).toBe(new Decimal(c().qty).toFixed());
      });

      /**
       * A routed market buy recorded straight through the activities (no workflow; `record: false` leaves it to the
       * test), and the routed activities over their own pool, sending through `fetch` (the global one unless given):
       * the dispatch (`attempt`) or the record and dispatch (`recordAndDispatch`) is run by the test, as attempt `n`,
       * with the options the workflow passes. `failRecord`: the pool's first statement that inserts an intent fails (as
       * one lost with its connection does).
       */
      async function recordedMarketBuy(
        t: { accountId: string | null; credentialId: string },
        tag: string,
        fetch?: typeof globalThis.fetch,
        { record = true, failRecord = false } = {},
      ) {
        const pool = new pg.Pool({ connectionString: s.config.databaseUrl, max: 2 });
        onTestFinished(() => pool.end());
        if (failRecord) failFirstIntentInsert(pool);
        const deps = {
          orm: s.orm,
          pool,
          markMaxAgeMs: 60_000,
          ring: parseKeyRing(TEST_AGENT_KEYS),
          venues: {
            urls: {
              hyperliquid: sims.hyperliquid.url,
              aster: sims.aster.url,
              polymarket: sims.polymarket.url,
              kalshi: sims.kalshi.url,
            },
            network: 'mainnet' as const,
          },
          fetch,
        };
        const intentId = `int_${tag}_${venue}_${Date.now()}`;
        const input = {
          intentId,
          tenantId: s.tenant.id,
          accountId: t.accountId!,
          credentialId: t.credentialId,
          clientOrderId: null,
          venue,
          symbol: c().spec.symbol,
          side: 'buy',
          type: 'market',
          qty: c().qty,
          price: null,
          triggerPrice: null,
          stopLimitPrice: null,
          reduceOnly: false,
          timeInForce: 'Gtc',
          leverage: '1',
        } satisfies IntentWorkflowInput;
        if (record) await omsActivities(deps).recordIntent(input);
        const routed = routedActivities(deps);
        const attempt = (n: number, opts?: { maybeSent?: boolean }) =>
          new MockActivityEnvironment({ attempt: n }).run(() => routed.dispatchRouted(intentId, opts));
        const recordAndDispatch = (n: number, opts?: { firstTask?: boolean }) =>
          new MockActivityEnvironment({ attempt: n }).run<
            [],
            Awaited<ReturnType<typeof routed.recordAndDispatchRouted>>,
            () => ReturnType<typeof routed.recordAndDispatchRouted>
          >(() => routed.recordAndDispatchRouted(input, opts));
        const recordOnly = () => omsActivities(deps).recordIntent(input);
        return { intentId, attempt, recordAndDispatch, recordOnly };
      }

      /**
       * A first task's record-and-dispatch (patch routed-first-task-sends) whose record fails after its order was
       * sent: the call fails, the venue holds one order, nothing is recorded. Answers the buy and the venue's count.
       */
      async function sentUnrecorded(tag: string) {
        const t = await s.trader('fullTrading', { executionMode: 'routed' });
        const { user } = await authorizeAgent(s, sims, t.token, t.accountId!, venue);
        const buy = await recordedMarketBuy(t, tag, undefined, { record: false, failRecord: true });
        const before = sims[venue].orderCount(user.owner);
        await expect(buy.recordAndDispatch(1, { firstTask: true })).rejects.toThrow('record lost');
        expect(sims[venue].orderCount(user.owner)).toBe(before + 1);
        expect((await intent(t.token, buy.intentId)).status).toBe(404);
        return { ...buy, t, orders: () => sims[venue].orderCount(user.owner) - before };
      }

      it('a first task sends the order before recording it; when the record fails, the dispatch the workflow falls back to finds that order: exactly one venue order', async () => {
        const { t, intentId, recordOnly, attempt, orders } = await sentUnrecorded('beside_fallback');
        await recordOnly();
        const outcome = await attempt(1, { maybeSent: true });
        expect(outcome).toMatchObject({ state: 'filled', filledQty: new Decimal(c().qty).toFixed() });
        expect(orders()).toBe(1);
        expect((await intent(t.token, intentId)).body).toMatchObject({ state: 'filled' });
      });

      it('a first task that sent its order unrecorded and died: the task run again (not the first) records the intent and finds that order: exactly one venue order', async () => {
        const { t, intentId, recordAndDispatch, orders } = await sentUnrecorded('beside_rerun');
        const { view, outcome } = await recordAndDispatch(1, { firstTask: false });
        expect(view).toMatchObject({ intentId, state: 'signed_pending_dispatch' });
        expect(outcome).toMatchObject({ state: 'filled', filledQty: new Decimal(c().qty).toFixed() });
        expect(orders()).toBe(1);
        expect((await intent(t.token, intentId)).body).toMatchObject({ state: 'filled' });
      });

      it('a first task whose intent is recorded already (a modify’s replacement) dispatches it once', async () => {
        const t = await s.trader('fullTrading', { executionMode: 'routed' });
        const { user } = await authorizeAgent(s, sims, t.token, t.accountId!, venue);
        const { intentId, recordAndDispatch } = await recordedMarketBuy(t, 'beside_recorded');
        const before = sims[venue].orderCount(user.owner);
        const { outcome } = await recordAndDispatch(1, { firstTask: true });
        expect(outcome).toMatchObject({ state: 'filled', filledQty: new Decimal(c().qty).toFixed() });
        expect(sims[venue].orderCount(user.owner)).toBe(before + 1);
        expect((await intent(t.token, intentId)).body).toMatchObject({ state: 'filled' });
      });

      it('a record-and-dispatch run again after its order was sent and the answer lost (a worker re-run) records the intent once and finds that order: exactly one venue order', async () => {
        const t = await s.trader('fullTrading', { executionMode: 'routed' });
        const { user } = await authorizeAgent(s, sims, t.token, t.accountId!, venue);
        const { intentId, recordAndDispatch } = await recordedMarketBuy(t, 'rerun_record', undefined, {
          record: false,
        });
        const before = sims[venue].orderCount(user.owner);
        sims[venue].dropNextAck();
        await expect(recordAndDispatch(1)).rejects.toThrow();
        expect(sims[venue].orderCount(user.owner)).toBe(before + 1);
        expect((await intent(t.token, intentId)).body).toMatchObject({ state: 'signed_pending_dispatch' });
        const { view, outcome } = await recordAndDispatch(1);
        expect(view).toMatchObject({ intentId, state: 'signed_pending_dispatch' });
        expect(outcome).toMatchObject({ state: 'filled', filledQty: new Decimal(c().qty).toFixed() });
        expect(sims[venue].orderCount(user.owner)).toBe(before + 1);
        expect((await intent(t.token, intentId)).body).toMatchObject({ state: 'filled' });
      });

      it('a dispatch run again from its first attempt after its order was sent and the answer lost (a worker re-run) finds that order: exactly one venue order', async () => {
        const t = await s.trader('fullTrading', { executionMode: 'routed' });
        const { user } = await authorizeAgent(s, sims, t.token, t.accountId!, venue);
        const { attempt } = await recordedMarketBuy(t, 'rerun');
        const before = sims[venue].orderCount(user.owner);
        sims[venue].dropNextAck();
        await expect(attempt(1)).rejects.toThrow();
        expect(sims[venue].orderCount(user.owner)).toBe(before + 1);
        const outcome = await attempt(1);
        expect(outcome).toMatchObject({ state: 'filled', filledQty: new Decimal(c().qty).toFixed() });
        expect(sims[venue].orderCount(user.owner)).toBe(before + 1);
      });

      /**
       * A market buy whose first attempt loses one venue answer after the venue accepted the order (the request
       * `fails` picks, dropped as `why` says): that attempt fails, the intent stays `dispatched` with the venue's order
       * id, and the second attempt reads the order back: filled, one venue order. Answers that venue order id.
       */
      async function acknowledgedThenRead(
        tag: string,
        fails: (url: string, init?: RequestInit) => boolean,
        why: string,
      ) {
        const t = await s.trader('fullTrading', { executionMode: 'routed' });
        const { user } = await authorizeAgent(s, sims, t.token, t.accountId!, venue);
        let failing = true;
        const faulty: typeof fetch = async (input, init) => {
          const url = input instanceof Request ? input.url : input.toString();
          if (failing && fails(url, init)) {
            failing = false;
            throw new TypeError(`fetch failed (${why})`);
          }
          return fetch(input, init);
        };
        const { intentId, attempt } = await recordedMarketBuy(t, tag, faulty);
        const before = sims[venue].orderCount(user.owner);
        await expect(attempt(1)).rejects.toThrow(why);
        expect(failing).toBe(false);
        const acknowledged = (await intent(t.token, intentId)).body;
        expect(acknowledged).toMatchObject({ state: 'dispatched', orderStatus: null, filledQty: '0' });
        const outcome = await attempt(2);
        expect(outcome).toMatchObject({
          state: 'filled',
          venueOrderId: acknowledged.venueOrderId,
          filledQty: new Decimal(c().qty).toFixed(),
        });
        expect(sims[venue].orderCount(user.owner)).toBe(before + 1);
        return acknowledged.venueOrderId as unknown;
      }

      it('an order acknowledged by the venue is dispatched at once; an attempt that dies reading its fills leaves it dispatched, and the retry reads it back: filled, one venue order', async () => {
        const fillsRead = (url: string, init?: RequestInit) =>
          FILLS_REQUEST[venue].test(`${url} ${typeof init?.body === 'string' ? init.body : ''}`);
        const venueOrderId = await acknowledgedThenRead(
          'fills_lost',
          fillsRead,
          'the connection dropped while reading fills',
        );
        expect(venueOrderId).toEqual(expect.any(String));
      });

      it.runIf(venue === 'polymarket')(
        'an order the venue accepted is dispatched before it is read back; an attempt whose read-back fails leaves it dispatched with the venue order id, and the retry reads it: filled, one venue order',
        async () => {
          const readBack = (url: string, init?: RequestInit) =>
            (init?.method ?? 'GET') === 'GET' && /\/data\/order\/0x/.test(url);
          const why = 'the connection dropped while reading the order back';
          expect(await acknowledgedThenRead('readback_lost', readBack, why)).toMatch(/^0x[0-9a-f]{64}$/);
        },
      );

      it.runIf(venue === 'hyperliquid')(
        'fills are looked up from just before the order was placed; a venue clock 10 s behind ours (fills stamped earlier) widens the look-up to the minute before the intent: filled, once',
        async () => {
          const t = await s.trader('fullTrading', { executionMode: 'routed' });
          await authorizeAgent(s, sims, t.token, t.accountId!, venue);
          const run = async (skewMs: number) => {
            const starts: number[] = [];
            // The venue's answer as a venue whose clock runs `skewMs` behind ours would stamp it.
            const skewed: typeof fetch = async (input, init) => {
              const res = await fetch(input, init);
              const body = typeof init?.body === 'string' ? init.body : '';
              if (!FILLS_REQUEST.hyperliquid.test(body)) return res;
              starts.push((JSON.parse(body) as { startTime: number }).startTime);
              const fills = (await res.json()) as { time: number }[];
              return Response.json(fills.map((f) => ({ ...f, time: f.time - skewMs })));
            };
            const { attempt } = await recordedMarketBuy(t, `skew${skewMs}`, skewed);
            const placedBefore = Date.now();
            const outcome = await attempt(1);
            expect(outcome).toMatchObject({ state: 'filled', filledQty: new Decimal(c().qty).toFixed() });
            return { starts, placedBefore };
          };
          const inSync = await run(0);
          expect(inSync.starts).toHaveLength(1);
          expect(inSync.starts[0]).toBeGreaterThanOrEqual(inSync.placedBefore - 2_000);
          const behind = await run(10_000);
          expect(behind.starts).toHaveLength(2);
          expect(behind.starts[1]).toBeLessThan(behind.placedBefore - 60_000);
        },
      );

      it('a cancel that arrives while the dispatch is in flight (its ack lost) waits for it and cancels the resting order', async () => {
        const t = await s.trader('fullTrading', { executionMode: 'routed' });
        await authorizeAgent(s, sims, t.token, t.accountId!, venue);
        sims[venue].dropNextAck(); // the dispatch retries and finds the order: a window in which the workflow has no outcome yet
        const res = await s.call('POST', '/api/v1/oms/intents', {
          token: t.token,
          body: { venue, symbol: c().spec.symbol, side: 'buy', type: 'limit', price: c().restingPrice, qty: c().qty },
        });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        const handle = s.temporal.workflow.getHandle(intentWorkflowId(res.body.intentId));
        expect(await handle.executeUpdate(cancelUpdate)).toMatchObject({
          intentId: res.body.intentId,
          state: 'canceled',
        });
        expect(await handle.result()).toMatchObject({ state: 'canceled' });
        expect((await intent(t.token, res.body.intentId)).body).toMatchObject({
          state: 'canceled',
          orderStatus: 'canceled',
        });
        await maybeSaveHistory(handle, `intent-routed-${venue}-cancel-during-dispatch`);
      });

      it('order history lists the platform’s orders and one placed in the venue’s own interface; an expired agent is refused at compose', async () => {
        const t = await s.trader('fullTrading', { executionMode: 'routed' });
        const { user, agent } = await authorizeAgent(s, sims, t.token, t.accountId!, venue);
        const res = await s.call('POST', '/api/v1/oms/intents', {
          token: t.token,
          body: { venue, symbol: c().spec.symbol, side: 'buy', type: 'market', qty: c().qty },
        });
        const filled = await waitFor(
          () => intent(t.token, res.body.intentId),
          (x) => x.body.state === 'filled' || x.body.state === 'rejected',
        );
        const injected = await sims[venue].injectOrder(user.owner, {
          symbol: c().spec.symbol,
          side: 'buy',
          qty: c().qty,
          price: c().restingPrice,
        });

        const history = await s.call('GET', `/api/v1/accounts/${t.accountId}/order-history?venue=${venue}`, {
          token: t.token,
        });
        expect(history.status, JSON.stringify(history.body)).toBe(200);
        const ours = history.body.orders.find(
          (o: { venueOrderId: string }) => o.venueOrderId === filled.body.venueOrderId,
        );
        expect(ours).toMatchObject({ source: 'platform', intentId: res.body.intentId, status: 'filled', venue });
        const theirs = history.body.orders.find(
          (o: { venueOrderId: string }) => o.venueOrderId === String(injected.venueOrderId),
        );
        expect(theirs).toMatchObject({ source: 'venue', intentId: null, status: 'open', symbol: c().spec.symbol });
        await maybeSaveHistory(
          s.temporal.workflow.getHandle(venueOrdersSyncWorkflowId(t.accountId!, venue)),
          `venue-orders-${venue}`,
        );
        const onlyOpen = await s.call(
          'GET',
          `/api/v1/accounts/${t.accountId}/order-history?venue=${venue}&status=open`,
          { token: t.token },
        );
        expect(onlyOpen.body.orders.every((o: { status: string }) => o.status === 'open')).toBe(true);

        await platformEm(s.orm).nativeUpdate(
          AgentWallet,
          { id: agent.agentId },
          { expiresAt: new Date(Date.now() - 1000) },
          { filters: false },
        );
        expect(
          await s.call('POST', '/api/v1/oms/intents', {
            token: t.token,
            body: { venue, symbol: c().spec.symbol, side: 'buy', type: 'market', qty: c().qty },
          }),
        ).toMatchObject({ status: 403, body: { error: 'agent_authorization_expired' } });
      });
    });
  }
});

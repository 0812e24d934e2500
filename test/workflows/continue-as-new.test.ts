/**
 * Workflows that live for weeks (issue 14; docs/architecture.md "History bound", docs/order-lifecycle.md §5): with
 * `WORKFLOW_HISTORY_BOUND` set to its floor (50 events), through the api, the worker, the real Temporal dev server,
 * the Hyperliquid simulator and anvil. A resting routed order and its chase each continue as new at least three
 * times under the same workflow id and still end as they should (the order fills with exactly one venue order, the
 * chase ends `filled` without a replace); a cancel sent as a run reaches its bound, and one sent to a run that has
 * just started, each answer `canceled`; a live firm's deployment takes its operator's transitions across three runs;
 * a challenge awaiting its deposit continues as new until it is paid, then watches its rules; an hourly funding run
 * over sixteen accounts carries the accounts still to pay across its runs and pays each once; a requested payout
 * follows the Safe across three runs and the operator's cancel reaches the current one. Every run but the
 * last ended `CONTINUED_AS_NEW` a step past the bound, and each run started from the one before it.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { WorkflowHandle } from '@temporalio/client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Address, Hex } from 'viem';
import { openOrm } from '../../db/orm.js';
import { Decimal } from '../../domain/decimal.js';
import { VENUE_SYMBOLS } from '../../domain/market/symbols.js';
import type { MarkTick } from '../../domain/market/types.js';
import { usdToUnits } from '../../domain/prop/rules.js';
import { publishMark } from '../../modules/market/feeds/marks.js';
import { approveStablecoin, mintStablecoin } from '../../modules/prop/chain/index.js';
import { depositChallenge } from '../../modules/prop/chain/instance.js';
import { intentStateQuery, intentWorkflowId } from '../../modules/oms/workflows/intent.definitions.js';
import { chaseQuery, chaseWorkflowId } from '../../modules/oms/workflows/chase.definitions.js';
import { firmDeployWorkflowId } from '../../modules/prop/workflows/firm-deploy.definitions.js';
import { challengeWorkflowId } from '../../modules/prop/workflows/challenge.definitions.js';
import { payoutWorkflowId } from '../../modules/prop/workflows/payout.definitions.js';
import { fundingWorkflowId } from '../../modules/accounts/workflows/funding.definitions.js';
import { fundingWorkflow } from '../../modules/accounts/workflows/funding.js';
import { rateForHour } from '../../domain/market/funding.js';
import { loadFundingRates } from '../../modules/market/feeds/funding-rates.js';
import { startStack, type Stack } from '../support/stack.js';
import { movedTick, publish, recordedTick } from '../support/marks.js';
import { buyBtcFilled } from '../support/trading.js';
import { waitFor } from '../support/wait.js';
import { authorizeAgent, startSimulators, type Simulators } from '../support/venues.js';
import { chainEnv, draftFirm, fundedKey, goLive, STARTER_TERMS, type TestFirm } from '../support/prop-firm.js';
import { maybeSaveHistory } from '../support/histories.js';

const addr = (key: Hex) => privateKeyToAccount(key).address;

/** The bound the worker runs with: the floor (workflows/shared.definitions.ts `HISTORY_BOUND.min`). */
const BOUND = 50;
/**
 * How far past the bound a run may end: the step it was taking (a read-back, a transition: about ten events), an
 * Update that came in while it waited to continue, the 1 ms timer and the continuation itself.
 */
const STEP_EVENTS = 40;

/** One run of a workflow id as Temporal's visibility lists it. */
interface Run {
  runId: string;
  startTime: Date;
}

describe('long-lived workflows continue as new at the history bound', () => {
  const rpcUrl = inject('chainRpcUrl');
  let s: Stack;
  let sims: Simulators;
  let simOrm: MikroORM;
  let tick: MarkTick;
  const spec = VENUE_SYMBOLS.hyperliquid.find((x) => x.base === 'SOL')!;

  beforeAll(async () => {
    simOrm = await openOrm(inject('databaseUrl'));
    sims = await startSimulators(simOrm);
    s = await startStack({
      env: { ...sims.env, ...(await chainEnv(rpcUrl)), WORKFLOW_HISTORY_BOUND: String(BOUND), ROUTED_POLL_MS: '20' },
    });
    tick = await recordedTick(spec.symbol, 0.5, 'hyperliquid');
    await publishMark(s.orm, { ...tick, ts: Date.now() });
  });
  afterAll(async () => {
    await s?.stop();
    await sims?.stop();
    await simOrm?.close();
  });

  /** The runs of `workflowId`, oldest first. */
  async function runs(workflowId: string): Promise<Run[]> {
    const out: Run[] = [];
    for await (const r of s.temporal.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
      out.push({ runId: r.runId, startTime: r.startTime });
    return out.sort((a, b) => a.startTime.getTime() - b.startTime.getTime());
  }

  /** Waits for at least `n` runs of `workflowId`; answers them. */
  const atLeastRuns = (workflowId: string, n: number) =>
    waitFor(
      () => runs(workflowId),
      (r) => r.length >= n,
      60_000,
      100,
    );

  /**
   * Every run but the last ended continuing as new, a step past the bound, and each run after the first was started
   * by the one before it (its first event names that run). Read from the runs' own histories.
   */
  async function expectChain(workflowId: string, chain: Run[]): Promise<void> {
    for (const [i, run] of chain.entries()) {
      const { events } = await s.temporal.workflow.getHandle(workflowId, run.runId).fetchHistory();
      if (i < chain.length - 1) {
        expect(events!.at(-1)!.workflowExecutionContinuedAsNewEventAttributes, run.runId).toBeTruthy();
        expect(events!.length).toBeGreaterThanOrEqual(BOUND);
        expect(events!.length).toBeLessThanOrEqual(BOUND + STEP_EVENTS);
      }
      if (i > 0)
        expect(events![0].workflowExecutionStartedEventAttributes?.continuedExecutionRunId).toBe(chain[i - 1].runId);
    }
  }

  /** Saves the first run (which continued as new) and the last closed one under `<name>-continued` / `-resumed`. */
  async function saveChain(handle: WorkflowHandle, chain: Run[], name: string, last = chain.at(-1)!): Promise<void> {
    await maybeSaveHistory(handle, `${name}-continued`, chain[0].runId);
    await maybeSaveHistory(handle, `${name}-resumed`, last.runId);
  }

  const intent = (token: string, id: string) => s.call('GET', `/api/v1/oms/intents/${id}`, { token });

  /** A routed trader of the stack with an authorised Hyperliquid agent, and a limit buy of 1 SOL at `price` resting on the venue. */
  async function restingOrder(price: string) {
    const t = await s.trader('fullTrading', { executionMode: 'routed' });
    const { user } = await authorizeAgent(s, sims, t.token, t.accountId!, 'hyperliquid');
    const before = sims.hyperliquid.orderCount(user.owner);
    await publishMark(s.orm, { ...tick, ts: Date.now() });
    const res = await s.call('POST', '/api/v1/oms/intents', {
      token: t.token,
      body: { venue: 'hyperliquid', symbol: spec.symbol, side: 'buy', type: 'limit', price, qty: '1' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const open = await waitFor(
      () => intent(t.token, res.body.intentId),
      (x) => x.body.orderStatus === 'open' || x.body.state === 'rejected',
    );
    expect(open.body, JSON.stringify(open.body)).toMatchObject({ state: 'dispatched', orderStatus: 'open' });
    const intentId: string = res.body.intentId;
    const workflowId = intentWorkflowId(intentId);
    return {
      t,
      intentId,
      workflowId,
      venueOrderId: open.body.venueOrderId as string,
      handle: s.temporal.workflow.getHandle(workflowId),
      venueOrders: () => sims.hyperliquid.orderCount(user.owner) - before,
    };
  }

  it('a resting routed order and its chase each continue as new three times; the order then fills once on the venue and the chase ends filled', async () => {
    const order = await restingOrder(tick.bid.toFixed()); // at the touch: the chase looks every 100 ms and never replaces it
    const chased = await s.call('POST', '/api/v1/oms/chase', {
      token: order.t.token,
      body: { intentId: order.intentId, maxAttempts: 3, intervalMs: 100 },
    });
    expect(chased.status, JSON.stringify(chased.body)).toBe(200);
    const chaseId = chaseWorkflowId(order.intentId);

    await atLeastRuns(order.workflowId, 3);
    await atLeastRuns(chaseId, 3);
    expect((await intent(order.t.token, order.intentId)).body).toMatchObject({
      state: 'dispatched',
      orderStatus: 'open',
      venueOrderId: order.venueOrderId,
    });
    expect(await order.handle.query(intentStateQuery)).toBe('dispatched'); // the Query reaches the current run
    expect(await s.temporal.workflow.getHandle(chaseId).query(chaseQuery)).toMatchObject({
      currentIntentId: order.intentId,
      attempts: 0,
      state: 'chasing',
    });

    const through = tick.bid.minus(1); // the market falls through the bid: the venue fills the order
    await publishMark(s.orm, {
      ...tick,
      mark: through,
      bid: through.minus(spec.tickSize),
      ask: through.plus(spec.tickSize),
      ts: Date.now(),
    });
    const filled = await waitFor(
      () => intent(order.t.token, order.intentId),
      (x) => x.body.state === 'filled',
      30_000,
    );
    expect(filled.body).toMatchObject({ orderStatus: 'filled', filledQty: '1', venueOrderId: order.venueOrderId });
    expect(await order.handle.result()).toMatchObject({ intentId: order.intentId, state: 'filled' });
    expect(order.venueOrders()).toBe(1);
    const fills = await s.call('GET', `/api/v1/accounts/${order.t.accountId}/fills`, { token: order.t.token });
    const mine = fills.body.fills.filter((f: { intentId: string }) => f.intentId === order.intentId);
    expect(mine.reduce((sum: Decimal, f: { qty: string }) => sum.plus(f.qty), new Decimal(0)).toFixed()).toBe('1');
    expect(new Set(mine.map((f: { venueOrderId: string }) => f.venueOrderId))).toEqual(new Set([order.venueOrderId]));

    const chaseHandle = s.temporal.workflow.getHandle(chaseId);
    expect(await chaseHandle.result()).toMatchObject({ state: 'filled', attempts: 0, currentIntentId: order.intentId });

    const orderRuns = await runs(order.workflowId);
    expect(orderRuns.length).toBeGreaterThanOrEqual(3);
    expect((await order.handle.describe()).runId).toBe(orderRuns.at(-1)!.runId);
    await expectChain(order.workflowId, orderRuns);
    await saveChain(order.handle, orderRuns, 'intent-routed-history-bound-filled');
    const chaseRuns = await runs(chaseId);
    expect((await chaseHandle.describe()).runId).toBe(chaseRuns.at(-1)!.runId);
    await expectChain(chaseId, chaseRuns);
    await saveChain(chaseHandle, chaseRuns, 'chase-history-bound-filled');
    await publishMark(s.orm, { ...tick, ts: Date.now() });
  });

  for (const when of ['as the run reaches its bound', 'to the run that has just started'] as const)
    it(`a cancel sent ${when} answers canceled; the order leaves the venue, which had exactly one order`, async () => {
      const resting = tick.mark.div(2).toDecimalPlaces(0, Decimal.ROUND_DOWN).toFixed();
      const order = await restingOrder(resting);
      const first = await atLeastRuns(order.workflowId, 2);
      if (when === 'as the run reaches its bound')
        await waitFor(
          () => order.handle.describe(),
          (d) => d.historyLength >= BOUND - 4,
          30_000,
          2,
        );
      else
        await waitFor(
          () => order.handle.describe(),
          (d) => d.runId !== first.at(-1)!.runId,
          30_000,
          2,
        );
      const canceled = await s.call('POST', '/api/v1/oms/cancel', {
        token: order.t.token,
        body: { venueOrderId: order.venueOrderId },
      });
      expect(canceled.status, JSON.stringify(canceled.body)).toBe(200);
      expect(canceled.body).toMatchObject({ state: 'canceled', venueOrderId: order.venueOrderId });
      expect(await order.handle.result()).toMatchObject({ intentId: order.intentId, state: 'canceled' });
      expect((await intent(order.t.token, order.intentId)).body).toMatchObject({
        state: 'canceled',
        orderStatus: 'canceled',
      });
      expect(order.venueOrders()).toBe(1);
      const chain = await runs(order.workflowId);
      expect((await order.handle.describe()).runId).toBe(chain.at(-1)!.runId);
      await expectChain(order.workflowId, chain);
      if (when === 'to the run that has just started')
        await maybeSaveHistory(order.handle, 'intent-routed-history-bound-canceled', chain.at(-1)!.runId);
    });

  it('an hourly funding run over many accounts continues as new with the accounts still to pay, and pays each once', async () => {
    const hourIso = '2026-11-22T11:00:00.000Z';
    const paperTick = await recordedTick('ETH.PAPER', 0.5);
    await publishMark(s.orm, { ...paperTick, ts: Date.now() });
    const traders: Awaited<ReturnType<Stack['trader']>>[] = [];
    for (let i = 0; i < 16; i++) {
      const t = await s.trader();
      traders.push(t);
      const r = await s.call('POST', '/api/v1/oms/intents', {
        token: t.token,
        body: { venue: 'paper', symbol: 'ETH.PAPER', side: 'buy', type: 'market', qty: '0.5' },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      await waitFor(
        () => intent(t.token, r.body.intentId),
        (x) => x.body.state === 'filled',
      );
    }
    await publishMark(s.orm, { ...paperTick, ts: Date.now() });
    const rate = rateForHour(await loadFundingRates('ETH'), Date.parse(hourIso)).rate;
    const each = new Decimal('0.5').times(paperTick.mark).times(rate).negated();

    const workflowId = `${fundingWorkflowId('paper', hourIso)}-${s.tenant.id}`;
    const handle = await s.temporal.workflow.start(fundingWorkflow, {
      taskQueue: s.config.temporal.taskQueue,
      workflowId,
      args: [{ venue: 'paper', hourIso, tenantId: s.tenant.id }],
    });
    const result = await handle.result();
    expect(result).toMatchObject({ venue: 'paper', hourIso, accounts: 16, payments: 16 });
    expect(result.amountUsd).toBe(each.times(16).toFixed());
    for (const t of traders) {
      const ledger = await s.call('GET', `/api/v1/accounts/${t.accountId}/funding`, { token: t.token });
      expect(ledger.body.events.filter((e: { type: string }) => e.type === 'funding')).toMatchObject([
        { hour: hourIso, amountUsd: each.toFixed() },
      ]);
    }
    const chain = await runs(workflowId);
    expect(chain.length).toBeGreaterThanOrEqual(3);
    await expectChain(workflowId, chain);
    await saveChain(handle, chain, 'funding-history-bound');
  });

  describe('prop firm', () => {
    let op: string;
    let firm: TestFirm;

    beforeAll(async () => {
      op = (await s.operator(['firm:operate', 'prop:manage'])).token;
      // The second template passes with one profitable trade (a 1 % target, one trading day).
      const passable = { ...STARTER_TERMS, name: 'Quick 10k', profitTargetPct: '0.01', minTradingDays: 1 };
      firm = await draftFirm(s, { token: op, rpcUrl, name: 'Bounded Capital', templates: [STARTER_TERMS, passable] });
      firm = await goLive(s, firm, { token: op });
    });

    /** A trader's new challenge of template `i`, not paid. */
    async function challengeBought(i: number) {
      const t = await s.trader();
      const bought = await s.call('POST', '/api/v1/prop/challenges', {
        token: t.token,
        body: { templateId: firm.templateIds[i] },
      });
      expect(bought.status, JSON.stringify(bought.body)).toBe(201);
      expect(bought.body).toMatchObject({ status: 'pending_payment' });
      const propAccountId: string = bought.body.propAccountId;
      const view = () => s.call('GET', `/api/v1/prop/challenges/${propAccountId}`, { token: t.token });
      /** Pays the deposit on-chain from a fresh key and waits for the challenge to see it. */
      const pay = async () => {
        const payer = await fundedKey(rpcUrl);
        const instance = firm.instance as Address;
        await mintStablecoin(rpcUrl, firm.funderKey, firm.stablecoin, addr(payer), usdToUnits('100'));
        await approveStablecoin(rpcUrl, payer, firm.stablecoin, instance, usdToUnits('100'));
        await depositChallenge(rpcUrl, payer, instance, bought.body.deposit.propAccountRef as Hex, usdToUnits('100'));
        return waitFor(view, (r) => r.body.status === 'active', 30_000);
      };
      return { t, propAccountId, view, pay };
    }

    it('a live firm’s deployment takes pause and live across three runs, each answered with the step it made, one of them sent as a run drains', async () => {
      const workflowId = firmDeployWorkflowId(firm.firmId);
      const handle = s.temporal.workflow.getHandle(workflowId);
      let step: 'live' | 'paused' = 'live';
      /** The operator's next transition (pause a live firm, take a paused one live), answered with the step it made. */
      const transition = async () => {
        const [path, next]: ['pause' | 'live', 'paused' | 'live'] =
          step === 'live' ? ['pause', 'paused'] : ['live', 'live'];
        const res = await s.call('POST', `/api/v1/firms/${firm.firmId}/${path}`, { token: op });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.body).toMatchObject({ step: next, instanceAddress: firm.instance });
        step = next;
      };
      for (let i = 0; i < 40 && ((await runs(workflowId)).length < 3 || step !== 'live'); i++) {
        await transition();
        const run = await handle.describe();
        if (run.historyLength < BOUND) continue;
        // The run has reached its bound and waits for a workflow task with no transition in hand: one sent now is
        // answered all the same; then the operator waits for the new run (transitions back to back would keep one
        // in hand, and each would hold the run a little longer).
        await transition();
        await waitFor(
          () => handle.describe(),
          (d) => d.runId !== run.runId,
          15_000,
          20,
        );
      }
      const chain = await runs(workflowId);
      expect(chain.length).toBeGreaterThanOrEqual(3);
      await expectChain(workflowId, chain);
      const shown = await s.call('GET', `/api/v1/firms/${firm.firmId}/deployment`, { token: op });
      expect(shown.body).toMatchObject({ step: 'live', instanceAddress: firm.instance });
      // The step the last run carried is refused as a target: the validator sees the carried status.
      const again = await s.call('POST', `/api/v1/firms/${firm.firmId}/live`, { token: op });
      expect(again).toMatchObject({ status: 409, body: { error: 'invalid_state' } });
      await saveChain(handle, chain, 'firm-deploy-history-bound', chain.at(-2));
    });

    it('a challenge awaiting its deposit continues as new until it is paid, then is active', async () => {
      const c = await challengeBought(0);
      const workflowId = challengeWorkflowId(c.propAccountId);
      await atLeastRuns(workflowId, 3);
      expect((await c.view()).body).toMatchObject({ status: 'pending_payment', depositTxHash: null });
      const active = await c.pay();
      expect(active.body.depositTxHash).toMatch(/^0x[0-9a-f]{64}$/);
      const chain = await runs(workflowId);
      expect(chain.length).toBeGreaterThanOrEqual(3);
      await expectChain(workflowId, chain);
      await saveChain(s.temporal.workflow.getHandle(workflowId), chain, 'challenge-history-bound', chain[1]);
    });

    it('a requested payout follows the Safe across three runs, and the operator’s cancel reaches the current one', async () => {
      const c = await challengeBought(1);
      const active = await c.pay();
      const btc = await recordedTick('BTC.PAPER', 0.5);
      await publishMark(s.orm, { ...btc, ts: Date.now() });
      await buyBtcFilled(s, c.t.token, active.body.accountId, '0.1', 5);
      await publish(s.orm, movedTick(btc, '1.03')); // +3 % on 0.1 BTC: well above the 1 % target
      expect((await waitFor(c.view, (r) => r.body.status !== 'active', 20_000)).body.status).toBe('passed');
      await publishMark(s.orm, { ...btc, ts: Date.now() });

      const requested = await s.call('POST', '/api/v1/prop/payouts', {
        token: c.t.token,
        body: { propAccountId: c.propAccountId, amountUsd: '10', toAddress: addr(generatePrivateKey()) },
      });
      expect(requested.status, JSON.stringify(requested.body)).toBe(201);
      const payoutId: string = requested.body.payoutId;
      const workflowId = payoutWorkflowId(payoutId);
      const path = `/api/v1/firms/${firm.firmId}/payouts/${payoutId}`;
      const built = await waitFor(
        () => s.call('GET', path, { token: op }),
        (r) => !!r.body.safeTxHash,
      );
      await atLeastRuns(workflowId, 3);
      // The status the runs carried: the same Safe transaction to sign, still awaiting the owners.
      const pending = await s.call('GET', path, { token: op });
      expect(pending.body).toMatchObject({ status: 'requested', safeTxHash: built.body.safeTxHash });
      const canceled = await s.call('POST', `${path}/cancel`, { token: op, body: { reason: 'asked twice' } });
      expect(canceled.status, JSON.stringify(canceled.body)).toBe(200);
      expect(canceled.body).toMatchObject({ payoutId, status: 'canceled', cancelReason: 'asked twice' });
      const handle = s.temporal.workflow.getHandle(workflowId);
      expect(await handle.result()).toMatchObject({ status: 'canceled' });
      const chain = await runs(workflowId);
      expect((await handle.describe()).runId).toBe(chain.at(-1)!.runId);
      await expectChain(workflowId, chain);
      await saveChain(handle, chain, 'payout-history-bound-canceled');
    });
  });
});

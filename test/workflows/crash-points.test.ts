/**
 * Durability at chosen points (issue 3): a worker process kills itself (FAULT_CRASH) before a
 * paper order's record-and-dispatch, after it before Temporal hears of it, between the legs of a flatten, and while
 * a bracket is staged; a new worker process finishes the job. Nothing is lost and nothing is
 * dispatched twice: every intent has exactly the fills it should.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { Fill, OrderIntent } from '../../db/entities.js';
import { scoped } from '../../db/orm.js';
import { batchWorkflowId } from '../../modules/oms/workflows/batch.definitions.js';
import { bracketWorkflowId } from '../../modules/oms/workflows/bracket.definitions.js';
import { startStack, type Stack } from '../support/stack.js';
import { extremeTicks, publish } from '../support/marks.js';
import { waitFor } from '../support/wait.js';
import { exited, spawnWorker } from '../support/worker-process.js';

describe('worker crashes at chosen points', () => {
  let s: Stack;
  let worker: ChildProcess | undefined;
  let ticks: Awaited<ReturnType<typeof extremeTicks>>;
  /** Publishes ETH's and SOL's marks now: each test starts with marks younger than MARK_MAX_AGE_MS (60 s), however long the ones before took. */
  const freshMarks = async () => {
    await publish(s.orm, ticks.high);
    await publish(s.orm, (await extremeTicks('SOL.PAPER')).high);
  };
  beforeAll(async () => {
    // A dead worker's workflow task goes to the next worker after 2 s instead of Temporal's 10 s (workflow-task-timeout.ts).
    s = await startStack({ worker: false, env: { WORKFLOW_TASK_TIMEOUT_MS: '2000' } });
    ticks = await extremeTicks('ETH.PAPER');
  });
  beforeEach(freshMarks);
  afterAll(async () => {
    worker?.kill('SIGKILL');
    await s?.stop();
  });

  const fillsOf = (intentId: string) => scoped(s.orm, s.tenant.id).count(Fill, { intentId });
  const intent = (token: string, id: string) => s.call('GET', `/api/v1/oms/intents/${id}`, { token });
  const freshWorker = async () => {
    if (worker) await exited(worker);
    worker = spawnWorker(s);
  };
  const crashingWorker = (spec: string) => {
    worker = spawnWorker(s, { FAULT_CRASH: spec });
    return worker;
  };
  const market = (token: string, side: string, qty: string) =>
    s.call('POST', '/api/v1/oms/intents', {
      token,
      body: { venue: 'paper', symbol: 'ETH.PAPER', side, type: 'market', qty },
    });

  /**
   * Composes a paper market order while a worker that dies at `crash` runs it. The record, risk check and dispatch are
   * one local activity in the compose's workflow task (patch paper-record-and-dispatch), so the answer leaves with
   * that task: the first call answers once the next worker has finished it (201) or after the api's wait (503); a
   * retry with the same Idempotency-Key answers 201. Answers the intent as PostgreSQL held it when the worker had died
   * (undefined: nothing recorded) and the intent id the retry answered.
   */
  const composeThroughCrash = async (
    t: { token: string; accountId: string | null },
    crash: string,
    side: string,
    qty: string,
  ) => {
    const dying = crashingWorker(crash);
    const headers = { 'idempotency-key': `crash-${crash}-${t.accountId}` };
    const body = { venue: 'paper', symbol: 'ETH.PAPER', side, type: 'market', qty };
    const compose = () => s.call('POST', '/api/v1/oms/intents', { token: t.token, body, headers });
    const first = compose();
    await exited(dying);
    const [atCrash] = await scoped(s.orm, s.tenant.id).find(OrderIntent, { accountId: t.accountId! });
    await freshWorker();
    expect([201, 503]).toContain((await first).status);
    const retried = await compose();
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    if (atCrash) expect(retried.body.intentId).toBe(atCrash.id);
    return { atCrash, intentId: retried.body.intentId as string };
  };

  it('dies before the record, risk check and dispatch: compose’s retry answers the intent, and the next worker records and dispatches it once', async () => {
    const t = await s.trader();
    const { atCrash, intentId } = await composeThroughCrash(t, 'before:recordAndDispatchPaper:1', 'buy', '0.3');
    expect(atCrash).toBeUndefined(); // one transaction: nothing of it was committed before the crash
    const described = await s.temporal.workflow.getHandle(`intent-${intentId}`).describe();
    expect(Number(described.raw.executionConfig?.defaultWorkflowTaskTimeout?.seconds)).toBe(2);
    await waitFor(
      () => intent(t.token, intentId),
      (x) => x.body.state === 'filled',
      40_000,
    );
    expect(await fillsOf(intentId)).toBe(1);
    const intents = await scoped(s.orm, s.tenant.id).count(OrderIntent, { accountId: t.accountId! });
    expect(intents).toBe(1);
  });

  it('dies after the fill is recorded but before Temporal hears of it: the retry fills nothing more', async () => {
    worker?.kill('SIGTERM');
    const t = await s.trader();
    const { atCrash } = await composeThroughCrash(t, 'after:recordAndDispatchPaper:1', 'sell', '0.4');
    expect(atCrash?.state).toBe('filled'); // committed before the crash
    const handle = s.temporal.workflow.getHandle(`intent-${atCrash.id}`);
    expect(await handle.result()).toMatchObject({ state: 'filled' });
    expect(await fillsOf(atCrash.id)).toBe(1);
    const positions = (await s.call('GET', `/api/v1/accounts/${t.accountId}/positions`, { token: t.token })).body
      .positions;
    expect(positions.map((p: { qty: string }) => p.qty)).toEqual(['-0.4']);
  });

  it('dies between the legs of a flatten: the batch completes, each leg dispatched once', async () => {
    worker?.kill('SIGTERM');
    await freshWorker();
    const t = await s.trader();
    const eth = await market(t.token, 'buy', '0.5');
    const sol = await s.call('POST', '/api/v1/oms/intents', {
      token: t.token,
      body: { venue: 'paper', symbol: 'SOL.PAPER', side: 'sell', type: 'market', qty: '3' },
    });
    for (const c of [eth, sol])
      await waitFor(
        () => intent(t.token, c.body.intentId),
        (x) => x.body.state === 'filled',
        30_000,
      );
    worker!.kill('SIGTERM');
    await exited(worker!);

    const dying = crashingWorker('after:recordAndDispatchPaper:1'); // the first of two close legs
    const res = await s.call('POST', '/api/v1/oms/flatten', { token: t.token, body: {} });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.legs.map((l: { action: string; symbol: string }) => `${l.action} ${l.symbol}`)).toEqual([
      'close ETH.PAPER',
      'close SOL.PAPER',
    ]);
    await exited(dying);
    await freshWorker();
    const outcome = await s.temporal.workflow.getHandle(batchWorkflowId(res.body.batchId)).result();
    expect(outcome.legs.map((l: { state: string }) => l.state)).toEqual(['filled', 'filled']);
    for (const leg of res.body.legs) expect(await fillsOf(leg.intentId), `${leg.symbol} close leg`).toBe(1);
    expect(
      (await s.call('GET', `/api/v1/accounts/${t.accountId}/positions`, { token: t.token })).body.positions,
    ).toEqual([]);
  });

  it('dies while a bracket is staged: the parent fills meanwhile, the next worker arms the bracket once', async () => {
    const t = await s.trader();
    const entry = ticks.low.mark.toDecimalPlaces(1, 2);
    const parent = await s.call('POST', '/api/v1/oms/intents', {
      token: t.token,
      body: { venue: 'paper', symbol: 'ETH.PAPER', side: 'buy', type: 'limit', price: entry.toFixed(), qty: '0.5' },
    });
    await waitFor(
      () => intent(t.token, parent.body.intentId),
      (x) => x.body.orderStatus === 'open',
      30_000,
    );
    const att = await s.call('POST', '/api/v1/oms/brackets/attach', {
      token: t.token,
      body: { parentIntentId: parent.body.intentId, slPrice: Number(entry.minus(100).toFixed()) },
    });
    expect(att.body.staged).toBe(true);
    worker!.kill('SIGKILL');
    await exited(worker!);
    await publish(s.orm, ticks.low); // the parent crosses while no worker runs
    worker = spawnWorker(s);
    const armed = await waitFor(
      () => s.call('GET', `/api/v1/oms/brackets/${att.body.bracketId}`, { token: t.token }),
      (x) => x.body.state === 'armed' && x.body.legs.sl !== null,
      45_000,
    );
    await waitFor(
      () => intent(t.token, armed.body.legs.sl),
      (x) => x.body.orderStatus === 'open',
      30_000,
    );
    const legs = await scoped(s.orm, s.tenant.id).count(OrderIntent, {
      clientOrderId: `bracket-${att.body.bracketId}-sl`,
    });
    expect(legs).toBe(1);
    expect(await fillsOf(parent.body.intentId)).toBe(1);
    await s.call('POST', '/api/v1/oms/cancel', {
      token: t.token,
      body: { venueOrderId: `paper-${armed.body.legs.sl}` },
    });
    await s.temporal.workflow.getHandle(bracketWorkflowId(att.body.bracketId)).result();
    await publish(s.orm, ticks.high);
  });
});

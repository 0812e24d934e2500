/**
 * Funding payments (docs/api.md §4.3 funding ledger, §4.7 `/reports/funding`): the hourly run pays
 * −(size × mark × recorded rate) on open paper perps, once per hour however often it runs; a flat
 * account pays nothing; each payment adds a `funding` point to the state history; the Temporal
 * Schedule is created idempotently and starts runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack.js';
import { publish, recordedTick } from '../support/marks.js';
import { waitFor } from '../support/wait.js';
import { maybeSaveHistory } from '../support/histories.js';
import { Decimal } from '../../domain/decimal.js';
import { rateForHour } from '../../domain/market/funding.js';
import { loadFundingRates } from '../../modules/market/feeds/funding-rates.js';
import { fundingWorkflowId } from '../../modules/accounts/workflows/funding.definitions.js';
import { fundingWorkflow } from '../../modules/accounts/workflows/funding.js';
import { ensureFundingSchedule, ensureSchedules } from '../../worker/schedules.js';

describe('funding payments', () => {
  let s: Stack;
  let long: Awaited<ReturnType<Stack['trader']>>;
  let flat: Awaited<ReturnType<Stack['trader']>>;
  const hourIso = '2026-11-22T10:00:00.000Z';
  const tick = recordedTick('ETH.PAPER', 0.5);

  beforeAll(async () => {
    s = await startStack();
    await publish(s.orm, await tick);
    long = await s.trader();
    flat = await s.trader();
    const r = await s.call('POST', '/api/v1/oms/intents', {
      token: long.token,
      body: { venue: 'paper', symbol: 'ETH.PAPER', side: 'buy', type: 'market', qty: '2' },
    });
    await waitFor(
      () => s.call('GET', `/api/v1/oms/intents/${r.body.intentId}`, { token: long.token }),
      (x) => x.body.state === 'filled',
    );
    await publish(s.orm, await tick); // a fresh mark for the payment
  });
  afterAll(async () => s?.stop());

  const run = (id: string) =>
    s.temporal.workflow.execute(fundingWorkflow, {
      taskQueue: s.config.temporal.taskQueue,
      workflowId: id,
      args: [{ venue: 'paper', hourIso, tenantId: s.tenant.id }],
    });

  it('pays −(size × mark × rate) on an open long, once per hour, and lists it in the ledger and the report', async () => {
    const before = await s.call('GET', `/api/v1/accounts/${long.accountId}/state`, { token: long.token });
    const rate = rateForHour(await loadFundingRates('ETH'), Date.parse(hourIso)).rate;
    const expected = new Decimal(2)
      .times((await tick).mark)
      .times(rate)
      .negated();

    const handle = await s.temporal.workflow.start(fundingWorkflow, {
      taskQueue: s.config.temporal.taskQueue,
      workflowId: fundingWorkflowId('paper', hourIso) + `-${s.tenant.id}`,
      args: [{ venue: 'paper', hourIso, tenantId: s.tenant.id }],
    });
    const result = await handle.result();
    await maybeSaveHistory(handle, 'funding-paid');
    expect(result).toMatchObject({ hourIso, accounts: 1, payments: 1, amountUsd: expected.toFixed() });
    expect(result.rates['ETH.PAPER'].rate).toBe(rate.toFixed());

    const ledger = await s.call('GET', `/api/v1/accounts/${long.accountId}/funding`, { token: long.token });
    const payment = ledger.body.events.find((e: { type: string }) => e.type === 'funding');
    expect(payment).toMatchObject({
      symbol: 'ETH.PAPER',
      hour: hourIso,
      positionQty: '2',
      rate: rate.toFixed(),
      amountUsd: expected.toFixed(),
    });

    const report = await s.call('GET', `/api/v1/reports/funding?accountId=${long.accountId}`, { token: long.token });
    expect(report.status).toBe(200);
    expect(report.body.funding).toHaveLength(1);
    expect(report.body.totalUsd).toBe(expected.toFixed());

    const after = await s.call('GET', `/api/v1/accounts/${long.accountId}/state`, { token: long.token });
    const cash = (b: any) => new Decimal(b.perVenue.find((v: { venue: string }) => v.venue === 'paper').balanceUsd);
    expect(cash(after.body).minus(cash(before.body)).toFixed()).toBe(expected.toFixed());

    // the state history has the payment's point, with the balance after it
    const history = async () =>
      (await s.call('GET', `/api/v1/accounts/${long.accountId}/state/history`, { token: long.token })).body.points;
    const points = await history();
    expect(points.at(-1)).toMatchObject({
      reason: 'funding',
      hour: hourIso,
      balanceUsd: cash(after.body).toFixed(),
      openPositions: 1,
    });

    // the same hour again (another run, e.g. a manual rerun): nothing new is paid, no new point
    const again = await run(`${fundingWorkflowId('paper', hourIso)}-${s.tenant.id}-rerun`);
    expect(again).toMatchObject({ accounts: 1, payments: 0, amountUsd: '0' });
    expect(
      cash((await s.call('GET', `/api/v1/accounts/${long.accountId}/state`, { token: long.token })).body).toFixed(),
    ).toBe(cash(after.body).toFixed());
    expect(await history()).toEqual(points);
    const ledgerAgain = await s.call('GET', `/api/v1/accounts/${long.accountId}/funding`, { token: long.token });
    expect(ledgerAgain.body.events.filter((e: { type: string }) => e.type === 'funding')).toHaveLength(1);
  });

  it('a flat account pays nothing and has no payment in its ledger', async () => {
    const res = await s.call('GET', `/api/v1/accounts/${flat.accountId}/funding`, { token: flat.token });
    expect(res.body.events.filter((e: { type: string }) => e.type === 'funding')).toEqual([]);
    expect((await s.call('GET', `/api/v1/reports/funding`, { token: flat.token })).body).toEqual({
      funding: [],
      totalUsd: '0',
    });
    const history = await s.call('GET', `/api/v1/accounts/${flat.accountId}/state/history`, { token: flat.token });
    expect(history.body.points.map((p: { reason: string }) => p.reason)).toEqual(['deposit']);
  });

  it('names a run after its venue and hour as the Schedule does (RFC 3339, no milliseconds)', () => {
    expect(fundingWorkflowId('paper', hourIso)).toBe('funding-paper-2026-11-22T10:00:00Z');
    expect(fundingWorkflowId('paper', '2026-11-22T10:00:00Z')).toBe('funding-paper-2026-11-22T10:00:00Z');
  });

  it('ensureSchedules creates the hourly funding schedule of each venue once', async () => {
    // A worker process started by another test file (worker/main.ts ensures the schedules) may have made it on its own task queue.
    await s.temporal.schedule
      .getHandle('funding-paper')
      .delete()
      .catch(() => undefined);
    const first = await ensureSchedules(s.temporal, s.config.temporal.taskQueue);
    try {
      expect(first).toEqual(['funding-paper']);
      expect(await ensureSchedules(s.temporal, s.config.temporal.taskQueue)).toEqual(first); // idempotent
      const desc = await s.temporal.schedule.getHandle('funding-paper').describe();
      expect(desc.action).toMatchObject({
        type: 'startWorkflow',
        workflowType: 'fundingWorkflow',
        workflowId: 'funding-paper',
        taskQueue: s.config.temporal.taskQueue,
      });
      expect(desc.policies).toMatchObject({ overlap: 'SKIP', catchupWindow: 3_600_000 });
      expect(desc.spec.calendars?.[0]).toMatchObject({ minute: [{ start: 0, end: 0, step: 1 }] });
    } finally {
      await s.temporal.schedule.getHandle('funding-paper').delete(); // it would pay every tenant of the test database hourly
    }
  });

  it('creates the hourly schedule once, and a triggered run pays the current hour', async () => {
    const scheduleId = `funding-test-${s.tenant.id}`;
    const opts = { taskQueue: s.config.temporal.taskQueue, scheduleId, tenantId: s.tenant.id };
    expect(await ensureFundingSchedule(s.temporal, opts)).toBe(scheduleId);
    expect(await ensureFundingSchedule(s.temporal, opts)).toBe(scheduleId); // idempotent
    const handle = s.temporal.schedule.getHandle(scheduleId);
    try {
      const desc = await handle.describe();
      expect(desc.spec.calendars?.[0]).toMatchObject({ minute: [{ start: 0, end: 0, step: 1 }] });
      await handle.trigger();
      const run = await waitFor(
        () => handle.describe(),
        (d) => d.info.recentActions.length > 0 && !d.info.runningActions.length,
        20_000,
      );
      const id = run.info.recentActions[0].action.workflow.workflowId;
      expect(id.startsWith(`${scheduleId}-`)).toBe(true);
      const result = await s.temporal.workflow.getHandle<typeof fundingWorkflow>(id).result();
      expect(Date.parse(result.hourIso) % 3_600_000).toBe(0);
      expect(Date.now() - Date.parse(result.hourIso)).toBeLessThan(2 * 3_600_000);
      expect(result.accounts).toBe(1);
    } finally {
      await handle.delete();
    }
  });
});

/**
 * A chase `chase-<intentId>` (docs/api.md §4.4): while the limit order is working and not filled, look at
 * the touch every `intervalMs`; when the touch moved away from the order's price, cancel-replace
 * the order at the touch. Stops when an order fills, ends otherwise, or after `maxAttempts`. Since the patch
 * `chase-history-bound` it continues as new with its view (`resume`) once its history reaches its bound
 * (`historyBound`, default the worker's `WORKFLOW_HISTORY_BOUND`), so a chase of an order that rests for weeks
 * keeps a bounded history.
 */
import { continueAsNew, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import { HistoryBound, readyToContinueAsNew } from '../../../workflows/continue-as-new.js';
import type { Activities } from '../../../activities/index.js';
import { chaseQuery, chaseUpdate, type ChaseInput, type ChaseView } from './chase.definitions.js';

const { chaseStep, replaceWorkingOrder } = proxyActivities<Activities>({
  startToCloseTimeout: '10 seconds', // short: a crashed worker's activity is retried elsewhere after this
  retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds', backoffCoefficient: 2 },
});

/** Patch id of continuing as new once the history reaches its bound (issue 14); before it a chase kept one growing history. */
const BOUND_PATCH = 'chase-history-bound';

export async function chaseWorkflow(input: ChaseInput): Promise<ChaseView> {
  const view: ChaseView = input.resume ?? {
    chaseId: input.chaseId,
    currentIntentId: input.intentId,
    attempts: 0,
    maxAttempts: input.maxAttempts,
    state: 'chasing',
  };
  let bound: HistoryBound | undefined;
  setHandler(chaseUpdate, () => view);
  setHandler(chaseQuery, () => view);

  for (;;) {
    const step = await chaseStep(view.currentIntentId);
    if (step.state === 'filled') return { ...view, state: 'filled' };
    if (!step.working) return { ...view, state: 'ended' };
    if (step.touch && step.touch !== step.price) {
      if (view.attempts >= input.maxAttempts) return { ...view, state: 'exhausted' };
      view.attempts++;
      const next = `int_${input.chaseId.replace(/^chs_/, '')}_${view.attempts}`;
      const replaced = await replaceWorkingOrder(view.currentIntentId, next, step.touch);
      if (replaced) view.currentIntentId = next;
    }
    await sleep(input.intervalMs);
    bound ??= new HistoryBound(BOUND_PATCH, input.historyBound);
    if (bound.reached && (await bound.check())) {
      await readyToContinueAsNew();
      return continueAsNew<typeof chaseWorkflow>({ ...input, ...bound.carried(), resume: view });
    }
  }
}

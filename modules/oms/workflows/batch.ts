/**
 * Flatten and reverse as one batch workflow `batch-<batchId>` (docs/api.md §3.1, §4.4, docs/architecture.md).
 * The plan (cancels, then closes, then opens) answers the `plan` Update; then the legs run in
 * order, each released only after its predecessor is done: a cancel leg cancels through the
 * working order's own workflow, a close or open leg is a child intent workflow `intent-<id>`.
 * A close that does not fill stops the batch before the opposite side opens. The close and open
 * legs are recorded when planned, so a self-signing credential sees them all, `intent_pending`.
 */
import { executeChild, patched, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../../../activities/index.js';
import { searchAttributes } from '../../../workflows/shared.definitions.js';
import { intentWorkflowId } from './intent.definitions.js';
import { planUpdate, type BatchInput, type BatchOutcome, type BatchPlan } from './batch.definitions.js';
import { intentWorkflow } from './intent.js';

const { planBatch, recordIntent, cancelWorkingOrder } = proxyActivities<Activities>({
  startToCloseTimeout: '10 seconds', // short: a crashed worker's activity is retried elsewhere after this
  retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds', backoffCoefficient: 2 },
});

export async function batchWorkflow(input: BatchInput): Promise<BatchOutcome> {
  let planned: Promise<BatchPlan> | undefined;
  const plan = () =>
    (planned ??= planBatch(input).then(async (p) => {
      // Legs exist as intents from the start (a self-signing credential signs them in order).
      if (patched('record-legs-upfront')) for (const leg of p.legs) if (leg.intent) await recordIntent(leg.intent);
      return p;
    }));
  setHandler(planUpdate, plan);

  const { legs } = await plan();
  const done: BatchOutcome['legs'] = [];
  for (const leg of legs) {
    if (leg.action === 'cancel') {
      done.push({
        n: leg.n,
        intentId: leg.intentId,
        action: leg.action,
        state: await cancelWorkingOrder(leg.intentId),
      });
      continue;
    }
    const outcome = await executeChild(intentWorkflow, {
      workflowId: intentWorkflowId(leg.intentId),
      args: [leg.intent!],
      typedSearchAttributes: searchAttributes(leg.intent!, 'signed_pending_dispatch'),
    });
    done.push({ n: leg.n, intentId: leg.intentId, action: leg.action, state: outcome.state });
    if (outcome.state !== 'filled') break;
  }
  return { batchId: input.batchId, legs: done };
}

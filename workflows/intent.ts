/**
 * The order intent workflow `intent-<intentId>` (spec §3.1, DESIGN.md). Compose arrives as an
 * update-with-start and returns as soon as the intent is recorded (early return); then the risk
 * check, dispatch to the venue, and, while a working order rests, a fill attempt on each mark
 * crossing. Every state is written to PostgreSQL by activities; the workflow only sequences them.
 */
import { condition, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { IntentState, IntentView } from '../domain/oms/intent.js';
import { SA, composeUpdate, intentStateQuery, markCrossedSignal, type IntentOutcome, type IntentWorkflowInput } from './definitions.js';

const { recordIntent, checkRisk, dispatchPaper, fillRestingPaper } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds', backoffCoefficient: 2 },
});

export async function intentWorkflow(input: IntentWorkflowInput): Promise<IntentOutcome> {
  const { intentId } = input;
  let state: IntentState = 'signed_pending_dispatch';
  let recorded: Promise<IntentView> | undefined;
  let crossings = 0;
  const record = () => (recorded ??= recordIntent(input));
  setHandler(composeUpdate, record);
  setHandler(intentStateQuery, () => state);
  setHandler(markCrossedSignal, () => void crossings++);
  const moveTo = (next: IntentState) => {
    state = next;
    upsertSearchAttributes([{ key: SA.intentState, value: next }]);
  };

  await record();
  const risk = await checkRisk(intentId);
  if (!risk.ok) {
    moveTo('rejected');
    return { intentId, state, reason: risk.reason };
  }

  let outcome = await dispatchPaper(intentId);
  moveTo(outcome.state);
  while (outcome.resting) {
    await condition(() => crossings > 0);
    crossings = 0;
    outcome = await fillRestingPaper(intentId);
    if (outcome.state !== state) moveTo(outcome.state);
  }
  return { intentId, state, reason: outcome.reason };
}

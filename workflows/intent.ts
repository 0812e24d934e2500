/**
 * The order intent workflow `intent-<intentId>` (spec §3.1, DESIGN.md). Compose arrives as an
 * update-with-start and returns as soon as the intent is recorded (early return); then the risk
 * check, dispatch to the venue, and, while a working order rests, a fill attempt on each mark
 * crossing. Every state is written to PostgreSQL by activities; the workflow only sequences them.
 */
import { ApplicationFailure, ParentClosePolicy, allHandlersFinished, condition, proxyActivities, setHandler, startChild, upsertSearchAttributes } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { IntentState, IntentView } from '../domain/oms/intent.js';
import type { DispatchOutcome } from '../activities/types.js';
import { SA, cancelUpdate, composeUpdate, intentStateQuery, intentWorkflowId, markCrossedSignal, modifyUpdate, type IntentOutcome, type ModifyResult, type IntentWorkflowInput } from './definitions.js';

const { recordIntent, checkRisk, dispatchPaper, fillRestingPaper, cancelPaper } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds', backoffCoefficient: 2 },
});

export async function intentWorkflow(input: IntentWorkflowInput): Promise<IntentOutcome> {
  const { intentId } = input;
  let state: IntentState = 'signed_pending_dispatch';
  let recorded: Promise<IntentView> | undefined;
  let crossings = 0;
  let outcome: DispatchOutcome | undefined;
  let busy = false; // a fill attempt or a cancel is running; they take turns
  const record = () => (recorded ??= recordIntent(input));
  const invalid = (message: string) => ApplicationFailure.create({ type: 'invalid_state', message, nonRetryable: true });
  setHandler(composeUpdate, record);
  setHandler(intentStateQuery, () => state);
  setHandler(markCrossedSignal, () => void crossings++);
  /** Cancels the working order, taking turns with fill attempts. @throws invalid_state when none is working. */
  const cancelWorking = async () => {
    await condition(() => !busy);
    if (!outcome?.resting) throw invalid(`intent ${intentId} is ${state}: no working order`);
    busy = true;
    outcome = await cancelPaper(intentId).finally(() => (busy = false));
    if (outcome.state !== state) moveTo(outcome.state);
    if (outcome.state !== 'canceled') throw invalid(`intent ${intentId} is ${outcome.state}: no working order`);
    return outcome;
  };
  const mustBeWorking = () => {
    if (!outcome?.resting) throw invalid(`intent ${intentId} is ${state}: no working order`);
  };
  setHandler(cancelUpdate, async () => ({ intentId, venueOrderId: (await cancelWorking()).venueOrderId, state: 'canceled' as const }), { validator: mustBeWorking });
  setHandler(
    modifyUpdate,
    async (replacement: IntentWorkflowInput): Promise<ModifyResult> => {
      await cancelWorking();
      const intent = await recordIntent(replacement);
      await startChild(intentWorkflow, {
        workflowId: intentWorkflowId(replacement.intentId),
        args: [replacement],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        typedSearchAttributes: [
          { key: SA.tenantId, value: replacement.tenantId },
          { key: SA.accountId, value: replacement.accountId },
          { key: SA.venue, value: replacement.venue },
          { key: SA.intentState, value: 'signed_pending_dispatch' },
        ],
      });
      return { replacedIntentId: intentId, intent };
    },
    { validator: (_replacement: IntentWorkflowInput) => mustBeWorking() },
  );
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

  outcome = await dispatchPaper(intentId);
  moveTo(outcome.state);
  while (outcome.resting) {
    await condition(() => (crossings > 0 && !busy) || !outcome!.resting);
    if (!outcome.resting) break;
    crossings = 0;
    busy = true;
    outcome = await fillRestingPaper(intentId).finally(() => (busy = false));
    if (outcome.state !== state) moveTo(outcome.state);
  }
  await condition(allHandlersFinished);
  return { intentId, state, reason: outcome.reason };
}

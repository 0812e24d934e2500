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
import { SA, searchAttributes, cancelUpdate, composeUpdate, intentStateQuery, intentWorkflowId, markCrossedSignal, modifyUpdate, signResultUpdate, type IntentOutcome, type ModifyResult, type SignResult, type IntentWorkflowInput } from './definitions.js';

const { recordIntent, acceptSignature, checkRisk, dispatchPaper, fillRestingPaper, cancelPaper } = proxyActivities<Activities>({
  startToCloseTimeout: '10 seconds', // short: a crashed worker's activity is retried elsewhere after this
  retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds', backoffCoefficient: 2 },
});

export async function intentWorkflow(input: IntentWorkflowInput): Promise<IntentOutcome> {
  const { intentId } = input;
  let state: IntentState = input.signing === 'self' ? 'intent_pending' : 'signed_pending_dispatch';
  let signing = false; // a sign-result is being verified
  let recorded: Promise<IntentView> | undefined;
  let crossings = 0;
  let outcome: DispatchOutcome | undefined;
  let rejectReason: string | undefined;
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
        typedSearchAttributes: searchAttributes(replacement, 'signed_pending_dispatch'),
      });
      return { replacedIntentId: intentId, intent };
    },
    { validator: (_replacement: IntentWorkflowInput) => mustBeWorking() },
  );
  setHandler(
    signResultUpdate,
    async ({ signature }: { signature: string }): Promise<SignResult> => {
      signing = true;
      const verdict = await acceptSignature(intentId, signature).finally(() => (signing = false));
      if (!verdict.ok) throw ApplicationFailure.create({ type: 'invalid_signature', message: 'the signature does not recover the signer registered on this credential', nonRetryable: true });
      moveTo('signed_pending_dispatch');
      await condition(() => outcome !== undefined || state === 'rejected');
      if (!outcome || state === 'rejected') return { ok: false, intentId, error: outcome?.reason ?? rejectReason ?? 'rejected', detail: `intent ${intentId} was not dispatched` };
      const inlineFill = outcome.filledQty && outcome.filledQty !== '0' && outcome.avgFillPrice ? { qty: outcome.filledQty, avgPrice: outcome.avgFillPrice } : undefined;
      return { ok: true, intentId, venueOrderId: outcome.venueOrderId, resting: outcome.resting, ...(inlineFill ? { inlineFill } : {}) };
    },
    {
      validator: (_payload: { signature: string }) => {
        if (state !== 'intent_pending' || signing) throw invalid(`intent ${intentId} is ${state}: only intent_pending can be signed`);
      },
    },
  );
  const moveTo = (next: IntentState) => {
    state = next;
    upsertSearchAttributes([{ key: SA.intentState, value: next }]);
  };

  await record();
  // Only self-signed intents wait here: awaiting unconditionally would reorder old histories' commands.
  if (state === 'intent_pending') await condition(() => state !== 'intent_pending');
  const risk = await checkRisk(intentId);
  if (!risk.ok) {
    rejectReason = risk.reason;
    moveTo('rejected');
    await condition(allHandlersFinished);
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

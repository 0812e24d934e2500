/**
 * The order intent workflow `intent-<intentId>` (spec §3.1, DESIGN.md). Compose arrives as an
 * update-with-start and returns as soon as the intent is recorded (early return). A self-signed
 * intent then waits for its signature; then the risk check, dispatch to the venue, and, while a
 * working order rests, a fill attempt on each mark crossing. Cancel, modify and sign-result are
 * Updates (workflows/intent-run.ts). Activities write every state to PostgreSQL.
 */
import { allHandlersFinished, condition } from '@temporalio/workflow';
import type { IntentOutcome, IntentWorkflowInput } from './definitions.js';
import { IntentRun, activities } from './intent-run.js';

const { checkRisk, dispatchPaper, fillRestingPaper } = activities;

export async function intentWorkflow(input: IntentWorkflowInput): Promise<IntentOutcome> {
  const run = new IntentRun(input);
  run.install(intentWorkflow);
  const { intentId } = input;

  await run.record();
  // Only self-signed intents wait here: awaiting unconditionally would reorder old histories' commands.
  if (run.state === 'intent_pending') await condition(() => run.state !== 'intent_pending');

  const risk = await checkRisk(intentId);
  if (!risk.ok) {
    run.rejectReason = risk.reason;
    run.moveTo('rejected');
    await condition(allHandlersFinished);
    return { intentId, state: run.state, reason: risk.reason };
  }

  let outcome = (run.outcome = await dispatchPaper(intentId));
  run.moveTo(outcome.state);
  while (outcome.resting) {
    await condition(() => (run.crossings > 0 && !run.busy) || !run.outcome!.resting);
    if (!run.outcome!.resting) break;
    run.crossings = 0;
    run.busy = true;
    outcome = run.outcome = await fillRestingPaper(intentId).finally(() => (run.busy = false));
    if (outcome.state !== run.state) run.moveTo(outcome.state);
  }
  await condition(allHandlersFinished);
  return { intentId, state: run.state, reason: run.outcome!.reason };
}

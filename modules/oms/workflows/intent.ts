/**
 * The order intent workflow `intent-<intentId>` (docs/api.md §3.1, docs/architecture.md). Compose arrives as an
 * update-with-start and returns as soon as the intent is recorded (early return). A self-signed
 * intent then waits for its signature; then the risk check, dispatch to the venue, and, while a
 * working order rests, a fill attempt on each mark crossing. Cancel, modify and sign-result are
 * Updates (modules/oms/workflows/intent-run.ts). Activities write every state to PostgreSQL.
 * A routed venue's intent (hyperliquid, aster, polymarket, kalshi; behind the patch
 * `routed-venues`) is dispatched to the exchange and followed by reading it back from there. Since
 * the patch `local-order-steps`, the intent is recorded by a local activity, one activity checks
 * risk and dispatches to the paper engine, and its fills on a mark crossing and cancels are local.
 */
import { allHandlersFinished, condition } from '@temporalio/workflow';
import type { IntentOutcome, IntentWorkflowInput } from './intent.definitions.js';
import { IntentRun, activities } from './intent-run.js';

const { dispatchRouted, syncRouted } = activities;

/** The verdict of an intent whose risk is checked by its dispatch (patch `routed-dispatch-checks`). */
const PASSED = { ok: true } as const;

/** A routed working order is read back from its venue at most this often (ms), backing off to {@link SLOWEST_POLL_MS} while nothing changes. */
const SLOWEST_POLL_MS = 60_000;

/**
 * Follows a routed working order until it stops resting: reads it back from the venue on a
 * backing-off timer, or at once when the mark crosses its price (the trigger watcher's signal).
 */
async function followRouted(run: IntentRun): Promise<void> {
  let wait = run.input.pollMs ?? 1_000;
  while (run.outcome!.resting) {
    const woken = await condition(() => run.crossings > 0 || !run.outcome!.resting, wait);
    await condition(() => !run.busy);
    if (!run.outcome!.resting) return;
    run.crossings = 0;
    run.busy = true;
    const before = run.outcome!;
    const outcome = (run.outcome = await syncRouted(run.intentId).finally(() => (run.busy = false)));
    if (outcome.state !== run.state) run.moveTo(outcome.state);
    const changed = outcome.filledQty !== before.filledQty || outcome.state !== before.state;
    wait = woken || changed ? (run.input.pollMs ?? 1_000) : Math.min(wait * 2, SLOWEST_POLL_MS);
  }
}

export async function intentWorkflow(input: IntentWorkflowInput): Promise<IntentOutcome> {
  const run = new IntentRun(input);
  run.install(intentWorkflow);
  const { intentId } = input;

  await run.record();
  // Only self-signed intents wait here: awaiting unconditionally would reorder old histories' commands.
  if (run.state === 'intent_pending') await condition(() => run.state !== 'intent_pending');

  // No await when nothing is checked here: dispatch is then scheduled in the same tick as before the patch.
  const risk = run.checksAtDispatch ? PASSED : run.routed ? await run.checkRisk() : await run.checkAndDispatchPaper();
  if (!risk.ok) {
    run.rejectReason = risk.reason;
    run.moveTo('rejected');
    await condition(allHandlersFinished);
    return { intentId, state: run.state, reason: risk.reason };
  }

  if (run.routed) {
    run.moveTo((run.outcome = await dispatchRouted(intentId)).state);
    await followRouted(run);
    await condition(allHandlersFinished);
    return { intentId, state: run.state, reason: run.outcome.reason };
  }

  let outcome = run.outcome!;
  run.moveTo(outcome.state);
  while (outcome.resting) {
    await condition(() => (run.crossings > 0 && !run.busy) || !run.outcome!.resting);
    if (!run.outcome!.resting) break;
    run.crossings = 0;
    run.busy = true;
    outcome = run.outcome = await run.steps.fillRestingPaper(intentId).finally(() => (run.busy = false));
    if (outcome.state !== run.state) run.moveTo(outcome.state);
  }
  await condition(allHandlersFinished);
  return { intentId, state: run.state, reason: run.outcome!.reason };
}

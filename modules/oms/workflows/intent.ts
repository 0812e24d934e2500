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
 * Since `paper-dispatch-in-task` that one activity is a local activity too (a market order is one workflow task), and since
 * `routed-dispatch-in-task` a routed intent's first dispatch attempt is (docs/order-lifecycle.md §1, §4); since
 * `paper-record-and-dispatch` a new paper intent's record, check and dispatch are one local activity and transaction;
 * since `routed-first-task-sends` a new routed intent's order is sent, in the first task, before its record.
 * Since the patch `intent-continues-as-new`, a working order's run continues as new with the order once its
 * history reaches its bound (docs/order-lifecycle.md §5, docs/architecture.md "History bound").
 */
import { allHandlersFinished, condition, continueAsNew } from '@temporalio/workflow';
import { readyToContinueAsNew } from '../../../workflows/continue-as-new.js';
import type { IntentOutcome, IntentWorkflowInput } from './intent.definitions.js';
import { IntentRun, PASSED, activities } from './intent-run.js';

const { syncRouted } = activities;

/** A routed working order is read back from its venue at most this often (ms), backing off to {@link SLOWEST_POLL_MS} while nothing changes. */
const SLOWEST_POLL_MS = 60_000;

/**
 * Follows a routed working order until it stops resting: reads it back from the venue on a
 * backing-off timer, or at once when the mark crosses its price (the trigger watcher's signal).
 * Answers true when the run should continue as new instead (its history reached its bound).
 */
async function followRouted(run: IntentRun): Promise<boolean> {
  let wait = run.input.pollMs ?? 1_000;
  while (run.outcome!.resting) {
    const woken = await condition(() => run.crossings > 0 || !run.outcome!.resting, wait);
    if (run.outcome!.resting && run.historyBound.reached && (await run.historyBound.check())) return true;
    await condition(() => !run.busy);
    if (!run.outcome!.resting) return false;
    run.crossings = 0;
    run.busy = true;
    const before = run.outcome!;
    const outcome = (run.outcome = await syncRouted(run.intentId).finally(() => (run.busy = false)));
    if (outcome.state !== run.state) run.moveTo(outcome.state);
    const changed = outcome.filledQty !== before.filledQty || outcome.state !== before.state;
    wait = woken || changed ? (run.input.pollMs ?? 1_000) : Math.min(wait * 2, SLOWEST_POLL_MS);
  }
  return false;
}

/**
 * Follows a paper working order until it stops resting: a fill attempt on each mark crossing, taking
 * turns with cancels. Answers true when the run should continue as new instead (its history reached its bound).
 */
async function followPaper(run: IntentRun): Promise<boolean> {
  let outcome = run.outcome!;
  while (outcome.resting) {
    await condition(() => (run.crossings > 0 && !run.busy) || !run.outcome!.resting);
    if (!run.outcome!.resting) break;
    run.crossings = 0;
    run.busy = true;
    outcome = run.outcome = await run.steps.fillRestingPaper(run.intentId).finally(() => (run.busy = false));
    if (outcome.state !== run.state) run.moveTo(outcome.state);
    if (outcome.resting && run.historyBound.reached && (await run.historyBound.check())) return true;
  }
  return false;
}

/**
 * Follows the working order (if any) to its end and answers the intent's outcome, or continues the
 * run as new with it (patch `intent-continues-as-new`): once no handler runs, a working order still
 * resting is carried to a fresh history under the same workflow id; Updates and Signals sent by id
 * reach the run that is current.
 */
async function work(run: IntentRun): Promise<IntentOutcome> {
  if (await (run.routed ? followRouted(run) : followPaper(run))) {
    await readyToContinueAsNew();
    if (run.outcome!.resting) return continueAsNew<typeof intentWorkflow>(run.continued());
  }
  await condition(allHandlersFinished);
  return { intentId: run.intentId, state: run.state, reason: run.outcome!.reason };
}

export async function intentWorkflow(input: IntentWorkflowInput): Promise<IntentOutcome> {
  const run = new IntentRun(input);
  run.install(intentWorkflow);
  const { intentId } = input;
  if (run.resumed) return work(run);

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

  if (run.routed) run.moveTo((await run.dispatchRouted()).state);
  else run.moveTo(run.outcome!.state);
  return work(run);
}

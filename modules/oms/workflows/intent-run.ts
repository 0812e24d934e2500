/**
 * The state of one intent workflow and the handlers that act on it: the `compose`, `cancel`,
 * `modify` and `signResult` Updates, the `markCrossed` Signal and the `intentState` Query.
 * Deterministic workflow code; the process itself reads in modules/oms/workflows/intent.ts.
 */
import {
  ApplicationFailure,
  ParentClosePolicy,
  allHandlersFinished,
  condition,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../../../activities/index.js';
import type { DispatchOutcome, RiskVerdict } from '../../../activities/types.js';
import type { IntentState, IntentView } from '../../../domain/oms/intent.js';
import { signRefusal } from '../../../domain/oms/signing.js';
import { SA, searchAttributes } from '../../../workflows/shared.definitions.js';
import { HistoryBound } from '../../../workflows/continue-as-new.js';
import {
  cancelUpdate,
  composeUpdate,
  intentStateQuery,
  intentWorkflowId,
  markCrossedSignal,
  modifyUpdate,
  signResultUpdate,
  type IntentOutcome,
  type IntentWorkflowInput,
  type ModifyResult,
  type SignResult,
} from './intent.definitions.js';

/** The intent workflow's signature (modules/oms/workflows/intent.ts passes itself in: replacements are started as it). */
type IntentWorkflow = (input: IntentWorkflowInput) => Promise<IntentOutcome>;

const STEP_OPTIONS = {
  startToCloseTimeout: '10 seconds', // short: a crashed worker's activity is retried elsewhere after this
  retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds', backoffCoefficient: 2 },
} as const;
export const activities = proxyActivities<Activities>(STEP_OPTIONS);
/**
 * The short idempotent steps of an order that answer or wake a handler (record, the paper engine's
 * fill on a mark crossing, its cancel) as local activities: run by the worker inside the workflow
 * task, with no task round trip through the server (issue 15; behind {@link LOCAL_STEPS_PATCH}).
 * A paper intent's risk check and first dispatch joined them behind {@link PAPER_DISPATCH_IN_TASK_PATCH}
 * (a local activity holds the workflow task, and so the compose Update's answer, open until it ends: the
 * paper engine answers in milliseconds). A routed dispatch's first attempt runs in the task too, bounded to one
 * attempt ({@link firstAttemptInTask}); its retries stay a regular activity, since a venue may answer slowly or fail.
 */
const localSteps = proxyLocalActivities<Activities>(STEP_OPTIONS);
/**
 * A routed intent's first dispatch attempt, in the workflow task (behind {@link ROUTED_DISPATCH_IN_TASK_PATCH}): one
 * attempt, bounded as an activity attempt is; whatever it throws, the regular activity retries (module doc of
 * modules/oms/activities/routed.ts: a retry asks the venue for the client order id first), so a venue that fails or
 * answers slowly holds the compose's answer for one attempt at most.
 */
const firstAttemptInTask = proxyLocalActivities<Activities>({
  startToCloseTimeout: STEP_OPTIONS.startToCloseTimeout,
  retry: { maximumAttempts: 1 },
});
const { acceptSignature, cancelRouted, checkRisk, dispatchPaper } = activities;

/** The steps an intent runs in-task or as regular activities (see {@link IntentRun.steps}). */
type Steps = Pick<Activities, 'recordIntent' | 'fillRestingPaper' | 'cancelPaper'>;

/** Patch id of routed execution (issue 4): every intent history before it is a paper one. */
export const ROUTED_PATCH = 'routed-venues';
/** Patch id of cancels and modifies that wait for a dispatch in flight instead of being refused. */
export const CANCEL_AWAITS_DISPATCH_PATCH = 'cancel-awaits-dispatch';
/** Patch id of the order's short steps as local activities (issue 15): histories before it ran them as activities. */
export const LOCAL_STEPS_PATCH = 'local-order-steps';
/**
 * Patch id of routed intents dispatched without a separate risk check (issue 15): `dispatchRouted`
 * refuses an order without a fresh mark itself (`no_mark`, the same rejection), and a routed venue holds
 * the margin, so the check was a second read of the same mark and a task round trip.
 */
export const ROUTED_DISPATCH_CHECKS_PATCH = 'routed-dispatch-checks';
/**
 * Patch id of sign-result refusals as `{ error: <code>, detail }` (issue 17): a venue refusal answers
 * `venue_rejected` with the venue's text as `detail`; before it `error` was the whole reject reason.
 */
export const SIGN_REFUSAL_CODE_PATCH = 'sign-refusal-code';
/**
 * Patch id of a working order that continues as new once its history reaches its bound (issue 14;
 * workflows/continue-as-new.ts `HistoryBound`): before it, a resting order's run kept one history, which a
 * routed order's read-backs grew by about 1,440 a day.
 */
export const CONTINUES_PATCH = 'intent-continues-as-new';
/**
 * Patch id of a paper intent's risk check and first dispatch as a local activity (issue 15): the whole market order,
 * record to fill, is then one workflow task (no activity task and no second workflow task through the server). The
 * compose Update's answer leaves with that task, so compose answers once the paper engine has dispatched.
 */
export const PAPER_DISPATCH_IN_TASK_PATCH = 'paper-dispatch-in-task';
/**
 * Patch id of a routed intent's first dispatch attempt as a local activity (issue 15; {@link firstAttemptInTask}): a
 * market order the venue fills at once is then one workflow task; a failed first attempt is retried as the activity.
 */
export const ROUTED_DISPATCH_IN_TASK_PATCH = 'routed-dispatch-in-task';
/**
 * Patch id of a new paper intent's record, risk check and first dispatch as ONE local activity and one transaction
 * (issue 15; activities `recordAndDispatchPaper`): before it, `recordIntent` and then `checkAndDispatchPaper`, two
 * local activities and two transactions. Consulted where the intent is recorded.
 */
export const PAPER_RECORD_AND_DISPATCH_PATCH = 'paper-record-and-dispatch';
/**
 * Patch id of a new routed intent's record and first dispatch attempt as ONE local activity (issue 15; activity
 * `recordAndDispatchRouted`, bounded to one attempt as {@link firstAttemptInTask}): before it, `recordIntent` and then
 * `dispatchRouted`, two local activities. When it fails the intent is recorded by `recordIntent` and dispatched by the
 * regular activity (which asks the venue for the client order id first). Consulted where the intent is recorded.
 */
export const ROUTED_RECORD_AND_DISPATCH_PATCH = 'routed-record-and-dispatch';
/**
 * Patch id of a new routed intent's order sent before the intent is recorded (issue 15): `recordAndDispatchRouted`
 * hears whether it runs in the workflow's first task ({@link FIRST_TASK_HISTORY_LENGTH}), where nothing can have sent
 * the order yet, and then records the intent `dispatched` once the venue has it, in one statement; when that fails,
 * the regular `dispatchRouted` asks the venue for the client order id first (`maybeSent`): the order may be out.
 */
export const ROUTED_FIRST_TASK_SENDS_PATCH = 'routed-first-task-sends';
/**
 * The history length the first workflow task sees (WorkflowExecutionStarted, WorkflowTaskScheduled, WorkflowTaskStarted):
 * a first task run again after its worker died or failed it sees at least 6 (its timeout or failure, and a new
 * scheduled and started).
 */
const FIRST_TASK_HISTORY_LENGTH = 3;

/** The verdict of an intent whose risk is checked by its dispatch (patch `routed-dispatch-checks`). */
export const PASSED = { ok: true } as const;

const invalid = (message: string) => ApplicationFailure.create({ type: 'invalid_state', message, nonRetryable: true });

/** One intent's run: its state as the workflow knows it, and the turn-taking of fills and cancels. */
export class IntentRun {
  state: IntentState;
  outcome: DispatchOutcome | undefined;
  rejectReason: string | undefined;
  /** Mark crossings signalled and not yet looked at. */
  crossings = 0;
  /** A fill attempt or a cancel is running; they take turns. */
  busy = false;
  private signing = false;
  private recorded: Promise<IntentView> | undefined;
  /**
   * The verdict and outcome of an intent dispatched by its record: a paper one ({@link PAPER_RECORD_AND_DISPATCH_PATCH};
   * no outcome when the risk check refused it), a routed one ({@link ROUTED_RECORD_AND_DISPATCH_PATCH}; its risk is
   * checked by the dispatch, no outcome when that attempt failed and the regular activity dispatches it; `maybeSent`
   * since {@link ROUTED_FIRST_TASK_SENDS_PATCH}: that attempt may have sent the order, so the activity asks first).
   */
  private dispatchedAtRecord: { risk: RiskVerdict; outcome?: DispatchOutcome; maybeSent?: boolean } | undefined;
  private history: HistoryBound | undefined;
  /** Dispatched to an exchange (not the paper engine). Only non-paper intents consult the patch, so paper histories replay unchanged. */
  readonly routed: boolean;
  /** Record and the paper engine's fill and cancel: local activities since {@link LOCAL_STEPS_PATCH}, regular ones before. */
  readonly steps: Steps;
  /** Since {@link LOCAL_STEPS_PATCH}: a paper intent's risk check and dispatch are one activity. */
  private readonly oneStepDispatch: boolean;
  /** Since {@link ROUTED_DISPATCH_CHECKS_PATCH}: a routed intent's dispatch checks the mark itself, no separate risk check. */
  readonly checksAtDispatch: boolean;

  constructor(readonly input: IntentWorkflowInput) {
    this.state = input.resume?.state ?? (input.signing === 'self' ? 'intent_pending' : 'signed_pending_dispatch');
    this.outcome = input.resume?.outcome;
    this.crossings = input.resume?.crossings ?? 0;
    this.routed = input.venue !== 'paper' && patched(ROUTED_PATCH);
    this.oneStepDispatch = patched(LOCAL_STEPS_PATCH);
    this.steps = this.oneStepDispatch ? localSteps : activities;
    this.checksAtDispatch = this.routed && patched(ROUTED_DISPATCH_CHECKS_PATCH);
  }

  get intentId() {
    return this.input.intentId;
  }

  /** A continued run of a working order (input `resume`): nothing to record, check or dispatch. */
  get resumed() {
    return this.input.resume !== undefined;
  }

  /**
   * The working order's history bound ({@link CONTINUES_PATCH}), created at its first look, so the patch is
   * consulted there: test `reached`, then await `check()` (workflows/continue-as-new.ts).
   */
  get historyBound(): HistoryBound {
    return (this.history ??= new HistoryBound(CONTINUES_PATCH, this.input.historyBound));
  }

  /** The input of the run this one continues as: the intent, its working order's state and the bound. */
  continued(): IntentWorkflowInput {
    const { resume: _resume, historyBound: _bound, ...intent } = this.input;
    return {
      ...intent,
      ...this.history?.carried(),
      resume: { state: this.state, outcome: this.outcome!, crossings: this.crossings },
    };
  }

  /**
   * Records the intent once (compose and the main flow share it). A new paper intent that dispatches at once is
   * recorded, checked and dispatched by one local activity since {@link PAPER_RECORD_AND_DISPATCH_PATCH}; its verdict
   * and outcome wait in {@link dispatchedAtRecord} for {@link checkAndDispatchPaper}. A new platform-signed routed
   * intent is recorded and makes its first dispatch attempt in one local activity since
   * {@link ROUTED_RECORD_AND_DISPATCH_PATCH}; its outcome waits there for {@link dispatchRouted}.
   */
  record = () => (this.recorded ??= this.recordOnce());

  private async recordOnce(): Promise<IntentView> {
    const fresh = this.state === 'signed_pending_dispatch' && this.oneStepDispatch;
    if (fresh && this.checksAtDispatch && patched(ROUTED_RECORD_AND_DISPATCH_PATCH))
      return this.recordAndDispatchRouted();
    const dispatchesNow = !this.routed && fresh;
    if (!dispatchesNow || !patched(PAPER_RECORD_AND_DISPATCH_PATCH)) return this.steps.recordIntent(this.input);
    const { view, risk, outcome } = await localSteps.recordAndDispatchPaper(this.input);
    this.dispatchedAtRecord = { risk, outcome };
    return view;
  }

  /**
   * Records a new routed intent and makes its first dispatch attempt, one local activity; when that fails, records it
   * by `recordIntent` (idempotent: it may be recorded already) and leaves the dispatch to {@link dispatchRouted}.
   * Since {@link ROUTED_FIRST_TASK_SENDS_PATCH} the activity hears whether it runs in the first task (then it sends the
   * order before recording the intent), and a failed attempt leaves the dispatch told that the order may be out.
   */
  private async recordAndDispatchRouted(): Promise<IntentView> {
    // Since ROUTED_FIRST_TASK_SENDS_PATCH the activity hears whether this is the first task (it then sends unrecorded).
    const firstTaskSends = patched(ROUTED_FIRST_TASK_SENDS_PATCH);
    const firstTask = workflowInfo().historyLength <= FIRST_TASK_HISTORY_LENGTH;
    try {
      const { view, outcome } = await (firstTaskSends
        ? firstAttemptInTask.recordAndDispatchRouted(this.input, { firstTask })
        : firstAttemptInTask.recordAndDispatchRouted(this.input));
      this.dispatchedAtRecord = { risk: PASSED, outcome };
      return view;
    } catch {
      this.dispatchedAtRecord = { risk: PASSED, maybeSent: firstTaskSends };
      return this.steps.recordIntent(this.input);
    }
  }

  /** The pre-dispatch risk check of a routed intent from before {@link ROUTED_DISPATCH_CHECKS_PATCH}; the caller dispatches after it. */
  checkRisk = () => checkRisk(this.intentId);

  /**
   * The risk check, then, when it passed, the paper engine's first dispatch (`this.outcome`): one
   * activity since {@link LOCAL_STEPS_PATCH}, two before; a local activity since {@link PAPER_DISPATCH_IN_TASK_PATCH}.
   */
  async checkAndDispatchPaper(): Promise<RiskVerdict> {
    if (this.dispatchedAtRecord) {
      this.outcome = this.dispatchedAtRecord.outcome;
      // The compose Update answers from the same local activity's result: let it answer first (its handler may pass
      // through interceptors' awaits on the way), so the commands after this come in the same order with and without
      // them, and a traced run replays untraced (test/api/tracing.test.ts).
      await condition(allHandlersFinished);
      return this.dispatchedAtRecord.risk;
    }
    if (this.oneStepDispatch) {
      const inTask = patched(PAPER_DISPATCH_IN_TASK_PATCH);
      const { risk, outcome } = await (inTask ? localSteps : activities).checkAndDispatchPaper(this.intentId);
      this.outcome = outcome;
      return risk;
    }
    const risk = await checkRisk(this.intentId);
    if (risk.ok) this.outcome = await dispatchPaper(this.intentId);
    return risk;
  }

  /**
   * Dispatches the routed intent to its venue (`this.outcome`): the first attempt in the workflow task since
   * {@link ROUTED_DISPATCH_IN_TASK_PATCH}, the activity (with its retries) before it or when that attempt failed; since
   * {@link ROUTED_RECORD_AND_DISPATCH_PATCH} the outcome of the attempt made with the record, else the activity.
   */
  async dispatchRouted(): Promise<DispatchOutcome> {
    if (this.dispatchedAtRecord) {
      // Dispatched with its record: as for a paper intent dispatched so, the compose Update answers first.
      const { outcome, maybeSent } = this.dispatchedAtRecord;
      this.outcome =
        outcome ??
        (await (maybeSent
          ? activities.dispatchRouted(this.intentId, { maybeSent })
          : activities.dispatchRouted(this.intentId)));
      await condition(allHandlersFinished);
      return this.outcome;
    }
    let outcome: DispatchOutcome | undefined;
    if (patched(ROUTED_DISPATCH_IN_TASK_PATCH))
      outcome = await firstAttemptInTask.dispatchRouted(this.intentId).catch(() => undefined);
    return (this.outcome = outcome ?? (await activities.dispatchRouted(this.intentId)));
  }

  moveTo(next: IntentState) {
    this.state = next;
    upsertSearchAttributes([{ key: SA.intentState, value: next }]);
  }

  /** Risk passed or pending and the dispatch's outcome not yet applied: the order may be about to rest. */
  private get dispatching() {
    return this.state === 'signed_pending_dispatch' && this.outcome === undefined;
  }

  private mustBeWorking = () => {
    if (!this.outcome?.resting) throw invalid(`intent ${this.intentId} is ${this.state}: no working order`);
  };

  /** Validator of cancel and modify: a working order, or one whose dispatch is in flight (the venue, and so PostgreSQL, may already show it open). */
  private mayCancel = () => {
    if (!this.dispatching) this.mustBeWorking();
  };

  /**
   * Cancels the working order, taking turns with fill attempts; a dispatch in flight is awaited
   * first. @throws invalid_state when no order is working (then).
   */
  private async cancelWorking() {
    // Old histories never reach this with a dispatch in flight (their validator refused it), so they replay without the marker.
    if (this.dispatching && patched(CANCEL_AWAITS_DISPATCH_PATCH)) await condition(() => !this.dispatching);
    await condition(() => !this.busy);
    this.mustBeWorking();
    this.busy = true;
    this.outcome = await (this.routed ? cancelRouted : this.steps.cancelPaper)(this.intentId).finally(
      () => (this.busy = false),
    );
    if (this.outcome.state !== this.state) this.moveTo(this.outcome.state);
    if (this.outcome.state !== 'canceled')
      throw invalid(`intent ${this.intentId} is ${this.outcome.state}: no working order`);
    return this.outcome;
  }

  private async modify(replacement: IntentWorkflowInput, self: IntentWorkflow): Promise<ModifyResult> {
    await this.cancelWorking();
    const intent = await this.steps.recordIntent(replacement);
    await startChild(self, {
      workflowId: intentWorkflowId(replacement.intentId),
      args: [replacement],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      typedSearchAttributes: searchAttributes(replacement, 'signed_pending_dispatch'),
    });
    return { replacedIntentId: this.intentId, intent };
  }

  private async signResult(signature: string): Promise<SignResult> {
    const { intentId } = this;
    this.signing = true;
    const verdict = await acceptSignature(intentId, signature).finally(() => (this.signing = false));
    if (!verdict.ok)
      throw ApplicationFailure.create({
        type: 'invalid_signature',
        message: 'the signature does not recover the signer registered on this credential',
        nonRetryable: true,
      });
    this.moveTo('signed_pending_dispatch');
    await condition(() => this.outcome !== undefined || this.state === 'rejected');
    const o = this.outcome;
    if (!o || this.state === 'rejected') {
      const reason = o?.reason ?? this.rejectReason ?? 'rejected';
      // Only refusals consult the patch: histories of signed intents that dispatched replay without its marker.
      return patched(SIGN_REFUSAL_CODE_PATCH)
        ? { ok: false, intentId, ...signRefusal(intentId, reason) }
        : { ok: false, intentId, error: reason, detail: `intent ${intentId} was not dispatched` };
    }
    const inlineFill =
      o.filledQty && o.filledQty !== '0' && o.avgFillPrice ? { qty: o.filledQty, avgPrice: o.avgFillPrice } : undefined;
    return {
      ok: true,
      intentId,
      venueOrderId: o.venueOrderId,
      resting: o.resting,
      ...(inlineFill ? { inlineFill } : {}),
    };
  }

  /** Installs every handler; `self` is the intent workflow (replacements are started as it). */
  install(self: IntentWorkflow) {
    setHandler(composeUpdate, this.record);
    setHandler(intentStateQuery, () => this.state);
    setHandler(markCrossedSignal, () => void this.crossings++);
    setHandler(
      cancelUpdate,
      async () => ({
        intentId: this.intentId,
        venueOrderId: (await this.cancelWorking()).venueOrderId,
        state: 'canceled' as const,
      }),
      { validator: this.mayCancel },
    );
    setHandler(modifyUpdate, (replacement: IntentWorkflowInput) => this.modify(replacement, self), {
      validator: (_r: IntentWorkflowInput) => this.mayCancel(),
    });
    setHandler(signResultUpdate, ({ signature }: { signature: string }) => this.signResult(signature), {
      validator: (_p: { signature: string }) => {
        if (this.state !== 'intent_pending' || this.signing)
          throw invalid(`intent ${this.intentId} is ${this.state}: only intent_pending can be signed`);
      },
    });
  }
}

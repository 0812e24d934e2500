/**
 * Contract of the order intent workflow `intent-<intentId>` (modules/oms/workflows/intent.ts, docs/order-lifecycle.md):
 * its id, input and outcome, the `compose`, `cancel`, `modify` and `signResult` Updates, the
 * `markCrossed` Signal and the `intentState` Query.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { IntentState, IntentView } from '../../../domain/oms/intent.js';
import type { IntentRecord } from '../../../domain/oms/new-intent.js';
import type { DispatchOutcome } from '../../../activities/types.js';

/** Workflow id of an order intent: `intent-<intentId>` (a business id, never random). */
export const intentWorkflowId = (intentId: string) => `intent-${intentId}`;

/**
 * Input of the intent workflow: a composed intent as the api hands it over (validated; decimals as
 * strings), recorded by its first activity (`recordIntent`). Batch legs, bracket legs and chase
 * replacements are built in the same shape, by the one builder `newIntent()` (domain/oms/new-intent.ts).
 * The workflow itself adds `resume` and `historyBound` when a working order's run continues as new
 * (docs/order-lifecycle.md §5); no starter sets them.
 */
export type IntentWorkflowInput = IntentRecord & {
  /** The working order a continued run carries on with; it records, checks and dispatches nothing. */
  resume?: IntentResume;
  /** Events the run's history may reach before it continues as new (workflows/continue-as-new.ts); unset: the worker's. */
  historyBound?: number;
};

/**
 * What a working order's run hands to the run it continues as (since the patch `intent-continues-as-new`): its
 * state, the last dispatch or read-back outcome (`resting` true) and the mark crossings not yet looked at.
 */
export interface IntentResume {
  state: IntentState;
  outcome: DispatchOutcome;
  crossings: number;
}

/**
 * Update sent with the workflow's start (update-with-start, the early-return shape): answers
 * once the intent is recorded, so compose returns `intentId` synchronously while dispatch goes on.
 */
export const composeUpdate = defineUpdate<IntentView>('compose');

/** How an intent workflow ended. */
export interface IntentOutcome {
  intentId: string;
  state: IntentState;
  reason?: string;
}

/**
 * Signal from the mark feed's trigger watcher: the canonical mark crossed this resting order's
 * price or trigger. Idempotent: the workflow re-checks against the latest mark in an activity.
 */
export const markCrossedSignal = defineSignal<[{ mark: string; ts: number }]>('markCrossed');

/** Query: the intent's current state as the workflow knows it. */
export const intentStateQuery = defineQuery<IntentState>('intentState');

/** What a successful cancel answers (docs/api.md §4.4 cancel; the body is ours). */
export interface CancelResult {
  intentId: string;
  venueOrderId: string | null;
  state: IntentState;
}

/**
 * Update: cancel the intent's working order. The validator refuses, with an ApplicationFailure of
 * type `invalid_state`, an intent that has no working order (not yet dispatched, filled, canceled).
 */
export const cancelUpdate = defineUpdate<CancelResult>('cancel');

/** What `modify` answers: the replaced intent and its replacement (docs/api.md §4.4: "resolves a new intent id"). */
export interface ModifyResult {
  replacedIntentId: string;
  intent: IntentView;
}

/**
 * Update: cancel-replace. Cancels the working order, records the replacement (the API built and
 * validated it, with a new intent id) and starts its workflow `intent-<newId>`, which outlives this
 * one. Refused with `invalid_state` when there is no working order.
 */
export const modifyUpdate = defineUpdate<ModifyResult, [IntentWorkflowInput]>('modify');

/**
 * What `sign-result` answers (docs/api.md §3.1): dispatched (`resting` when a working order rests,
 * `inlineFill` when it filled at once), or `ok: false` when the venue or the risk check refused it:
 * `error` the refusal's code (`venue_rejected`, `insufficient_margin`, …), `detail` the venue's own
 * text or a sentence (domain/oms/signing.ts `signRefusal`, since the patch `sign-refusal-code`).
 */
export type SignResult =
  | {
      ok: true;
      intentId: string;
      venueOrderId: string | null;
      resting: boolean;
      inlineFill?: { qty: string; avgPrice: string };
    }
  | { ok: false; intentId: string; error: string; detail: string };

/**
 * Update: the caller's signature of an `intent_pending` intent (`{ signature }` of the EIP-712
 * typed data in the compose response). The validator refuses any other state (`invalid_state`);
 * a signature that does not recover the credential's signer is refused (`invalid_signature`) and
 * the intent stays pending.
 */
export const signResultUpdate = defineUpdate<SignResult, [{ signature: string }]>('signResult');

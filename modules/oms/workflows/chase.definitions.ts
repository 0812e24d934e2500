/**
 * Contract of the chase workflow `chase-<intentId>` (modules/oms/workflows/chase.ts, docs/api.md §4.4): its id, input
 * and view, the `chase` Update and the `chaseState` Query.
 */
import { defineQuery, defineUpdate } from '@temporalio/workflow';

/** Workflow id of a chase: `chase-<intentId>` (the intent it starts from). */
export const chaseWorkflowId = (intentId: string) => `chase-${intentId}`;

/** A chase of a working limit order toward the touch (best bid for a buy, best ask for a sell). */
export interface ChaseInput {
  chaseId: string;
  intentId: string;
  /** Most cancel-replaces before the chase gives up (the last order keeps working). */
  maxAttempts: number;
  /** How often the touch is looked at, ms. */
  intervalMs: number;
  /** Set by the workflow when it continues as new: the chase so far, which the new run carries on. */
  resume?: ChaseView;
  /** Events a run's history may reach before it continues as new (workflows/continue-as-new.ts); unset: the worker's `WORKFLOW_HISTORY_BOUND`. */
  historyBound?: number;
}

/** A chase as the API shows it. */
export interface ChaseView {
  chaseId: string;
  /** The order working now (each replace resolves a new intent id). */
  currentIntentId: string;
  attempts: number;
  maxAttempts: number;
  state: 'chasing' | 'filled' | 'exhausted' | 'ended';
}

/** Update sent with the chase's start: answers the chase (early return). */
export const chaseUpdate = defineUpdate<ChaseView>('chase');
/** Query: the chase now. */
export const chaseQuery = defineQuery<ChaseView>('chaseState');

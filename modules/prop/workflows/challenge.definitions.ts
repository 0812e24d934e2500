/**
 * Contract of a prop account's challenge `challenge-<propAccountId>` (modules/prop/workflows/challenge.ts, docs/api.md
 * §3.5): its id, input and status, the `challenge` Query and the `evaluate` Signal.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';

/** Workflow id of a prop account's challenge: `challenge-<propAccountId>`. */
export const challengeWorkflowId = (propAccountId: string) => `challenge-${propAccountId}`;

/**
 * Input of `challengeWorkflow`. `pollMs`: deposit and rule evaluation interval (ms; default 5000).
 * `historyBound`: events a run's history may reach before it continues as new (workflows/continue-as-new.ts;
 * unset: the worker's `WORKFLOW_HISTORY_BOUND`; a continued run carries the value read).
 */
export interface ChallengeInput {
  tenantId: string;
  propAccountId: string;
  pollMs?: number;
  historyBound?: number;
}

/** What the `challenge` Query answers. */
export interface ChallengeStatus {
  propAccountId: string;
  status: 'pending_payment' | 'active' | 'passed' | 'breached' | 'funded' | 'suspended';
  depositTxHash: string | null;
  breachReason: string | null;
  payoutCeilingUsd: string | null;
  flattenBatchId: string | null;
}

/** Query: the challenge's status. */
export const challengeQuery = defineQuery<ChallengeStatus>('challenge');

/** Signal: evaluate the rules now (sent after a fill of the prop account; idempotent). */
export const evaluateSignal = defineSignal('evaluate');

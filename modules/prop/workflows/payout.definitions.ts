/**
 * Contract of a payout approval `payout-<payoutId>` (modules/prop/workflows/payout.ts, docs/api.md §1 custody rules,
 * §3.5): its id, input and status, the `payout` Query and the `authorizePayout` and `cancelPayout` Updates.
 */
import { defineQuery, defineUpdate } from '@temporalio/workflow';

/** Workflow id of a payout approval: `payout-<payoutId>`. */
export const payoutWorkflowId = (payoutId: string) => `payout-${payoutId}`;

/**
 * Input of `payoutWorkflow`. `pollMs`: interval of the Safe and execution reads (ms; default 2000, doubling to
 * 60 s, back to `pollMs` after each change). `resume`: the status a run continued as new carries on with (its
 * Safe transaction is already built). `historyBound`: events a run's history may reach before it continues as
 * new (workflows/continue-as-new.ts; unset: the worker's `WORKFLOW_HISTORY_BOUND`).
 */
export interface PayoutInput {
  tenantId: string;
  payoutId: string;
  pollMs?: number;
  resume?: PayoutStatus;
  historyBound?: number;
}

/** A Safe transaction the payout was built for before the Safe's nonce moved past it: it can never execute. */
export interface SupersededSafeTx {
  /** The Safe nonce it was built for (decimal string). */
  nonce: string;
  safeTxHash: string;
}

/** What the `payout` Query and the Updates answer. */
export interface PayoutStatus {
  payoutId: string;
  status: 'requested' | 'authorized' | 'executed' | 'rejected' | 'canceled';
  /** The Safe transaction the owners sign (EIP-712 typed data), once prepared. */
  safeTx: unknown;
  safeTxHash: string | null;
  signers: string[];
  executedTxHash: string | null;
  /** The Safe nonce `safeTx` is built for (decimal string); absent in runs from before the payout followed the Safe. */
  safeNonce?: string | null;
  /** Earlier builds, oldest first, each left behind when the Safe executed another transaction at its nonce. */
  superseded?: SupersededSafeTx[];
  /** Why the operator canceled it (`canceled` only). */
  cancelReason?: string | null;
}

/** Query: the payout's status and what to sign. */
export const payoutQuery = defineQuery<PayoutStatus>('payout');

/**
 * Update: the operator's multisig authorisation `{ signatures }` (concatenated 65-byte owner
 * signatures of the Safe transaction). The validator refuses it unless the payout awaits one
 * (`invalid_state`); signatures of a Safe transaction the payout was rebuilt away from (the Safe
 * moved past its nonce) are refused with `payout_authorization_stale`, naming the hash to sign now;
 * a signature set that does not verify on-chain is refused with `payout_authorization_invalid`. The
 * payout keeps waiting after a refusal.
 */
export const authorizePayoutUpdate = defineUpdate<PayoutStatus, [{ signatures: string }]>('authorizePayout');

/**
 * Update: the operator cancels the payout `{ reason }` while it is `requested`, or `authorized` once the
 * Safe has moved past the nonce its signatures are for; the workflow ends `canceled`. Refused with
 * `payout_already_executed` (it was paid on-chain: recorded instead), `payout_cancel_unsafe` (authorized,
 * and its signed transaction can still be executed) or `invalid_state` (already canceled or rejected).
 */
export const cancelPayoutUpdate = defineUpdate<PayoutStatus, [{ reason: string }]>('cancelPayout');

/**
 * Contract of a payout approval `payout-<payoutId>` (modules/prop/workflows/payout.ts, docs/api.md §1 custody rules,
 * §3.5): its id, input and status, the `payout` Query and the `authorizePayout` Update.
 */
import { defineQuery, defineUpdate } from '@temporalio/workflow';

/** Workflow id of a payout approval: `payout-<payoutId>`. */
export const payoutWorkflowId = (payoutId: string) => `payout-${payoutId}`;

/** Input of `payoutWorkflow`. `pollMs`: on-chain execution polling interval (ms; default 2000, doubling to 60 s). */
export interface PayoutInput {
  tenantId: string;
  payoutId: string;
  pollMs?: number;
}

/** What the `payout` Query and the `authorizePayout` Update answer. */
export interface PayoutStatus {
  payoutId: string;
  status: 'requested' | 'authorized' | 'executed' | 'rejected';
  /** The Safe transaction the owners sign (EIP-712 typed data), once prepared. */
  safeTx: unknown;
  safeTxHash: string | null;
  signers: string[];
  executedTxHash: string | null;
}

/** Query: the payout's status and what to sign. */
export const payoutQuery = defineQuery<PayoutStatus>('payout');

/**
 * Update: the operator's multisig authorisation `{ signatures }` (concatenated 65-byte owner
 * signatures of the Safe transaction). The validator refuses it unless the payout awaits one
 * (`invalid_state`); a signature set that does not verify on-chain is refused with
 * `payout_authorization_invalid` and the payout keeps waiting.
 */
export const authorizePayoutUpdate = defineUpdate<PayoutStatus, [{ signatures: string }]>('authorizePayout');

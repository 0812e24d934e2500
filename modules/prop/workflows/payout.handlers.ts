/**
 * The payout workflow's pieces shared by its two runs (./payout.ts, following the Safe; ./payout-one-build.ts,
 * from before the patch): their activities, the Update validators, the typed refusals and the first status. Workflow code:
 * deterministic, no I/O.
 */
import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../../activities/index.js';
import type { PayoutSafeTx } from '../activities/payout.js';
import type { PayoutStatus } from './payout.definitions.js';

/** Longest wait between two reads of the Safe and the payout's on-chain execution (ms). */
export const MAX_POLL_MS = 60_000;

/** The activities both payout runs call: 30 s each, retried from 500 ms doubling to 30 s. */
export const payoutActivities = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '30 seconds', backoffCoefficient: 2 },
});

/** Whether the payout still awaits its payment: `requested` or `authorized`. */
export const pending = (s: PayoutStatus) => s.status === 'requested' || s.status === 'authorized';

/** An activity's typed failure as the Update's own (the api maps the type to an error code), else `err`. */
export function typedFailure(err: unknown): unknown {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure && cause.type
    ? ApplicationFailure.create({ type: cause.type, message: cause.message })
    : err;
}

/** The refusal of an Update the payout's status does not take. */
export const invalidState = (s: PayoutStatus) =>
  ApplicationFailure.create({ type: 'invalid_state', message: `payout ${s.payoutId} is ${s.status}` });

/** The authorisation Update's validator: refuses unless the payout is `requested`. */
export function authorizeValidator(status: () => PayoutStatus) {
  return (_authorization?: { signatures: string }) => {
    if (status().status !== 'requested') throw invalidState(status());
  };
}

/** The cancel's refusal of a payout paid on-chain. */
export const alreadyExecuted = (s: PayoutStatus) =>
  ApplicationFailure.create({
    type: 'payout_already_executed',
    message: `payout ${s.payoutId} was executed on-chain${s.executedTxHash ? ` in ${s.executedTxHash}` : ''}`,
  });

/** The cancel Update's validator: refuses unless the payout is `requested` or `authorized`. */
export function cancelValidator(status: () => PayoutStatus) {
  return (_cancel?: { reason: string }) => {
    const s = status();
    if (s.status === 'executed') throw alreadyExecuted(s);
    if (!pending(s)) throw invalidState(s);
  };
}

/** A payout's status once its first Safe transaction is built: `requested`. */
export const builtStatus = (payoutId: string, safeTx: PayoutSafeTx): PayoutStatus => ({
  payoutId,
  status: 'requested',
  safeTx,
  safeTxHash: safeTx.safeTxHash,
  signers: [],
  executedTxHash: null,
  safeNonce: safeTx.nonce,
  superseded: [],
});

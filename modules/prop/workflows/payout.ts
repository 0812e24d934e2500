/**
 * `payout-<payoutId>` (docs/api.md §1 custody rules, §3.5; docs/architecture.md "Temporal model"): prepares the
 * multisig transaction the firm's owners sign, waits for the operator's authorisation (the
 * `authorizePayout` Update: verified on-chain against the owners and threshold; a bad set is
 * refused and the payout keeps waiting), then waits for the owner to execute it on-chain and
 * records it. The platform never sends the funds itself. The `payout` Query answers the status and
 * what to sign.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  proxyActivities,
  setHandler,
  sleep,
} from '@temporalio/workflow';
import type { Activities } from '../../../activities/index.js';
import { authorizePayoutUpdate, payoutQuery, type PayoutInput, type PayoutStatus } from './payout.definitions.js';

const { preparePayout, authorizePayout, checkPayoutExecution } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '30 seconds', backoffCoefficient: 2 },
});

/** Longest wait between two reads of the payout's on-chain execution (ms). */
const MAX_POLL_MS = 60_000;

export async function payoutWorkflow(input: PayoutInput): Promise<PayoutStatus> {
  const safeTx = await preparePayout(input.tenantId, input.payoutId);
  let status: PayoutStatus = {
    payoutId: input.payoutId,
    status: 'requested',
    safeTx,
    safeTxHash: safeTx.safeTxHash,
    signers: [],
    executedTxHash: null,
  };
  setHandler(payoutQuery, () => status);
  setHandler(
    authorizePayoutUpdate,
    async ({ signatures }) => {
      try {
        status = {
          ...(await authorizePayout(input.tenantId, input.payoutId, safeTx, signatures as `0x${string}`)),
          safeTx,
        };
        return status;
      } catch (err) {
        const cause = err instanceof ActivityFailure ? err.cause : err;
        if (cause instanceof ApplicationFailure && cause.type)
          throw ApplicationFailure.create({ type: cause.type, message: cause.message });
        throw err;
      }
    },
    {
      validator: (_authorization: { signatures: string }) => {
        if (status.status !== 'requested')
          throw ApplicationFailure.create({
            type: 'invalid_state',
            message: `payout ${input.payoutId} is ${status.status}`,
          });
      },
    },
  );

  await condition(() => status.status === 'authorized');
  let wait = input.pollMs ?? 2000;
  for (;;) {
    const seen = await checkPayoutExecution(input.tenantId, input.payoutId);
    if (seen.status === 'executed') {
      status = { ...status, status: 'executed', executedTxHash: seen.executedTxHash };
      return status;
    }
    await sleep(wait);
    wait = Math.min(wait * 2, MAX_POLL_MS);
  }
}

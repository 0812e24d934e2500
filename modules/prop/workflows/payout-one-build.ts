/**
 * A payout run from before the patch `payout-follows-safe` (./payout.ts): one build of the Safe
 * transaction at the nonce read at request time, the execution watched only once authorised. Its
 * commands are unchanged so its histories replay; the cancel Update is its only addition.
 */
import { condition, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { Activities } from '../../../activities/index.js';
import {
  authorizePayoutUpdate,
  cancelPayoutUpdate,
  payoutQuery,
  type PayoutInput,
  type PayoutStatus,
} from './payout.definitions.js';
import {
  MAX_POLL_MS,
  PAYOUT_ACTIVITY_OPTIONS,
  alreadyExecuted,
  authorizeValidator,
  builtStatus,
  cancelValidator,
  pending,
  typedFailure,
} from './payout.handlers.js';

const { preparePayout, authorizePayout, checkPayoutExecution, cancelPayout } =
  proxyActivities<Activities>(PAYOUT_ACTIVITY_OPTIONS);

/**
 * A run from before `payout-follows-safe`: one build at the nonce read at request time, the execution watched
 * only once authorised. Its commands are unchanged; the cancel Update is the only addition.
 */
export async function payoutOneBuild(input: PayoutInput): Promise<PayoutStatus> {
  const safeTx = await preparePayout(input.tenantId, input.payoutId);
  let status = builtStatus(input.payoutId, safeTx);
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
        throw typedFailure(err);
      }
    },
    { validator: authorizeValidator(() => status) },
  );
  setHandler(
    cancelPayoutUpdate,
    async ({ reason }) => {
      const r = await cancelPayout(input.tenantId, input.payoutId, safeTx.nonce, reason).catch((err: unknown) => {
        throw typedFailure(err);
      });
      if (r.outcome === 'executed') {
        status = { ...status, status: 'executed', executedTxHash: r.status.executedTxHash };
        throw alreadyExecuted(status);
      }
      status = { ...status, status: 'canceled', cancelReason: reason };
      return status;
    },
    { validator: cancelValidator(() => status) },
  );

  await condition(() => status.status === 'authorized' || !pending(status));
  let wait = input.pollMs ?? 2000;
  for (;;) {
    if (status.status === 'canceled') return status;
    const seen = await checkPayoutExecution(input.tenantId, input.payoutId);
    if (seen.status === 'executed') {
      status = { ...status, status: 'executed', executedTxHash: seen.executedTxHash };
      return status;
    }
    await sleep(wait);
    wait = Math.min(wait * 2, MAX_POLL_MS);
  }
}

/**
 * A payout run from before the patch `payout-follows-safe` (./payout.ts): one build of the Safe
 * transaction at the nonce read at request time, the execution watched only once authorised. Its
 * commands are unchanged so its histories replay; the cancel Update is its only addition.
 */
import { condition, setHandler, sleep } from '@temporalio/workflow';
import { authorizePayoutUpdate, cancelPayoutUpdate, payoutQuery } from './payout.definitions.js';
import type { PayoutInput, PayoutStatus } from './payout.definitions.js';
import * as shared from './payout.handlers.js';

const { preparePayout, authorizePayout, checkPayoutExecution, cancelPayout } = shared.payoutActivities;

/**
 * A run from before `payout-follows-safe`: one build at the nonce read at request time, the execution watched
 * only once authorised. Its commands are unchanged; the cancel Update is the only addition.
 */
export async function payoutOneBuild(input: PayoutInput): Promise<PayoutStatus> {
  const safeTx = await preparePayout(input.tenantId, input.payoutId);
  let status = shared.builtStatus(input.payoutId, safeTx);
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
        throw shared.typedFailure(err);
      }
    },
    { validator: shared.authorizeValidator(() => status) },
  );
  setHandler(
    cancelPayoutUpdate,
    async ({ reason }) => {
      const r = await cancelPayout(input.tenantId, input.payoutId, safeTx.nonce, reason).catch((err: unknown) => {
        throw shared.typedFailure(err);
      });
      if (r.outcome === 'executed') {
        status = { ...status, status: 'executed', executedTxHash: r.status.executedTxHash };
        throw shared.alreadyExecuted(status);
      }
      status = { ...status, status: 'canceled', cancelReason: reason };
      return status;
    },
    { validator: shared.cancelValidator(() => status) },
  );

  await condition(() => status.status === 'authorized' || !shared.pending(status));
  let wait = input.pollMs ?? 2000;
  for (;;) {
    if (status.status === 'canceled') return status;
    const seen = await checkPayoutExecution(input.tenantId, input.payoutId);
    if (seen.status === 'executed') {
      status = { ...status, status: 'executed', executedTxHash: seen.executedTxHash };
      return status;
    }
    await sleep(wait);
    wait = Math.min(wait * 2, shared.MAX_POLL_MS);
  }
}

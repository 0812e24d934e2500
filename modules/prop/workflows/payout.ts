/**
 * `payout-<payoutId>` (docs/api.md §1 custody rules, §3.5; docs/architecture.md "Temporal model"): prepares the
 * multisig transaction the firm's owners sign, waits for the operator's authorisation (the
 * `authorizePayout` Update: verified on-chain against the owners and threshold; a bad set is
 * refused and the payout keeps waiting), then waits for the owner to execute it on-chain and
 * records it. The platform never sends the funds itself. The `payout` Query answers the status and
 * what to sign; the `cancelPayout` Update ends a payout that is not paid.
 *
 * It follows the Safe (behind the patch `payout-follows-safe`): a Safe transaction is signed for one
 * Safe nonce, so once the Safe executes any other transaction at that nonce the payout's can never
 * execute. While the payout is `requested` or `authorized` the workflow reads the Safe's nonce and the
 * instance's `payoutExecuted(payoutId)` on its polling cadence (`pollMs`, doubling to 60 s, back to
 * `pollMs` after each change): paid → recorded once, `executed`; unpaid with the Safe past the build's
 * nonce → rebuilt at the Safe's nonce, back to `requested` with the new `safeTx` to sign, and signatures
 * of an earlier build refused as `payout_authorization_stale`. The reads, the rebuild, the authorisation
 * and the cancel take turns (one at a time), so a rebuild never overtakes an authorisation. When Temporal
 * suggests a fresh history, or (patch `payout-history-bound`) the history reaches its bound (`historyBound`,
 * default the worker's `WORKFLOW_HISTORY_BOUND`), the run continues as new with its status. Runs from before
 * the patch `payout-follows-safe` keep their one build and only gain the cancel.
 */
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  patched,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { HistoryBound, readyToContinueAsNew } from '../../../workflows/continue-as-new.js';
import type { PayoutSafeTx } from '../activities/payout.js';
import {
  authorizePayoutUpdate,
  cancelPayoutUpdate,
  payoutQuery,
  type PayoutInput,
  type PayoutStatus,
} from './payout.definitions.js';
import {
  MAX_POLL_MS,
  alreadyExecuted,
  authorizeValidator,
  builtStatus,
  cancelValidator,
  payoutActivities,
  pending,
  typedFailure,
} from './payout.handlers.js';
import { payoutOneBuild } from './payout-one-build.js';

const { preparePayout, authorizePayout, followPayoutSafe, cancelPayout } = payoutActivities;

/** Patch id of following the Safe (rebuild at a new nonce, continue as new); before it a payout had one build. */
const FOLLOWS_SAFE_PATCH = 'payout-follows-safe';
/** Patch id of continuing as new at the history bound too (issue 14); before it only when Temporal suggested it. */
const BOUND_PATCH = 'payout-history-bound';

export async function payoutWorkflow(input: PayoutInput): Promise<PayoutStatus> {
  if (!input.resume && !patched(FOLLOWS_SAFE_PATCH)) return payoutOneBuild(input);
  return payoutFollowingSafe(input);
}

/** The payout following the Safe (module doc). */
async function payoutFollowingSafe(input: PayoutInput): Promise<PayoutStatus> {
  let status = input.resume ?? builtStatus(input.payoutId, await preparePayout(input.tenantId, input.payoutId));
  /** Bumped at each change of `status`: wakes the polling loop and resets its interval. */
  let changes = 0;
  const set = (next: PayoutStatus) => {
    status = next;
    changes++;
  };
  let busy = false;
  /** Runs `fn` once no other read, rebuild, authorisation or cancel runs. */
  const exclusive = async <T>(fn: () => Promise<T>): Promise<T> => {
    // A loop: every waiter whose condition holds is unblocked in the same activation; the first to run takes it.
    while (busy) await condition(() => !busy);
    busy = true;
    try {
      return await fn();
    } finally {
      busy = false;
    }
  };
  const builtNonce = () => status.safeNonce ?? (status.safeTx as PayoutSafeTx).nonce;
  /** One look at the Safe: records the execution, or rebuilds at the Safe's new nonce. */
  const follow = async () => {
    const seen = await followPayoutSafe(input.tenantId, input.payoutId, builtNonce());
    if (seen.kind === 'executed') set({ ...status, status: 'executed', executedTxHash: seen.status.executedTxHash });
    else if (seen.kind === 'rebuilt')
      set({
        ...status,
        status: 'requested',
        safeTx: seen.safeTx,
        safeTxHash: seen.safeTx.safeTxHash,
        safeNonce: seen.safeTx.nonce,
        signers: [],
        superseded: [...(status.superseded ?? []), { nonce: builtNonce(), safeTxHash: status.safeTxHash ?? '' }],
      });
  };

  setHandler(payoutQuery, () => status);
  setHandler(
    authorizePayoutUpdate,
    ({ signatures }) =>
      exclusive(async () => {
        authorizeValidator(() => status)(); // it may have changed while waiting for its turn
        try {
          const earlier = (status.superseded ?? []).map((s) => s.nonce);
          const r = await authorizePayout(
            input.tenantId,
            input.payoutId,
            status.safeTx as PayoutSafeTx,
            signatures as `0x${string}`,
            earlier,
          );
          set({ ...status, status: r.status, signers: r.signers });
          return status;
        } catch (err) {
          const failure = typedFailure(err);
          if (!(failure instanceof ApplicationFailure) || failure.type !== 'payout_authorization_stale') throw failure;
          await follow(); // the Safe may have moved on since the last look: rebuild now, to name the hash to sign
          authorizeValidator(() => status)();
          throw ApplicationFailure.create({
            type: 'payout_authorization_stale',
            message: `${failure.message}; the payout was rebuilt for Safe nonce ${builtNonce()}: sign safeTxHash ${status.safeTxHash}`,
          });
        }
      }),
    { validator: authorizeValidator(() => status) },
  );
  setHandler(
    cancelPayoutUpdate,
    ({ reason }) =>
      exclusive(async () => {
        cancelValidator(() => status)(); // it may have changed while waiting for its turn
        const r = await cancelPayout(input.tenantId, input.payoutId, builtNonce(), reason).catch((err: unknown) => {
          throw typedFailure(err);
        });
        if (r.outcome === 'executed') {
          set({ ...status, status: 'executed', executedTxHash: r.status.executedTxHash });
          throw alreadyExecuted(status);
        }
        set({ ...status, status: 'canceled', cancelReason: reason });
        return status;
      }),
    { validator: cancelValidator(() => status) },
  );

  const pollMs = input.pollMs ?? 2000;
  let wait = pollMs;
  const bound = new HistoryBound(BOUND_PATCH, input.historyBound);
  while (pending(status) && !workflowInfo().continueAsNewSuggested && !(bound.reached && (await bound.check()))) {
    const before = changes;
    await exclusive(follow);
    if (!pending(status)) break;
    const seen = changes;
    const woken = await condition(() => changes !== seen, wait);
    wait = woken || seen !== before ? pollMs : Math.min(wait * 2, MAX_POLL_MS);
  }
  if (pending(status)) {
    await readyToContinueAsNew();
    if (pending(status)) return continueAsNew<typeof payoutWorkflow>({ ...input, ...bound.carried(), resume: status });
  }
  await condition(allHandlersFinished);
  return status;
}

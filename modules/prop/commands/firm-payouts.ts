/**
 * The operator's side of a payout (docs/api.md §4.8, scope `firm:operate`), both Updates on the workflow
 * `payout-<payoutId>`:
 * - `POST /api/v1/firms/{id}/payouts/{payoutId}/authorization`: the owners' multisig signatures, verified on-chain.
 * - `POST /api/v1/firms/{id}/payouts/{payoutId}/cancel`: ends a payout that is not paid (it leaves the ceiling).
 */
import { ApiError } from '../../../domain/errors.js';
import { Payout, type PayoutRow } from '../../../db/entities.js';
import { scoped } from '../../../db/orm.js';
import { authorizePayoutUpdate, cancelPayoutUpdate, payoutWorkflowId } from '../workflows/payout.definitions.js';
import type { PayoutStatus } from '../workflows/payout.definitions.js';
import type { ApiDeps, Caller } from '../../../api/context.js';
import { payoutOf } from '../queries/firms.js';
import { viaWorkflow } from '../../../api/temporal-errors.js';

/** The reason stored when the operator's cancel gives none. */
export const DEFAULT_CANCEL_REASON = 'canceled by the operator';

/**
 * Hands the signatures to the payout's workflow; answers the payout row as stored after it and the
 * workflow's status. @throws ApiError `404 payout_not_found`, `400 payout_authorization_invalid`,
 *   `409 payout_authorization_stale` (signed for a Safe nonce the payout was rebuilt away from; the detail
 *   names the hash to sign), `409 invalid_state` (not awaiting one), `503 service_unavailable`.
 */
export async function authorizePayout(
  deps: ApiDeps,
  caller: Caller,
  firmId: string,
  payoutId: string,
  signatures: string,
) {
  const em = scoped(deps.orm, caller.tenantId);
  const p = await payoutOf(em, firmId, payoutId);
  const live = await viaWorkflow(
    () =>
      deps.temporal.workflow
        .getHandle(payoutWorkflowId(p.id))
        .executeUpdate(authorizePayoutUpdate, { args: [{ signatures }] }),
    new ApiError('invalid_state', `payout ${p.id} is ${p.status}`),
  );
  return { row: await em.findOneOrFail(Payout, { id: p.id }, { refresh: true }), live };
}

/**
 * Cancels a payout that is `requested`, or `authorized` once the Safe has moved past the nonce its signatures
 * are for; answers the row (`canceled`, with `cancelReason`) and the workflow's status.
 * @throws ApiError `404 payout_not_found`; `409 payout_already_executed` (paid on-chain: recorded, not canceled);
 *   `409 payout_cancel_unsafe` (authorized and its signed Safe transaction can still be executed);
 *   `409 invalid_state` (already canceled or rejected); `503 service_unavailable`.
 */
export async function cancelPayout(
  deps: ApiDeps,
  caller: Caller,
  firmId: string,
  payoutId: string,
  reason: string | undefined,
): Promise<{ row: PayoutRow; live: PayoutStatus }> {
  const em = scoped(deps.orm, caller.tenantId);
  const p = await payoutOf(em, firmId, payoutId);
  const closed = new ApiError('invalid_state', `payout ${p.id} is ${p.status}`);
  const live = await viaWorkflow(
    () =>
      deps.temporal.workflow
        .getHandle(payoutWorkflowId(p.id))
        .executeUpdate(cancelPayoutUpdate, { args: [{ reason: reason ?? DEFAULT_CANCEL_REASON }] }),
    closed,
  ).catch(async (err: unknown) => {
    if (err !== closed) throw err;
    // The workflow has ended: say how, from the row as it is now.
    const now = await em.findOneOrFail(Payout, { id: p.id }, { refresh: true });
    throw now.status === 'executed'
      ? new ApiError('payout_already_executed', `payout ${p.id} was executed on-chain in ${now.executedTxHash}`)
      : new ApiError('invalid_state', `payout ${p.id} is ${now.status}`);
  });
  return { row: await em.findOneOrFail(Payout, { id: p.id }, { refresh: true }), live };
}

/**
 * `POST /api/v1/firms/{id}/payouts/{payoutId}/authorization` (docs/api.md §4.8, scope `firm:operate`): the
 * owners' multisig signatures of a payout, verified on-chain by the workflow `payout-<payoutId>`.
 */
import { ApiError } from '../../../domain/errors.js';
import { Payout } from '../../../db/entities.js';
import { scoped } from '../../../db/orm.js';
import { authorizePayoutUpdate, payoutWorkflowId } from '../workflows/payout.definitions.js';
import type { ApiDeps, Caller } from '../../../api/context.js';
import { payoutOf } from '../queries/firms.js';
import { viaWorkflow } from '../../../api/temporal-errors.js';

/**
 * Hands the signatures to the payout's workflow; answers the payout row as stored after it and the
 * workflow's status. @throws ApiError `404 payout_not_found`, `400 payout_authorization_invalid`,
 *   `409 invalid_state` (not awaiting one).
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

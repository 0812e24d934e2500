/**
 * `POST /oms/flatten` and `POST /oms/reverse` (docs/api.md §3.1, §4.4): a batch `batch-<batchId>` cancels
 * the account's working orders, then closes (and for a reverse reopens) positions with reduce-only
 * market legs. Started with an update-with-start that answers the planned legs (early return).
 */
import { ApiError } from '../../../domain/errors.js';
import { Position } from '../../../db/entities.js';
import { scoped } from '../../../db/orm.js';
import { searchAttributes } from '../../../workflows/shared.definitions.js';
import { batchWorkflowId, planUpdate, type BatchInput } from '../workflows/batch.definitions.js';
import { batchWorkflow } from '../workflows/batch.js';
import { targetAccount } from '../../../api/auth/ownership.js';
import type { ApiDeps, Caller } from '../../../api/context.js';
import { batchPlanView } from '../presenters/oms.js';
import { updateWithStart } from './update-with-start.js';

/**
 * Starts the batch `batchId` (from write-id.ts `writeId('bat', …)`) of `accountId` and answers its plan.
 * @throws ApiError `409 invalid_state`, `503 service_unavailable`.
 */
async function startBatch(
  deps: ApiDeps,
  caller: Caller,
  batchId: string,
  kind: BatchInput['kind'],
  accountId: string,
  symbol?: string,
) {
  const input: BatchInput = {
    batchId,
    kind,
    tenantId: caller.tenantId,
    accountId,
    credentialId: caller.credentialId,
    ...(symbol ? { symbol } : {}),
  };
  const plan = await updateWithStart(
    deps,
    planUpdate,
    batchWorkflow,
    {
      workflowId: batchWorkflowId(batchId),
      args: [input],
      conflict: 'USE_EXISTING',
      searchAttributes: searchAttributes({ tenantId: caller.tenantId, accountId }),
    },
    new ApiError('invalid_state', 'the batch ended before it was planned'),
  );
  return batchPlanView(plan);
}

/**
 * Flattens the account (`accountId`, else the credential's) as batch `batchId`: every working order
 * canceled, every position closed. @throws as targetAccount (auth/ownership.ts) and {@link startBatch}.
 */
export async function flatten(deps: ApiDeps, caller: Caller, batchId: string, accountId: string | undefined) {
  const account = await targetAccount(scoped(deps.orm, caller.tenantId), caller, accountId);
  return startBatch(deps, caller, batchId, 'flatten', account.id);
}

/**
 * Reverses the position in `symbol` as batch `batchId`: closes it and opens the same size on the other side.
 * @throws ApiError `409 invalid_state` without an open position, and as targetAccount and {@link startBatch}.
 */
export async function reverse(
  deps: ApiDeps,
  caller: Caller,
  batchId: string,
  body: { symbol: string; accountId?: string },
) {
  const em = scoped(deps.orm, caller.tenantId);
  const { id: accountId } = await targetAccount(em, caller, body.accountId);
  const position = await em.findOne(Position, { accountId, symbol: body.symbol, qty: { $ne: '0' } });
  if (!position) throw new ApiError('invalid_state', `no open position in ${body.symbol} to reverse`);
  return startBatch(deps, caller, batchId, 'reverse', accountId, body.symbol);
}

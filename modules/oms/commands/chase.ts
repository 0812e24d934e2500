/**
 * `POST /oms/chase` (docs/api.md §4.4): chase a working limit order toward the touch. The chase is the
 * workflow `chase-<intentId>`, started with an update-with-start that answers the chase at once
 * (a second chase of the same order attaches to the running one).
 */
import { ApiError } from '../../../domain/errors.js';
import { OrderIntent } from '../../../db/entities.js';
import { scoped } from '../../../db/orm.js';
import { searchAttributes } from '../../../workflows/shared.definitions.js';
import { chaseUpdate, chaseWorkflowId, type ChaseView } from '../workflows/chase.definitions.js';
import { chaseWorkflow } from '../workflows/chase.js';
import type { ApiDeps, Caller } from '../../../api/context.js';
import { updateWithStart } from './update-with-start.js';

/**
 * Starts (or joins) the chase of the caller's working limit order `intentId`: at most `maxAttempts`
 * cancel-replaces, the touch looked at every `intervalMs` ms.
 * @throws ApiError `404 intent_not_found`, `409 invalid_state` (not a working limit order, or the chase ended), `503 service_unavailable`.
 */
export async function startChase(
  deps: ApiDeps,
  caller: Caller,
  body: { intentId: string; maxAttempts: number; intervalMs: number },
): Promise<ChaseView> {
  const intent = await scoped(deps.orm, caller.tenantId).findOne(OrderIntent, {
    id: body.intentId,
    credentialId: caller.credentialId,
  });
  if (!intent) throw new ApiError('intent_not_found', `no intent ${body.intentId} for this credential`);
  if (intent.type !== 'limit' || intent.orderStatus !== 'open') {
    throw new ApiError(
      'invalid_state',
      `intent ${intent.id} is not a working limit order (${intent.type}, ${intent.orderStatus ?? intent.state})`,
    );
  }
  const chase = {
    chaseId: `chs_${intent.id.replace(/^int_/, '')}`,
    intentId: intent.id,
    maxAttempts: body.maxAttempts,
    intervalMs: body.intervalMs,
  };
  return updateWithStart(
    deps,
    chaseUpdate,
    chaseWorkflow,
    {
      workflowId: chaseWorkflowId(intent.id),
      args: [chase],
      conflict: 'USE_EXISTING',
      searchAttributes: searchAttributes(intent),
    },
    new ApiError('invalid_state', `the chase of ${intent.id} has ended`),
  );
}

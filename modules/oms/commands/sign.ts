/**
 * `POST /oms/intents/{id}/sign-result` (docs/api.md §3.1): the caller's signature of an
 * `intent_pending` intent, through its workflow's `signResult` Update; answers once it is dispatched.
 */
import { ApiError } from '../../../domain/errors.js';
import { OrderIntent } from '../../../db/entities.js';
import { scoped } from '../../../db/orm.js';
import { intentWorkflowId, signResultUpdate, type SignResult } from '../workflows/intent.definitions.js';
import type { ApiDeps, Caller } from '../../../api/context.js';
import { viaWorkflow } from '../../../api/temporal-errors.js';

/** How long a batch leg's sign waits for its workflow to start after its predecessor dispatched (ms). */
const BATCH_LEG_WAIT_MS = 10_000;

/**
 * Signs the caller's own `intent_pending` intent. A batch leg signs only after the leg before it
 * dispatched; its workflow starts right after that, so the sign retries for a moment.
 * @throws ApiError `404 intent_not_found`, `409 invalid_state`, `409 batch_predecessor_pending`,
 *   `400 invalid_signature` (from the workflow), `503 service_unavailable`.
 */
export async function signIntent(
  deps: ApiDeps,
  caller: Caller,
  intentId: string,
  signedPayload: { signature: string },
): Promise<SignResult> {
  const em = scoped(deps.orm, caller.tenantId);
  const intent = await em.findOne(OrderIntent, { id: intentId, credentialId: caller.credentialId });
  if (!intent) throw new ApiError('intent_not_found', `no intent ${intentId} for this credential`);
  if (intent.state !== 'intent_pending')
    throw new ApiError('invalid_state', `intent ${intent.id} is ${intent.state}: only intent_pending can be signed`);
  if (intent.batchId && intent.batchLeg) {
    const before = await em.findOne(
      OrderIntent,
      { batchId: intent.batchId, batchLeg: { $lt: intent.batchLeg } },
      { orderBy: { batchLeg: 'desc' } },
    );
    if (before && (before.state === 'intent_pending' || before.state === 'signed_pending_dispatch')) {
      const detail = `leg ${before.batchLeg} (${before.id}) of batch ${intent.batchId} has not dispatched yet; sign this leg after it lands`;
      throw new ApiError('batch_predecessor_pending', detail);
    }
  }
  const sign = () =>
    deps.temporal.workflow
      .getHandle(intentWorkflowId(intent.id))
      .executeUpdate(signResultUpdate, { args: [signedPayload] });
  for (let waited = 0; ; waited += 100) {
    try {
      return await viaWorkflow(sign, new ApiError('invalid_state', `intent ${intent.id} is no longer pending`));
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 'invalid_state' && intent.batchId && waited < BATCH_LEG_WAIT_MS))
        throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

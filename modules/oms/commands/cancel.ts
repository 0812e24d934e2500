/**
 * `POST /oms/cancel` and `POST /oms/cancel-all` (docs/api.md §4.4): cancel working orders through their
 * intents' `cancel` Update. Called once PostgreSQL shows the order open (or, by intent id, its dispatch
 * under way); a workflow that has not yet applied that dispatch waits for it (modules/oms/workflows/intent-run.ts).
 */
import { ApiError } from '../../../domain/errors.js';
import { Account, OrderIntent } from '../../../db/entities.js';
import { scoped } from '../../../db/orm.js';
import { cancelUpdate, intentWorkflowId, type CancelResult } from '../workflows/intent.definitions.js';
import { targetAccount } from '../../../api/auth/ownership.js';
import type { ApiDeps, Caller } from '../../../api/context.js';
import { viaWorkflow } from '../../../api/temporal-errors.js';

/** Cancels the working order of one intent. @throws ApiError `409 invalid_state` when it is no longer working, `503 service_unavailable`. */
function cancelIntent(deps: ApiDeps, intentId: string): Promise<CancelResult> {
  return viaWorkflow(
    () => deps.temporal.workflow.getHandle(intentWorkflowId(intentId)).executeUpdate(cancelUpdate),
    new ApiError('invalid_state', `intent ${intentId} is no longer working: nothing to cancel`),
  );
}

/**
 * Whether the intent's workflow still runs although PostgreSQL no longer shows its order working: a cancel
 * whose Update was lost (the Temporal server restarted after the workflow had written the cancel, before the
 * Update was accepted; found by `npm run chaos`) left the row canceled and the workflow resting. The retried
 * cancel goes to the workflow, which applies it idempotently and ends.
 */
async function workflowStillRuns(deps: ApiDeps, intentId: string): Promise<boolean> {
  const described = await deps.temporal.workflow
    .getHandle(intentWorkflowId(intentId))
    .describe()
    .catch(() => null);
  return described?.status.name === 'RUNNING';
}

/**
 * Cancels the caller's working order with this venue order id. Venue order ids are unique per venue
 * only: the caller's own working order wins among equal ids, then the caller's own newest. Another
 * trader's order is answered as an unknown one (404), so an id says nothing about whether it exists.
 * @throws ApiError `404 order_not_found`, `409 invalid_state`, `503 service_unavailable`.
 */
export async function cancelOrder(deps: ApiDeps, caller: Caller, venueOrderId: string) {
  const em = scoped(deps.orm, caller.tenantId);
  const matches = await em.find(OrderIntent, { venueOrderId }, { orderBy: { createdAt: 'desc' } });
  const owned = (await em.find(Account, { id: { $in: matches.map((m) => m.accountId) }, ownerId: caller.ownerId })).map(
    (a) => a.id,
  );
  const mine = matches.filter((m) => owned.includes(m.accountId));
  const intent = mine.find((m) => m.orderStatus === 'open') ?? mine[0];
  if (!intent) throw new ApiError('order_not_found', `no order ${venueOrderId}`);
  if (intent.orderStatus !== 'open' && !(await workflowStillRuns(deps, intent.id)))
    throw new ApiError(
      'invalid_state',
      `order ${venueOrderId} is ${intent.orderStatus ?? intent.state}: nothing to cancel`,
    );
  return { ok: true as const, ...(await cancelIntent(deps, intent.id)) };
}

/**
 * Cancels the working order of the caller's intent `intentId` (one of an account its owner holds, as
 * {@link cancelOrder}); an intent whose dispatch is under way is canceled once it rests.
 * @throws ApiError `404 intent_not_found` (unknown, or another trader's: the same answer),
 *   `409 agent_not_dispatchable` (never signed, so never dispatched), `409 invalid_state` (no longer
 *   working), `503 service_unavailable`.
 */
export async function cancelIntentOrder(deps: ApiDeps, caller: Caller, intentId: string) {
  const em = scoped(deps.orm, caller.tenantId);
  const intent = await em.findOne(OrderIntent, { id: intentId });
  if (!intent || !(await em.count(Account, { id: intent.accountId, ownerId: caller.ownerId })))
    throw new ApiError('intent_not_found', `no intent ${intentId}`);
  if (intent.state === 'intent_pending')
    throw new ApiError(
      'agent_not_dispatchable',
      `intent ${intentId} was never signed, so it was never dispatched: there is no order to cancel`,
    );
  if (
    intent.orderStatus !== 'open' &&
    intent.state !== 'signed_pending_dispatch' &&
    !(await workflowStillRuns(deps, intent.id))
  )
    throw new ApiError(
      'invalid_state',
      `intent ${intentId} is ${intent.orderStatus ?? intent.state}: nothing to cancel`,
    );
  return { ok: true as const, ...(await cancelIntent(deps, intent.id)) };
}

/**
 * Cancels every working order of the account (of `symbol` only, when given), oldest first, all at
 * once; answers what was canceled and what could not be (with the error code).
 * @throws ApiError as targetAccount (auth/ownership.ts).
 */
export async function cancelAll(deps: ApiDeps, caller: Caller, body: { accountId?: string; symbol?: string }) {
  const em = scoped(deps.orm, caller.tenantId);
  const { id: accountId } = await targetAccount(em, caller, body.accountId);
  const open = await em.find(
    OrderIntent,
    { accountId, orderStatus: 'open', ...(body.symbol ? { symbol: body.symbol } : {}) },
    { orderBy: { createdAt: 'asc' } },
  );
  const results = await Promise.allSettled(open.map((i) => cancelIntent(deps, i.id)));
  return {
    accountId,
    canceled: open
      .filter((_, k) => results[k].status === 'fulfilled')
      .map((i) => ({ intentId: i.id, venueOrderId: i.venueOrderId ?? null })),
    failed: open.flatMap((i, k) => {
      const r = results[k];
      return r.status === 'rejected'
        ? [
            {
              intentId: i.id,
              venueOrderId: i.venueOrderId ?? null,
              error: r.reason instanceof ApiError ? r.reason.code : 'internal_error',
            },
          ]
        : [];
    }),
  };
}

/**
 * Webhook endpoints (docs/api.md §6.4; operator audience, scope `tenant:config`). Deliveries:
 * modules/webhooks/activities/delivery.ts (body and headers), modules/webhooks/workflows/webhook.ts (retries),
 * worker/webhook-dispatcher.ts (which events go where). Signing secrets are sealed with the custody
 * key ring and shown once.
 */
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../../../domain/errors.js';
import { seal, type KeyRing } from '../../../domain/custody/vault.js';
import { newId } from '../../../domain/ids.js';
import { forbiddenUrlTarget } from '../../../domain/webhooks/target.js';
import { WebhookDelivery, WebhookEndpoint, type WebhookEndpointRow } from '../../../db/entities.js';
import { scoped } from '../../../db/orm.js';
import { webhookWorkflowId, type WebhookInput } from '../workflows/webhook.definitions.js';
import { webhookWorkflow } from '../workflows/webhook.js';
import type { ApiDeps, Caller } from '../../../api/context.js';
import { assertPlanFeature } from '../../tenants/queries/entitlements.js';
import { requireRing } from '../../custody/commands/ring.js';

const newSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;

/** The key ring that seals secrets. @throws ApiError `503 custody_unconfigured` without one. */
const sealing = (ring: KeyRing | null): KeyRing => requireRing(ring, 'webhook secrets cannot be sealed');

/** The tenant's endpoint `id` (`em` is tenant-scoped). @throws ApiError `404 webhook_not_found`. */
export async function endpointOf(em: EntityManager, id: string): Promise<WebhookEndpointRow> {
  const row = await em.findOne(WebhookEndpoint, { id });
  if (!row) throw new ApiError('webhook_not_found', `no webhook endpoint ${id}`);
  return row;
}

/**
 * Refuses a `url` whose host is a loopback, private, link-local, multicast, unspecified or reserved
 * address, or a `localhost` name (domain/webhooks/target.ts), unless WEBHOOK_ALLOW_PRIVATE=true.
 * Names are not resolved here: the delivery checks the addresses they resolve to.
 * @throws ApiError `400 webhook_target_forbidden`, its detail naming the host and its range.
 */
function checkTarget(deps: ApiDeps, url: string): void {
  const forbidden = deps.config.webhooks.allowPrivate ? null : forbiddenUrlTarget(url);
  if (forbidden)
    throw new ApiError(
      'webhook_target_forbidden',
      `url ${url} targets a ${forbidden.range} host (${forbidden.host}); loopback, private, link-local, multicast, unspecified and reserved targets are refused unless WEBHOOK_ALLOW_PRIVATE=true`,
    );
}

/**
 * Registers an endpoint for the account events that happen after now; answers it with its new secret.
 * @throws ApiError `400 webhook_target_forbidden` (a non-public `url` while WEBHOOK_ALLOW_PRIVATE is not true; nothing is written),
 *   `403 plan_feature_unavailable` (the tenant's plan has no `webhooks`, docs/api.md §2.4), `503 custody_unconfigured`.
 */
export async function createEndpoint(
  deps: ApiDeps,
  ring: KeyRing | null,
  caller: Caller,
  body: { url: string; events: string[]; apiKey?: string },
) {
  checkTarget(deps, body.url);
  await assertPlanFeature(deps.auth, caller.tenantId, 'webhooks');
  const r = sealing(ring);
  const em = scoped(deps.orm, caller.tenantId);
  const secret = newSecret();
  // The dispatcher's cursor starts at the oldest transaction still running: events committed before are not
  // delivered, every later one (and one whose transaction is still open) is (worker/webhook-dispatcher.ts).
  const [{ xmin }] = await em
    .getConnection()
    .execute<{ xmin: string }[]>('select pg_snapshot_xmin(pg_current_snapshot())::text as xmin');
  const fields = {
    id: newId('whe'),
    tenantId: caller.tenantId,
    url: body.url,
    events: body.events,
    sealedSecret: seal(r, secret),
  };
  const row = em.create(
    WebhookEndpoint,
    {
      ...fields,
      sealedApiKey: body.apiKey ? seal(r, body.apiKey) : null,
      status: 'enabled',
      lastXactId: xmin,
      lastEventId: '0',
    },
    { partial: true },
  );
  await em.flush();
  return { row, secret };
}

/** Disables an endpoint (deliveries in backoff stop at their next attempt). @throws as {@link endpointOf}. */
export async function disableEndpoint(deps: ApiDeps, caller: Caller, id: string): Promise<WebhookEndpointRow> {
  const em = scoped(deps.orm, caller.tenantId);
  const row = await endpointOf(em, id);
  if (row.status === 'enabled')
    Object.assign(row, { status: 'disabled', disabledAt: new Date(), disabledReason: 'disabled by the operator' });
  await em.flush();
  return row;
}

/**
 * Re-enables an endpoint: its failed deliveries are marked pending, then each gets a fresh run of
 * `webhook-<endpointId>-<eventId>` (a run that is just ending as `skipped` is replaced, never
 * attached to); events that happened while disabled follow.
 * @throws ApiError `400 webhook_target_forbidden` when its `url` is refused now (registered while
 *   WEBHOOK_ALLOW_PRIVATE was true; it stays disabled), `403 plan_feature_unavailable` (the tenant's plan has
 *   no `webhooks`; it stays disabled), as {@link endpointOf}.
 */
export async function enableEndpoint(deps: ApiDeps, caller: Caller, id: string): Promise<WebhookEndpointRow> {
  const em = scoped(deps.orm, caller.tenantId);
  const row = await endpointOf(em, id);
  checkTarget(deps, row.url);
  await assertPlanFeature(deps.auth, caller.tenantId, 'webhooks');
  Object.assign(row, { status: 'enabled', disabledAt: null, disabledReason: null });
  await em.flush();
  const failed = await em.find(WebhookDelivery, { endpointId: row.id, status: 'failed' });
  for (const d of failed) d.status = 'pending';
  await em.flush();
  const { dispatchMs: _interval, allowPrivate: _private, ...timing } = deps.config.webhooks;
  for (const d of failed) {
    const input: WebhookInput = { tenantId: row.tenantId, endpointId: row.id, eventId: d.eventId, ...timing };
    await deps.temporal.workflow.start(webhookWorkflow, {
      workflowId: webhookWorkflowId(row.id, d.eventId),
      taskQueue: deps.config.temporal.taskQueue,
      args: [input],
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      workflowIdConflictPolicy: 'TERMINATE_EXISTING',
    });
  }
  return row;
}

/** Replaces the signing secret; answers the endpoint and its new secret. @throws ApiError `503 custody_unconfigured`, as {@link endpointOf}. */
export async function rotateSecret(deps: ApiDeps, ring: KeyRing | null, caller: Caller, id: string) {
  const r = sealing(ring);
  const em = scoped(deps.orm, caller.tenantId);
  const row = await endpointOf(em, id);
  const secret = newSecret();
  Object.assign(row, { sealedSecret: seal(r, secret), secretRotatedAt: new Date() });
  await em.flush();
  return { row, secret };
}

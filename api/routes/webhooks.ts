/**
 * Webhook endpoints (docs/api.md §6.4; operator audience, scope `tenant:config`). Deliveries:
 * activities/webhooks/delivery.ts (body and headers), workflows/webhook.ts (retries),
 * worker/webhook-dispatcher.ts (which events go where). Receivers verify with
 * domain/webhooks/signature.ts.
 *
 * - `POST /api/v1/webhooks` `{ url, events?, apiKey? }` → 201 endpoint with `secret` (shown once).
 *   It receives the account events that happen after it is created.
 * - `GET /api/v1/webhooks`, `GET /api/v1/webhooks/{id}` (never a secret).
 * - `POST /api/v1/webhooks/{id}/disable` → disabled (deliveries in backoff stop at their next attempt).
 * - `POST /api/v1/webhooks/{id}/enable` → enabled; the failed deliveries start again, and events
 *   that happened while disabled follow.
 * - `POST /api/v1/webhooks/{id}/rotate-secret` → the endpoint with its new `secret` (shown once).
 * - `GET /api/v1/webhooks/{id}/deliveries` → `{ data }`, the latest 200.
 * `503 custody_unconfigured` without the key ring that seals secrets; `404 webhook_not_found`;
 * `400 webhook_target_forbidden` for a loopback `url` while WEBHOOK_ALLOW_LOOPBACK is off (the
 * default with NODE_ENV=production; README "Configuration checks").
 */
import Router from '@koa/router';
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../../domain/errors.js';
import { WebhookDelivery, WebhookEndpoint, type WebhookEndpointRow } from '../../db/entities.js';
import { scoped } from '../../db/orm.js';
import { loopbackHost } from '../../domain/webhooks/target.js';
import { parseKeyRing, seal, type KeyRing } from '../../activities/custody/vault.js';
import { webhookWorkflowId, type WebhookInput } from '../../workflows/definitions.js';
import { callerOf, gate } from '../middleware/auth.js';
import type { ApiContext, ApiDeps, ApiState } from '../context.js';
import type { OpenApiRegistry } from '../openapi.js';
import { endpoint } from '../route.js';
import { listQuery } from './operator-common.schemas.js';
import { newestFirst } from './operator-list.js';
import { createEndpointBody, deliveryView, endpointPage, endpointParams, endpointView, endpointWithSecret } from './webhooks.schemas.js';

/** An endpoint as the API shows it (never its secret or API key). */
export function toEndpointView(e: WebhookEndpointRow) {
  return {
    id: e.id,
    url: e.url,
    events: e.events,
    status: e.status as 'enabled' | 'disabled',
    disabledReason: e.disabledReason ?? null,
    disabledAt: e.disabledAt?.toISOString() ?? null,
    hasApiKey: e.sealedApiKey != null,
    secretRotatedAt: e.secretRotatedAt?.toISOString() ?? null,
    createdAt: new Date(e.createdAt).toISOString(),
  };
}

const newSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;

export function webhookRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1' });
  const tags = ['webhooks'];
  const read = gate({ audience: 'operator', scope: 'tenant:config' });
  const write = gate({ audience: 'operator', scope: 'tenant:config', write: true });
  const em = (ctx: ApiContext) => scoped(deps.orm, callerOf(ctx).tenantId);
  const ring: KeyRing | null = deps.config.agentKeyEncryptionKeys ? parseKeyRing(deps.config.agentKeyEncryptionKeys) : null;
  const sealing = (): KeyRing => {
    if (!ring) throw new ApiError('custody_unconfigured', 'AGENT_KEY_ENCRYPTION_KEYS is not set: webhook secrets cannot be sealed');
    return ring;
  };
  async function one(e: EntityManager, id: string): Promise<WebhookEndpointRow> {
    const row = await e.findOne(WebhookEndpoint, { id });
    if (!row) throw new ApiError('webhook_not_found', `no webhook endpoint ${id}`);
    return row;
  }

  endpoint(router, openapi, { method: 'post', path: '/webhooks', summary: 'Register a webhook endpoint; the signing secret is shown once', tags, gate: write, requires: 'tenant:config', schemas: { body: createEndpointBody }, responses: { '201': { description: 'Endpoint and secret', schema: endpointWithSecret } } }, async (ctx, { body }) => {
    const loopback = deps.config.webhooks.allowLoopback ? null : loopbackHost(body.url);
    if (loopback) throw new ApiError('webhook_target_forbidden', `url ${body.url} targets the platform's own host (${loopback}); loopback targets are refused while WEBHOOK_ALLOW_LOOPBACK is off`);
    const r = sealing();
    const e = em(ctx);
    const secret = newSecret();
    const [{ max }] = await e.getConnection().execute<{ max: string | null }[]>('select max(id)::text as max from account_events where tenant_id = ?', [callerOf(ctx).tenantId]);
    const row = e.create(WebhookEndpoint, { id: `whe_${randomBytes(8).toString('hex')}`, tenantId: callerOf(ctx).tenantId, url: body.url, events: body.events, sealedSecret: seal(r, secret), sealedApiKey: body.apiKey ? seal(r, body.apiKey) : null, status: 'enabled', lastEventId: max ?? '0' }, { partial: true });
    await e.flush();
    ctx.status = 201;
    ctx.body = { ...toEndpointView(row), secret };
  });

  endpoint(router, openapi, { method: 'get', path: '/webhooks', summary: 'Webhook endpoints, newest first', tags, gate: read, requires: 'tenant:config', schemas: { query: listQuery }, responses: { '200': { description: 'Page', schema: endpointPage } } }, async (ctx, { query }) => {
    ctx.body = await newestFirst(em(ctx), WebhookEndpoint, {}, query, toEndpointView);
  });

  endpoint(router, openapi, { method: 'get', path: '/webhooks/:id', summary: 'One webhook endpoint', tags, gate: read, requires: 'tenant:config', schemas: { params: endpointParams }, responses: { '200': { description: 'Endpoint', schema: endpointView } } }, async (ctx, { params }) => {
    ctx.body = toEndpointView(await one(em(ctx), params.id));
  });

  endpoint(router, openapi, { method: 'post', path: '/webhooks/:id/disable', summary: 'Disable an endpoint', tags, gate: write, requires: 'tenant:config', schemas: { params: endpointParams }, responses: { '200': { description: 'Endpoint', schema: endpointView } } }, async (ctx, { params }) => {
    const e = em(ctx);
    const row = await one(e, params.id);
    if (row.status === 'enabled') Object.assign(row, { status: 'disabled', disabledAt: new Date(), disabledReason: 'disabled by the operator' });
    await e.flush();
    ctx.body = toEndpointView(row);
  });

  endpoint(router, openapi, { method: 'post', path: '/webhooks/:id/enable', summary: 'Re-enable an endpoint: failed deliveries start again', tags, gate: write, requires: 'tenant:config', schemas: { params: endpointParams }, responses: { '200': { description: 'Endpoint', schema: endpointView } } }, async (ctx, { params }) => {
    const e = em(ctx);
    const row = await one(e, params.id);
    Object.assign(row, { status: 'enabled', disabledAt: null, disabledReason: null });
    await e.flush();
    // Failed deliveries start again: marked pending first, then a fresh run each (a run that is
    // just ending as `skipped` is replaced, never attached to).
    const failed = await e.find(WebhookDelivery, { endpointId: row.id, status: 'failed' });
    for (const d of failed) d.status = 'pending';
    await e.flush();
    const { dispatchMs: _interval, ...timing } = deps.config.webhooks;
    for (const d of failed) {
      const input: WebhookInput = { tenantId: row.tenantId, endpointId: row.id, eventId: d.eventId, ...timing };
      await deps.temporal.workflow.start('webhookWorkflow', { workflowId: webhookWorkflowId(row.id, d.eventId), taskQueue: deps.config.temporal.taskQueue, args: [input], workflowIdReusePolicy: 'ALLOW_DUPLICATE', workflowIdConflictPolicy: 'TERMINATE_EXISTING' });
    }
    ctx.body = toEndpointView(row);
  });

  endpoint(router, openapi, { method: 'post', path: '/webhooks/:id/rotate-secret', summary: 'Rotate the signing secret; the new one is shown once', tags, gate: write, requires: 'tenant:config', schemas: { params: endpointParams }, responses: { '200': { description: 'Endpoint and secret', schema: endpointWithSecret } } }, async (ctx, { params }) => {
    const r = sealing();
    const e = em(ctx);
    const row = await one(e, params.id);
    const secret = newSecret();
    Object.assign(row, { sealedSecret: seal(r, secret), secretRotatedAt: new Date() });
    await e.flush();
    ctx.body = { ...toEndpointView(row), secret };
  });

  endpoint(router, openapi, { method: 'get', path: '/webhooks/:id/deliveries', summary: 'The latest deliveries of an endpoint', tags, gate: read, requires: 'tenant:config', schemas: { params: endpointParams }, responses: { '200': { description: '{ data }', schema: deliveryView.array() } } }, async (ctx, { params }) => {
    const e = em(ctx);
    const row = await one(e, params.id);
    const rows = await e.find(WebhookDelivery, { endpointId: row.id }, { orderBy: { updatedAt: 'desc' }, limit: 200 });
    ctx.body = { data: rows.map((d) => ({ eventId: d.eventId, status: d.status as 'pending', attempts: d.attempts, lastStatus: d.lastStatus ?? null, lastError: d.lastError ?? null, deliveredAt: d.deliveredAt?.toISOString() ?? null, updatedAt: new Date(d.updatedAt).toISOString() })) };
  });

  return router;
}

/**
 * `/api/v1/webhooks*`: webhook endpoints (docs/api.md §6.4; operator audience, scope `tenant:config`).
 * The work: modules/webhooks/commands/endpoints.ts; receivers verify with domain/webhooks/signature.ts.
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
 * `400 webhook_target_forbidden` for a `url` on a loopback, private, link-local, multicast,
 * unspecified or reserved address (or `localhost`) unless WEBHOOK_ALLOW_PRIVATE=true (refused with
 * NODE_ENV=production; README "Configuration checks"); deliveries check resolved names again.
 */
import Router from '@koa/router';
import { WebhookDelivery, WebhookEndpoint } from '../../../db/entities.js';
import { custodyRing } from '../../custody/commands/ring.js';
import { createEndpoint, disableEndpoint, enableEndpoint, endpointOf, rotateSecret } from '../commands/endpoints.js';
import type { ApiContext, ApiDeps, ApiState } from '../../../api/context.js';
import { callerOf, gate, callerEm } from '../../../api/middleware/auth.js';
import type { OpenApiRegistry } from '../../../api/openapi.js';
import { toDeliveryView, toEndpointView } from '../presenters/webhooks.js';
import { newestFirst } from '../../../api/operator-list.js';
import { routesOf } from '../../../api/route.js';
import { listQuery } from '../../../api/operator-common.schemas.js';
import {
  createEndpointBody,
  deliveryList,
  endpointPage,
  endpointParams,
  endpointView,
  endpointWithSecret,
} from './webhooks.schemas.js';

/** The latest deliveries shown per endpoint. */
const DELIVERIES_SHOWN = 200;

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function webhookRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1' });
  const tags = ['webhooks'];
  const read = gate({ audience: 'operator', scope: 'tenant:config' });
  const write = gate({ audience: 'operator', scope: 'tenant:config', write: true });
  const requires = 'tenant:config';
  const em = (ctx: ApiContext) => callerEm(deps.orm, ctx);
  const ring = custodyRing(deps);

  const route = routesOf(router, openapi, { tags, requires });

  route
    .post('/webhooks', 'Register a webhook endpoint; the signing secret is shown once', write)
    .input({ body: createEndpointBody })
    .answers({ '201': { description: 'Endpoint and secret', schema: endpointWithSecret } })
    .handle(async (ctx, { body }) => {
      const { row, secret } = await createEndpoint(deps, ring, callerOf(ctx), body);
      ctx.status = 201;
      ctx.body = { ...toEndpointView(row), secret };
    });

  route
    .get('/webhooks', 'Webhook endpoints, newest first', read)
    .input({ query: listQuery })
    .answers({ '200': { description: 'Page', schema: endpointPage } })
    .handle(async (ctx, { query }) => {
      ctx.body = await newestFirst(em(ctx), WebhookEndpoint, {}, query, toEndpointView);
    });

  route
    .get('/webhooks/:id', 'One webhook endpoint', read)
    .input({ params: endpointParams })
    .answers({ '200': { description: 'Endpoint', schema: endpointView } })
    .handle(async (ctx, { params }) => {
      ctx.body = toEndpointView(await endpointOf(em(ctx), params.id));
    });

  /** The two state changes of an endpoint: `POST /webhooks/{id}/<action>` → the endpoint. */
  const STATE_CHANGES = [
    { action: 'disable', summary: 'Disable an endpoint', run: disableEndpoint },
    { action: 'enable', summary: 'Re-enable an endpoint: failed deliveries start again', run: enableEndpoint },
  ] as const;
  for (const { action, summary, run } of STATE_CHANGES) {
    route
      .post(`/webhooks/:id/${action}`, summary, write)
      .input({ params: endpointParams })
      .answers({ '200': { description: 'Endpoint', schema: endpointView } })
      .handle(async (ctx, { params }) => {
        ctx.body = toEndpointView(await run(deps, callerOf(ctx), params.id));
      });
  }

  route
    .post('/webhooks/:id/rotate-secret', 'Rotate the signing secret; the new one is shown once', write)
    .input({ params: endpointParams })
    .answers({ '200': { description: 'Endpoint and secret', schema: endpointWithSecret } })
    .handle(async (ctx, { params }) => {
      const { row, secret } = await rotateSecret(deps, ring, callerOf(ctx), params.id);
      ctx.body = { ...toEndpointView(row), secret };
    });

  route
    .get('/webhooks/:id/deliveries', 'The latest deliveries of an endpoint', read)
    .input({ params: endpointParams })
    .answers({ '200': { description: '{ data }', schema: deliveryList } })
    .handle(async (ctx, { params }) => {
      const e = em(ctx);
      const row = await endpointOf(e, params.id);
      const rows = await e.find(
        WebhookDelivery,
        { endpointId: row.id },
        { orderBy: { updatedAt: 'desc' }, limit: DELIVERIES_SHOWN },
      );
      ctx.body = { data: rows.map(toDeliveryView) };
    });

  return router;
}

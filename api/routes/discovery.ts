/**
 * `GET /api/v1/discovery` (docs/api.md §4.2, §9): the endpoint catalog, every route of the route table with
 * its access (audience, tier, scope), the auth and WebSocket entry points and the API documents; no auth,
 * no tenant (api/presenters/discovery.ts).
 */
import Router from '@koa/router';
import type { ApiState } from '../context.js';
import type { OpenApiRegistry } from '../openapi.js';
import { discovery } from '../presenters/discovery.js';
import { routesOf } from '../route.js';
import { discoveryView } from './discovery.schemas.js';

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function discoveryRoutes(openapi: OpenApiRegistry, baseUrl: () => string): Router<ApiState> {
  const router = new Router<ApiState>();
  let served: { base: string; json: string } | undefined;
  const route = routesOf(router, openapi, { tags: ['discovery'] });

  route
    .get(
      '/api/v1/discovery',
      'Endpoint catalog: every route with its access (audience, tier, scope); no auth, no tenant',
    )
    .answers({ '200': { description: 'Catalog', schema: discoveryView } })
    .handle(async (ctx) => {
      // The route table is complete once the app is built: the catalog is serialised once per base URL.
      const base = baseUrl();
      if (served?.base !== base) served = { base, json: JSON.stringify(discovery(base, openapi.routes())) };
      ctx.type = 'application/json';
      ctx.body = served.json;
    });
  return router;
}

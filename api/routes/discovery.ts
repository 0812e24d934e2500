/**
 * `GET /api/v1/discovery` (docs/api.md §4.2, §9): the partial endpoint catalog with each endpoint's tier,
 * the auth and WebSocket entry points and the API documents; no auth, no tenant (api/presenters/discovery.ts).
 */
import Router from '@koa/router';
import type { ApiState } from '../context.js';
import type { OpenApiRegistry } from '../openapi.js';
import { discovery } from '../presenters/discovery.js';
import { endpoint } from '../route.js';

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function discoveryRoutes(openapi: OpenApiRegistry, baseUrl: () => string): Router<ApiState> {
  const router = new Router<ApiState>();
  endpoint(
    router,
    openapi,
    {
      method: 'get',
      path: '/api/v1/discovery',
      summary: "Partial endpoint catalog with each endpoint's tier (no auth, no tenant)",
      tags: ['discovery'],
      schemas: {},
      responses: { '200': { description: 'Catalog' } },
    },
    async (ctx) => {
      ctx.body = discovery(baseUrl());
    },
  );
  return router;
}

/** `GET /api/v1/openapi.json` (docs/api.md §9): the OpenAPI 3.1 document of every endpoint (api/openapi.ts); no auth, no tenant. */
import Router from '@koa/router';
import type { ApiState } from '../context.js';
import type { OpenApiRegistry } from '../openapi.js';

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function openapiRoutes(openapi: OpenApiRegistry, baseUrl: () => string): Router<ApiState> {
  const router = new Router<ApiState>();
  router.get('/api/v1/openapi.json', (ctx) => {
    ctx.body = openapi.document(baseUrl());
  });
  return router;
}

/** `GET /api/v1/openapi.json` (docs/api.md §9): the OpenAPI 3.1 document of every endpoint (api/openapi.ts); no auth, no tenant. */
import Router from '@koa/router';
import type { ApiState } from '../context.js';
import type { OpenApiRegistry } from '../openapi.js';

/**
 * The router of the endpoints listed in this module's header; each one is also registered in `openapi`. The
 * document (about 1 MB, examples included) is built once per base URL, when first asked for: every route is
 * registered before the app serves.
 */
export function openapiRoutes(openapi: OpenApiRegistry, baseUrl: () => string): Router<ApiState> {
  const router = new Router<ApiState>();
  const built = new Map<string, string>();
  router.get('/api/v1/openapi.json', (ctx) => {
    const url = baseUrl();
    let body = built.get(url);
    if (body === undefined) built.set(url, (body = JSON.stringify(openapi.document(url))));
    ctx.type = 'application/json';
    ctx.body = body;
  });
  return router;
}

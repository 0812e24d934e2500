/** `GET /api/v1/asyncapi.json` (docs/api.md §9): the AsyncAPI 3.0 document of the WebSocket channels (api/asyncapi.ts); no auth, no tenant. */
import Router from '@koa/router';
import { asyncApiDocument } from '../asyncapi.js';
import type { ApiState } from '../context.js';

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function asyncapiRoutes(baseUrl: () => string): Router<ApiState> {
  const router = new Router<ApiState>();
  router.get('/api/v1/asyncapi.json', (ctx) => {
    ctx.body = asyncApiDocument(baseUrl());
  });
  return router;
}

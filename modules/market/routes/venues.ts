/** `GET /api/v1/venues` (docs/api.md §4.2): the venue adapters, their asset classes and order types; `paper` is never listed. */
import Router from '@koa/router';
import type { ApiState } from '../../../api/context.js';
import { gate } from '../../../api/middleware/auth.js';
import type { OpenApiRegistry } from '../../../api/openapi.js';
import { VENUE_CATALOG } from '../../../api/presenters/discovery.js';
import { endpoint } from '../../../api/route.js';

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function venueRoutes(openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>();
  endpoint(
    router,
    openapi,
    {
      method: 'get',
      path: '/api/v1/venues',
      summary: 'Venue adapters: slug, asset classes, order types (paper never listed)',
      tags: ['discovery'],
      gate: gate({ audience: 'trader' }),
      schemas: {},
      responses: { '200': { description: '{ venues }' } },
    },
    async (ctx) => {
      ctx.body = { venues: VENUE_CATALOG };
    },
  );
  return router;
}

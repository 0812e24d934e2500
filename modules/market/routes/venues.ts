/**
 * `GET /api/v1/venues` (docs/api.md §4.2): the venue adapters the caller's tenant offers (its `venues`,
 * docs/api.md §2.4), each with the asset classes of its offered symbols and its order types; a venue with
 * no offered symbol, and `paper`, are never listed (modules/market/presenters/venues.ts).
 */
import Router from '@koa/router';
import type { ApiDeps, ApiState } from '../../../api/context.js';
import { callerOf, gate } from '../../../api/middleware/auth.js';
import type { OpenApiRegistry } from '../../../api/openapi.js';
import { routesOf } from '../../../api/route.js';
import { venueCatalog } from '../presenters/venues.js';
import { venueListView } from './venues.schemas.js';

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function venueRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>();
  const route = routesOf(router, openapi, { tags: ['discovery'] });

  route
    .get(
      '/api/v1/venues',
      'Venue adapters your tenant offers: slug, asset classes of their symbols, order types (paper never listed)',
      gate({ audience: 'trader' }),
    )
    .answers({ '200': { description: '{ venues }', schema: venueListView } })
    .handle(async (ctx) => {
      ctx.body = { venues: venueCatalog((await deps.auth.tenantRules(callerOf(ctx).tenantId)).venues) };
    });
  return router;
}

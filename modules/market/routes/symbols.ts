/**
 * `GET /api/v1/symbols/{venue}` (docs/api.md §4.2): the symbols this deployment trades on a venue that the
 * caller's tenant offers (its `venues`, docs/api.md §2.4). Suffixes: `.PAPER` (platform engine), `.HL`
 * (Hyperliquid perps), `.ASTER` (Aster perps), `.PM` (Polymarket outcome tokens, `<MARKET>-<OUTCOME>.PM`),
 * `.KX` (Kalshi market sides, `<TICKER>-<YES|NO>.KX`). A venue the tenant does not enable is
 * `403 venue_not_enabled`; one this deployment does not trade `404 not_found`.
 */
import Router from '@koa/router';
import { z } from 'zod';
import { ApiError } from '../../../domain/errors.js';
import { VENUE_SYMBOLS } from '../../../domain/market/symbols.js';
import { enabledSymbols, venueRefusal } from '../../../domain/tenant/entitlements.js';
import type { ApiDeps, ApiState } from '../../../api/context.js';
import { callerOf, gate } from '../../../api/middleware/auth.js';
import type { OpenApiRegistry } from '../../../api/openapi.js';
import { routesOf } from '../../../api/route.js';
import { symbolView } from '../presenters/venues.js';
import { symbolListView } from './venues.schemas.js';

const symbolParams = z.object({ venue: z.string().min(1).max(32) });

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function symbolRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1/symbols' });
  const route = routesOf(router, openapi, { tags: ['discovery'] });

  route
    .get(
      '/:venue',
      'Tradeable venue-suffixed symbols of one venue, those your tenant offers',
      gate({ audience: 'trader' }),
    )
    .input({ params: symbolParams })
    .answers({ '200': { description: '{ venue, symbols }', schema: symbolListView } })
    .handle(async (ctx, { params }) => {
      const list = VENUE_SYMBOLS[params.venue];
      if (!list) throw new ApiError('not_found', `no symbols for venue ${params.venue} in this deployment`);
      const { venues } = await deps.auth.tenantRules(callerOf(ctx).tenantId);
      const refusal = venueRefusal(venues, params.venue);
      if (refusal) throw refusal;
      ctx.body = { venue: params.venue, symbols: enabledSymbols(venues, params.venue, list).map(symbolView) };
    });
  return router;
}

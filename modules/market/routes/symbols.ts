/**
 * `GET /api/v1/symbols/{venue}` (docs/api.md §4.2): the symbols this deployment trades on a venue.
 * Suffixes: `.PAPER` (platform engine), `.HL` (Hyperliquid perps), `.ASTER` (Aster perps), `.PM`
 * (Polymarket outcome tokens, `<MARKET>-<OUTCOME>.PM`), `.KX` (Kalshi market sides, `<TICKER>-<YES|NO>.KX`).
 */
import Router from '@koa/router';
import { z } from 'zod';
import { ApiError } from '../../../domain/errors.js';
import { VENUE_SYMBOLS } from '../../../domain/market/symbols.js';
import type { ApiState } from '../../../api/context.js';
import { gate } from '../../../api/middleware/auth.js';
import type { OpenApiRegistry } from '../../../api/openapi.js';
import { endpoint } from '../../../api/route.js';

const symbolParams = z.object({ venue: z.string().min(1).max(32) });

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function symbolRoutes(openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1/symbols' });
  endpoint(
    router,
    openapi,
    {
      method: 'get',
      path: '/:venue',
      summary: 'Tradeable venue-suffixed symbols of one venue',
      tags: ['discovery'],
      gate: gate({ audience: 'trader' }),
      schemas: { params: symbolParams },
      responses: { '200': { description: '{ venue, symbols }' } },
    },
    async (ctx, { params }) => {
      const list = VENUE_SYMBOLS[params.venue];
      if (!list) throw new ApiError('not_found', `no symbols for venue ${params.venue} in this deployment`);
      ctx.body = {
        venue: params.venue,
        symbols: list.map((s) => ({
          symbol: s.symbol,
          base: s.base,
          quote: s.quote,
          assetClass: s.assetClass,
          tickSize: s.tickSize,
          szDecimals: s.szDecimals,
          maxLeverage: s.maxLeverage,
          venueSymbol: s.venueSymbol ?? null,
        })),
      };
    },
  );
  return router;
}

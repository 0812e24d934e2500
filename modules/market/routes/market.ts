/**
 * `/api/v1/market/*` (docs/api.md §4.6): quotes, depth (whole and grouped), 24 h stats, candles, tape,
 * FX rates and the recorded Polymarket markets; trader audience. The reads and their errors
 * (`400 symbol_unknown`, `503 cold_cache`, `400 validation_failed`) are modules/market/queries/market.ts
 * and, for candles and stats, modules/market/queries/candles.ts.
 * A pair the caller's tenant does not offer is `403 venue_not_enabled` / `403 symbol_not_enabled`
 * (docs/api.md §2.4; the Polymarket markets list only the outcomes it offers). The bare prefixes are 404.
 */
import Router from '@koa/router';
import { z } from 'zod';
import type { MarketStreams } from '../../../db/market-streams.js';
import type { QuotesHub } from '../../../api/ws/quotes-hub.js';
import type { ApiDeps, ApiMiddleware, ApiState } from '../../../api/context.js';
import { callerOf, gate } from '../../../api/middleware/auth.js';
import type { OpenApiRegistry } from '../../../api/openapi.js';
import { depth, fxRates, groupedDepth, polymarketMarkets, quote, tape, tickerVenue } from '../queries/market.js';
import { candles, stats } from '../queries/candles.js';
import { assertPairEnabled } from '../../tenants/queries/entitlements.js';
import { venueRefusal } from '../../../domain/tenant/entitlements.js';
import { endpoint } from '../../../api/route.js';
import {
  candleQuery,
  candlesView,
  depthQuery,
  depthView,
  fxView,
  groupedQuery,
  pairParams,
  polymarketMarketsView,
  quoteView,
  statsView,
  tapeQuery,
  tapeView,
} from './market.schemas.js';

/** The `503` of a read that needs a mark or a streamed pair not there yet (modules/market/queries/market.ts). */
const COLD_CACHE = {
  description: '`cold_cache`: no mark yet, or the pair’s stream is opening (about 500 ms); retry after `Retry-After`',
  headers: { 'Retry-After': 'Seconds to wait' },
};

/** Market-data routes; `streams` serves depth and tape (the on-demand market streams). */
export function marketRoutes(
  deps: ApiDeps,
  openapi: OpenApiRegistry,
  streams: MarketStreams,
  quotes: Pick<QuotesHub, 'latest'>,
): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1/market' });
  const tags = ['market'];
  const read = gate({ audience: 'trader' });
  /** A `{venue}/{symbol}` route serves only a pair the caller's tenant offers (docs/api.md §2.4). */
  const offered: ApiMiddleware = async (ctx, next) => {
    const { venue, symbol } = (ctx.state.input as { params: { venue: string; symbol: string } }).params;
    await assertPairEnabled(deps.auth, callerOf(ctx).tenantId, venue, symbol);
    await next();
  };

  endpoint(
    router,
    openapi,
    {
      method: 'get',
      path: '/quotes/:venue/:symbol',
      summary: 'Current canonical quote of a pair',
      tags,
      gate: read,
      schemas: { params: pairParams },
      use: [offered],
      responses: { '200': { description: 'Quote', schema: quoteView }, '503': COLD_CACHE },
    },
    async (ctx, { params }) => {
      ctx.body = await quote(deps.orm, params.venue, params.symbol, quotes);
    },
  );

  endpoint(
    router,
    openapi,
    {
      method: 'get',
      path: '/depth/:venue/:symbol',
      summary: 'L2 order-book depth of a pair (the recorded book re-centred on the mark)',
      tags,
      gate: read,
      schemas: { params: pairParams, query: depthQuery },
      use: [offered],
      responses: { '200': { description: 'Depth', schema: depthView }, '503': COLD_CACHE },
    },
    async (ctx, { params, query }) => {
      ctx.body = await depth(streams, params.venue, params.symbol, query.levels);
    },
  );

  endpoint(
    router,
    openapi,
    {
      method: 'get',
      path: '/depth/:venue/:symbol/grouped',
      summary:
        'Depth aggregated into price buckets: `step` USD (a multiple of the tick; default 10 ticks); bids round down, asks up',
      tags,
      gate: read,
      schemas: { params: pairParams, query: groupedQuery },
      use: [offered],
      responses: {
        '200': {
          description: 'Grouped depth',
          schema: depthView.extend({ step: z.string() }).meta({ id: 'GroupedDepth' }),
        },
        '503': COLD_CACHE,
      },
    },
    async (ctx, { params, query }) => {
      ctx.body = await groupedDepth(streams, params.venue, params.symbol, query.step);
    },
  );

  endpoint(
    router,
    openapi,
    {
      method: 'get',
      path: '/stats/:ticker',
      summary:
        'Mark and 24 h statistics of any listed venue-suffixed ticker (BTC.PAPER, BTC.HL, *.PM, *.KX): open, high, low, volume, change over the newest 24 h of its 1m series',
      tags,
      gate: read,
      schemas: { params: z.object({ ticker: z.string().min(1).max(255) }) },
      responses: { '200': { description: 'Stats', schema: statsView }, '503': COLD_CACHE },
    },
    async (ctx, { params }) => {
      const venue = tickerVenue(params.ticker);
      if (venue) await assertPairEnabled(deps.auth, callerOf(ctx).tenantId, venue, params.ticker);
      ctx.body = await stats(deps.orm, params.ticker);
    },
  );

  endpoint(
    router,
    openapi,
    {
      method: 'get',
      path: '/candles/:venue/:symbol',
      summary:
        'OHLCV bars of a pair (docs/api.md §2.9): one continuous series ending at the current mark (perps: recorded history rebased onto the replay clock, then live bars)',
      tags,
      gate: read,
      schemas: { params: pairParams, query: candleQuery },
      use: [offered],
      responses: { '200': { description: 'Candles', schema: candlesView } },
    },
    async (ctx, { params, query }) => {
      ctx.body = await candles(deps.orm, params.venue, params.symbol, query);
    },
  );

  endpoint(
    router,
    openapi,
    {
      method: 'get',
      path: '/tape/:venue/:symbol',
      summary: 'Recent prints of a pair, newest first (docs/api.md §4.6); 503 cold_cache while its stream opens',
      tags,
      gate: read,
      schemas: { params: pairParams, query: tapeQuery },
      use: [offered],
      responses: { '200': { description: 'Tape', schema: tapeView }, '503': COLD_CACHE },
    },
    async (ctx, { params, query }) => {
      ctx.body = await tape(streams, params.venue, params.symbol, query.limit);
    },
  );

  endpoint(
    router,
    openapi,
    {
      method: 'get',
      path: '/fx',
      summary: 'FX rates for accounts not denominated in USD, with their source and time',
      tags,
      gate: read,
      schemas: {},
      responses: { '200': { description: 'Rates', schema: fxView } },
    },
    async (ctx) => {
      ctx.body = fxRates(deps.config.fxRates);
    },
  );

  endpoint(
    router,
    openapi,
    {
      method: 'get',
      path: '/polymarket/markets',
      summary: 'The recorded Polymarket election markets and their outcome symbols (probability units)',
      tags,
      gate: read,
      schemas: {},
      responses: { '200': { description: 'Markets', schema: polymarketMarketsView } },
    },
    async (ctx) => {
      const { venues } = await deps.auth.tenantRules(callerOf(ctx).tenantId);
      const refusal = venueRefusal(venues, 'polymarket');
      if (refusal) throw refusal;
      ctx.body = await polymarketMarkets(venues);
    },
  );

  return router;
}

/**
 * `/api/v1/market/*` (docs/api.md §4.6): quotes, depth (whole and grouped), 24 h stats, candles, tape,
 * FX rates and the recorded Polymarket markets; trader audience. The reads and their errors
 * (`400 symbol_unknown`, `503 cold_cache`, `400 validation_failed`) are modules/market/queries/market.ts.
 * The bare prefixes are 404.
 */
import Router from '@koa/router';
import { z } from 'zod';
import type { MarketStreams } from '../../../db/market-streams.js';
import type { QuotesHub } from '../../../api/ws/quotes-hub.js';
import type { ApiDeps, ApiState } from '../../../api/context.js';
import { gate } from '../../../api/middleware/auth.js';
import type { OpenApiRegistry } from '../../../api/openapi.js';
import { candles, depth, fxRates, groupedDepth, polymarketMarkets, quote, stats, tape } from '../queries/market.js';
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
      responses: { '200': { description: 'Quote', schema: quoteView } },
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
      responses: { '200': { description: 'Depth', schema: depthView } },
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
      responses: {
        '200': {
          description: 'Grouped depth',
          schema: depthView.extend({ step: z.string() }).meta({ id: 'GroupedDepth' }),
        },
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
        'Mark and 24 h statistics of a venue-suffixed ticker (e.g. BTC.PAPER): open, high, low, volume, change over the last 24 h of 1m bars',
      tags,
      gate: read,
      schemas: { params: z.object({ ticker: z.string().min(1).max(255) }) },
      responses: { '200': { description: 'Stats', schema: statsView } },
    },
    async (ctx, { params }) => {
      ctx.body = await stats(deps.orm, params.ticker);
    },
  );

  endpoint(
    router,
    openapi,
    {
      method: 'get',
      path: '/candles/:venue/:symbol',
      summary: 'OHLCV bars of a pair (docs/api.md §2.9): recorded history, then live bars',
      tags,
      gate: read,
      schemas: { params: pairParams, query: candleQuery },
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
      responses: { '200': { description: 'Tape', schema: tapeView } },
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
      ctx.body = await polymarketMarkets();
    },
  );

  return router;
}

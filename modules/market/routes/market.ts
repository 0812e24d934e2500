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
import type { MarketFeeds } from '../../../domain/market/live-venues.js';
import { routesOf } from '../../../api/route.js';
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
  /** What labels the answers' `source`: this deployment's `VENUE_FEEDS` and market-data keys (config.ts). */
  const feeds: MarketFeeds = { venueFeeds: deps.config.venueFeeds, feedKeys: deps.config.venues.feedKeys };
  /** A `{venue}/{symbol}` route serves only a pair the caller's tenant offers (docs/api.md §2.4). */
  const offered: ApiMiddleware = async (ctx, next) => {
    const { venue, symbol } = (ctx.state.input as { params: { venue: string; symbol: string } }).params;
    await assertPairEnabled(deps.auth, callerOf(ctx).tenantId, venue, symbol);
    await next();
  };

  const route = routesOf(router, openapi, { tags });

  route
    .get('/quotes/:venue/:symbol', 'Current canonical quote of a pair', read)
    .input({ params: pairParams })
    .answers({ '200': { description: 'Quote', schema: quoteView }, '503': COLD_CACHE })
    .with({ use: [offered] })
    .handle(async (ctx, { params }) => {
      ctx.body = await quote(deps.orm, params.venue, params.symbol, quotes, feeds);
    });

  route
    .get('/depth/:venue/:symbol', 'L2 order-book depth of a pair (the recorded book re-centred on the mark)', read)
    .input({ params: pairParams, query: depthQuery })
    .answers({ '200': { description: 'Depth', schema: depthView }, '503': COLD_CACHE })
    .with({ use: [offered] })
    .handle(async (ctx, { params, query }) => {
      ctx.body = await depth(streams, params.venue, params.symbol, query.levels);
    });

  route
    .get(
      '/depth/:venue/:symbol/grouped',
      'Depth aggregated into price buckets: `step` USD (a multiple of the tick; default 10 ticks); bids round down, asks up',
      read,
    )
    .input({ params: pairParams, query: groupedQuery })
    .answers({
      '200': {
        description: 'Grouped depth',
        schema: depthView.extend({ step: z.string() }).meta({ id: 'GroupedDepth' }),
      },
      '503': COLD_CACHE,
    })
    .with({ use: [offered] })
    .handle(async (ctx, { params, query }) => {
      ctx.body = await groupedDepth(streams, params.venue, params.symbol, query.step);
    });

  route
    .get(
      '/stats/:ticker',
      'Mark and 24 h statistics of any listed venue-suffixed ticker (BTC.PAPER, BTC.HL, *.PM, *.KX): open, high, low, volume, change over the newest 24 h of its 1m series',
      read,
    )
    .input({ params: z.object({ ticker: z.string().min(1).max(255) }) })
    .answers({ '200': { description: 'Stats', schema: statsView }, '503': COLD_CACHE })
    .handle(async (ctx, { params }) => {
      const venue = tickerVenue(params.ticker);
      if (venue) await assertPairEnabled(deps.auth, callerOf(ctx).tenantId, venue, params.ticker);
      ctx.body = await stats(deps.orm, params.ticker, feeds);
    });

  route
    .get(
      '/candles/:venue/:symbol',
      'OHLCV bars of a pair (docs/api.md §2.9): one continuous series ending at the current mark (perps: recorded history rebased onto the replay clock, then live bars)',
      read,
    )
    .input({ params: pairParams, query: candleQuery })
    .answers({ '200': { description: 'Candles', schema: candlesView } })
    .with({ use: [offered] })
    .handle(async (ctx, { params, query }) => {
      ctx.body = await candles(deps.orm, params.venue, params.symbol, query);
    });

  route
    .get(
      '/tape/:venue/:symbol',
      'Recent prints of a pair, newest first (docs/api.md §4.6); 503 cold_cache while its stream opens',
      read,
    )
    .input({ params: pairParams, query: tapeQuery })
    .answers({ '200': { description: 'Tape', schema: tapeView }, '503': COLD_CACHE })
    .with({ use: [offered] })
    .handle(async (ctx, { params, query }) => {
      ctx.body = await tape(streams, params.venue, params.symbol, query.limit, feeds);
    });

  route
    .get('/fx', 'FX rates for accounts not denominated in USD, with their source and time', read)
    .answers({ '200': { description: 'Rates', schema: fxView } })
    .handle(async (ctx) => {
      ctx.body = fxRates(deps.config.fxRates);
    });

  route
    .get(
      '/polymarket/markets',
      'The recorded Polymarket election markets and their outcome symbols (probability units)',
      read,
    )
    .answers({ '200': { description: 'Markets', schema: polymarketMarketsView } })
    .handle(async (ctx) => {
      const { venues } = await deps.auth.tenantRules(callerOf(ctx).tenantId);
      const refusal = venueRefusal(venues, 'polymarket');
      if (refusal) throw refusal;
      ctx.body = await polymarketMarkets(venues);
    });

  return router;
}

/**
 * `/api/v1/market/*` (spec §4.6), the part served from the canonical marks: the current quote and
 * the L2 depth of a venue symbol. A pair with no mark yet answers `503 cold_cache` (retry after
 * about 500 ms). Candles come from the recorded Hyperliquid 1m and 1h bars (loaded by the worker).
 * The bare prefixes are 404. Grouped depth, tape, stats, fx and live candle aggregation: issue 5.
 */
import Router from '@koa/router';
import { z } from 'zod';
import { ApiError } from '../../domain/errors.js';
import { findSymbol } from '../../domain/market/symbols.js';
import { groupLevels } from '../../domain/market/depth.js';
import { Decimal, fmt } from '../../domain/decimal.js';
import { Mark } from '../../db/entities.js';
import { platformEm } from '../../db/orm.js';
import { gate } from '../middleware/auth.js';
import type { ApiDeps, ApiState } from '../context.js';
import type { OpenApiRegistry } from '../openapi.js';
import { endpoint } from '../route.js';

const pairParams = z.object({ venue: z.string().min(1), symbol: z.string().min(1) });
const quoteView = z
  .object({ venue: z.string(), symbol: z.string(), mark: z.string(), bid: z.string(), ask: z.string(), ts: z.string(), source: z.string() })
  .meta({ id: 'Quote', description: 'Canonical mark (mid of best bid and offer), USD decimal strings' });
const depthQuery = z.object({ levels: z.coerce.number().int().min(1).max(20).default(20).meta({ description: 'Levels per side, 1-20' }) });
const depthView = z
  .object({ venue: z.string(), symbol: z.string(), ts: z.string(), bids: z.array(z.tuple([z.string(), z.string()])), asks: z.array(z.tuple([z.string(), z.string()])) })
  .meta({ id: 'Depth', description: 'L2 book: `[price USD, size contracts]`, bids best first, asks best first' });

const INTERVAL_MS = { '1m': 60_000, '1h': 3_600_000 } as const;
const candleQuery = z.object({
  interval: z.enum(['1m', '1h']).meta({ description: 'Bar length (required)' }),
  limit: z.coerce.number().int().min(1).max(1000).default(100).meta({ description: 'Bars, newest last; 1-1000, default 100' }),
  endTime: z.iso.datetime().optional().meta({ description: 'Last bar opens at or before this time; default: the newest bar' }),
});
const bar = z.object({ openTime: z.string(), closeTime: z.string(), open: z.string(), high: z.string(), low: z.string(), close: z.string(), volume: z.string(), closed: z.boolean() });
const candlesView = z
  .object({ venue: z.string(), symbol: z.string(), interval: z.string(), bars: z.array(bar), source: z.string(), window: z.object({ from: z.string().nullable(), to: z.string().nullable() }), truncated: z.boolean().optional() })
  .meta({ id: 'Candles', description: 'Spec §2.9. Prices USD, volume in contracts (base units), decimal strings. Empty `bars`: no prints in the window.' });

const groupedQuery = z.object({ step: z.string().regex(/^\d+(\.\d+)?$/).optional().meta({ description: 'Bucket size, USD decimal string, a multiple of the tick' }) });
const statsView = z
  .object({
    ticker: z.string(),
    venue: z.string(),
    markPrice: z.string(),
    open24h: z.string().nullable(),
    high24h: z.string().nullable(),
    low24h: z.string().nullable(),
    volume24h: z.string().nullable().meta({ description: 'Contracts (base units)' }),
    change24h: z.string().nullable().meta({ description: 'markPrice − open24h, USD' }),
    changePct24h: z.string().nullable(),
    window: z.object({ from: z.string().nullable(), to: z.string().nullable() }),
    source: z.object({ mark: z.string(), bars: z.string() }),
  })
  .meta({ id: 'Stats', description: 'The 24 h window is the newest 24 h of recorded 1m bars in this deployment (offline data), documented in `window`.' });
/** Venue of a ticker suffix (`BTC.PAPER` → paper). */
const VENUE_OF_SUFFIX: Record<string, string> = { PAPER: 'paper' };

/** Where marks come from in this deployment (documented on every quote). */
export const MARK_SOURCE = 'replay:hyperliquid';

export function marketRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1/market' });
  const tags = ['market'];
  const read = gate({ audience: 'trader' });

  /** The current mark row of a pair. @throws 404 symbol_unknown, 503 cold_cache. */
  async function markOf(venue: string, symbol: string) {
    if (!findSymbol(venue, symbol)) throw new ApiError('symbol_unknown', `unknown pair ${venue}/${symbol}; see GET /api/v1/symbols/${venue}`);
    const row = await platformEm(deps.orm).findOne(Mark, { venue, symbol });
    if (!row) throw new ApiError('cold_cache', `no mark for ${venue}/${symbol} yet; retry in about 500 ms`, {}, { 'Retry-After': '1' });
    return row;
  }

  endpoint(router, openapi, { method: 'get', path: '/quotes/:venue/:symbol', summary: 'Current canonical quote of a pair', tags, gate: read, schemas: { params: pairParams }, responses: { '200': { description: 'Quote', schema: quoteView } } }, async (ctx, { params }) => {
    const m = await markOf(params.venue, params.symbol);
    ctx.body = { venue: m.venue, symbol: m.symbol, mark: m.mark, bid: m.bid, ask: m.ask, ts: m.ts.toISOString(), source: MARK_SOURCE };
  });

  endpoint(router, openapi, { method: 'get', path: '/depth/:venue/:symbol', summary: 'L2 order-book depth of a pair (the recorded book re-centred on the mark)', tags, gate: read, schemas: { params: pairParams, query: depthQuery }, responses: { '200': { description: 'Depth', schema: depthView } } }, async (ctx, { params, query }) => {
    const m = await markOf(params.venue, params.symbol);
    ctx.body = { venue: m.venue, symbol: m.symbol, ts: m.ts.toISOString(), bids: m.book.bids.slice(0, query.levels), asks: m.book.asks.slice(0, query.levels) };
  });

  endpoint(
    router,
    openapi,
    {
      method: 'get',
      path: '/depth/:venue/:symbol/grouped',
      summary: 'Depth aggregated into price buckets: `step` USD (a multiple of the tick; default 10 ticks); bids round down, asks up',
      tags,
      gate: read,
      schemas: { params: pairParams, query: groupedQuery },
      responses: { '200': { description: 'Grouped depth', schema: depthView.extend({ step: z.string() }).meta({ id: 'GroupedDepth' }) } },
    },
    async (ctx, { params, query }) => {
      const m = await markOf(params.venue, params.symbol);
      const tick = new Decimal(findSymbol(params.venue, params.symbol)!.tickSize);
      const step = query.step ? new Decimal(query.step) : tick.times(10);
      if (step.lte(0) || !step.mod(tick).isZero()) throw new ApiError('validation_failed', [{ path: 'query.step', message: `step must be a positive multiple of the tick ${fmt(tick)}`, code: 'step_tick' }]);
      ctx.body = { venue: m.venue, symbol: m.symbol, ts: m.ts.toISOString(), step: fmt(step), bids: groupLevels(m.book.bids, step, 'bids'), asks: groupLevels(m.book.asks, step, 'asks') };
    },
  );

  endpoint(
    router,
    openapi,
    {
      method: 'get',
      path: '/stats/:ticker',
      summary: 'Mark and 24 h statistics of a venue-suffixed ticker (e.g. BTC.PAPER): open, high, low, volume, change over the last 24 h of 1m bars',
      tags,
      gate: read,
      schemas: { params: z.object({ ticker: z.string().min(1) }) },
      responses: { '200': { description: 'Stats', schema: statsView } },
    },
    async (ctx, { params }) => {
      const venue = Object.entries(VENUE_OF_SUFFIX).find(([suffix]) => params.ticker.endsWith(`.${suffix}`))?.[1];
      if (!venue || !findSymbol(venue, params.ticker)) throw new ApiError('symbol_unknown', `unknown ticker ${params.ticker}`);
      const m = await markOf(venue, params.ticker);
      const [agg] = await platformEm(deps.orm)
        .getConnection()
        .execute<{ open: string | null; high: string | null; low: string | null; volume: string | null; from: Date | null; to: Date | null }[]>(
          `with last as (select max(open_time) as t from candles where venue = ? and symbol = ? and interval = '1m'),
                win as (select c.* from candles c, last where c.venue = ? and c.symbol = ? and c.interval = '1m' and c.open_time > last.t - interval '24 hours')
           select (select open::text from win order by open_time asc limit 1) as open, max(high)::text as high, min(low)::text as low,
                  sum(volume)::text as volume, min(open_time) as "from", max(open_time) as "to" from win`,
          [venue, params.ticker, venue, params.ticker],
        );
      const open = agg?.open ? new Decimal(agg.open) : null;
      const mark = new Decimal(m.mark);
      ctx.body = {
        ticker: params.ticker,
        venue,
        markPrice: m.mark,
        open24h: agg?.open ?? null,
        high24h: agg?.high ?? null,
        low24h: agg?.low ?? null,
        volume24h: agg?.volume ?? null,
        change24h: open ? fmt(mark.minus(open)) : null,
        changePct24h: open ? fmt(mark.minus(open).div(open).times(100).toDecimalPlaces(4)) : null,
        window: { from: agg?.from ? new Date(agg.from).toISOString() : null, to: agg?.to ? new Date(new Date(agg.to).getTime() + 59_999).toISOString() : null },
        source: { mark: MARK_SOURCE, bars: 'recorded:hyperliquid' },
      };
    },
  );

  endpoint(router, openapi, { method: 'get', path: '/candles/:venue/:symbol', summary: 'OHLCV bars of a pair (spec §2.9)', tags, gate: read, schemas: { params: pairParams, query: candleQuery }, responses: { '200': { description: 'Candles', schema: candlesView } } }, async (ctx, { params, query }) => {
    if (!findSymbol(params.venue, params.symbol)) throw new ApiError('symbol_unknown', `unknown pair ${params.venue}/${params.symbol}`);
    const rows = await platformEm(deps.orm)
      .getConnection()
      .execute<{ open_time: Date; open: string; high: string; low: string; close: string; volume: string; source: string }[]>(
        `select open_time, open::text, high::text, low::text, close::text, volume::text, source from candles
          where venue = ? and symbol = ? and interval = ? and open_time <= coalesce(?::timestamptz, 'infinity') order by open_time desc limit ?`,
        [params.venue, params.symbol, query.interval, query.endTime ?? null, query.limit],
      );
    const bars = rows.reverse().map((r) => ({
      openTime: new Date(r.open_time).toISOString(),
      closeTime: new Date(new Date(r.open_time).getTime() + INTERVAL_MS[query.interval] - 1).toISOString(),
      open: r.open,
      high: r.high,
      low: r.low,
      close: r.close,
      volume: r.volume,
      closed: true,
    }));
    ctx.body = { venue: params.venue, symbol: params.symbol, interval: query.interval, bars, source: rows[0]?.source ?? 'recorded:hyperliquid', window: { from: bars[0]?.openTime ?? null, to: bars.at(-1)?.closeTime ?? null } };
  });

  return router;
}

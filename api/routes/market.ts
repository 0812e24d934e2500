/**
 * `/api/v1/market/*` (docs/api.md §4.6). Quotes and stats read the canonical marks (`503 cold_cache`
 * before the first mark). Depth and tape read the pair's market stream: a pair nobody streams yet
 * registers demand and answers `503 cold_cache` with `Retry-After`; the producer picks it up within
 * a few milliseconds, so the next call after about 500 ms succeeds (activities/market/streams.ts).
 * Candles are the recorded Hyperliquid 1m/1h bars followed by the live bars the mark feed
 * aggregates; Polymarket outcomes chart their recorded daily prices (interval `1d`). FX rates come
 * from configuration. The bare prefixes are 404.
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
import type { MarketStreams } from '../../db/market-streams.js';
import { findPolymarketOutcome, loadPolymarketMarkets } from '../../activities/market/polymarket.js';
import { candleQuery, candlesView, depthQuery, depthView, fxView, groupedQuery, pairParams, polymarketMarketsView, quoteView, statsView, tapeQuery, tapeView } from './market.schemas.js';

/** Venue of a ticker suffix (`BTC.PAPER` → paper). */
const VENUE_OF_SUFFIX: Record<string, string> = { PAPER: 'paper' };

/** Where marks come from in this deployment (documented on every quote). */
export const MARK_SOURCE = 'replay:hyperliquid';

/** Bar length per interval, ms. */
const INTERVAL_MS = { '1m': 60_000, '1h': 3_600_000, '1d': 86_400_000 } as const;

/** Stablecoins an account may be denominated in, at their 1:1 USD peg. */
const PEGGED = ['USDC', 'USDT'];

/**
 * Market-data routes. `streams` serves depth and tape (the on-demand market streams).
 * @throws (per route) 400 symbol_unknown, 503 cold_cache, 400 validation_failed.
 */
export function marketRoutes(deps: ApiDeps, openapi: OpenApiRegistry, streams: MarketStreams): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1/market' });
  const tags = ['market'];
  const read = gate({ audience: 'trader' });

  /** The current mark row of a pair. @throws 400 symbol_unknown, 503 cold_cache. */
  async function markOf(venue: string, symbol: string) {
    if (!findSymbol(venue, symbol)) throw new ApiError('symbol_unknown', `unknown pair ${venue}/${symbol}; see GET /api/v1/symbols/${venue}`);
    const row = await platformEm(deps.orm).findOne(Mark, { venue, symbol });
    if (!row) throw new ApiError('cold_cache', `no mark for ${venue}/${symbol} yet; retry in about 500 ms`, {}, { 'Retry-After': '1' });
    return row;
  }

  /**
   * The streamed book of a pair; keeps its stream demanded. A pair nobody streams yet opens the
   * subscription and answers 503 cold_cache. @throws 400 symbol_unknown, 503 cold_cache.
   */
  async function streamedBook(venue: string, symbol: string) {
    if (!findSymbol(venue, symbol)) throw new ApiError('symbol_unknown', `unknown pair ${venue}/${symbol}; see GET /api/v1/symbols/${venue}`);
    const book = await streams.book(venue, symbol);
    await streams.demand(venue, symbol, !book);
    if (!book) throw new ApiError('cold_cache', `opening the ${venue}/${symbol} stream; retry in about 500 ms`, {}, { 'Retry-After': '1' });
    return book;
  }

  endpoint(router, openapi, { method: 'get', path: '/quotes/:venue/:symbol', summary: 'Current canonical quote of a pair', tags, gate: read, schemas: { params: pairParams }, responses: { '200': { description: 'Quote', schema: quoteView } } }, async (ctx, { params }) => {
    const m = await markOf(params.venue, params.symbol);
    ctx.body = { venue: m.venue, symbol: m.symbol, mark: m.mark, bid: m.bid, ask: m.ask, ts: m.ts.toISOString(), source: MARK_SOURCE };
  });

  endpoint(router, openapi, { method: 'get', path: '/depth/:venue/:symbol', summary: 'L2 order-book depth of a pair (the recorded book re-centred on the mark)', tags, gate: read, schemas: { params: pairParams, query: depthQuery }, responses: { '200': { description: 'Depth', schema: depthView } } }, async (ctx, { params, query }) => {
    const b = await streamedBook(params.venue, params.symbol);
    ctx.body = { venue: params.venue, symbol: params.symbol, bookSeq: b.bookSeq, ts: b.ts, bids: b.bids.slice(0, query.levels), asks: b.asks.slice(0, query.levels) };
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
      const b = await streamedBook(params.venue, params.symbol);
      const tick = new Decimal(findSymbol(params.venue, params.symbol)!.tickSize);
      const step = query.step ? new Decimal(query.step) : tick.times(10);
      if (step.lte(0) || !step.mod(tick).isZero()) throw new ApiError('validation_failed', [{ path: 'query.step', message: `step must be a positive multiple of the tick ${fmt(tick)}`, code: 'step_tick' }]);
      ctx.body = { venue: params.venue, symbol: params.symbol, bookSeq: b.bookSeq, ts: b.ts, step: fmt(step), bids: groupLevels(b.bids, step, 'bids'), asks: groupLevels(b.asks, step, 'asks') };
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
          `with last as (select max(open_time) as t from candles where venue = ? and symbol = ? and interval = '1m' and not live),
                win as (select c.* from candles c, last where c.venue = ? and c.symbol = ? and c.interval = '1m' and not c.live and c.open_time > last.t - interval '24 hours')
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

  endpoint(router, openapi, { method: 'get', path: '/candles/:venue/:symbol', summary: 'OHLCV bars of a pair (docs/api.md §2.9): recorded history, then live bars', tags, gate: read, schemas: { params: pairParams, query: candleQuery }, responses: { '200': { description: 'Candles', schema: candlesView } } }, async (ctx, { params, query }) => {
    if (params.venue === 'polymarket') return void (ctx.body = await polymarketCandles(params.symbol, query));
    if (!findSymbol(params.venue, params.symbol)) throw new ApiError('symbol_unknown', `unknown pair ${params.venue}/${params.symbol}`);
    if (query.interval === '1d') throw new ApiError('validation_failed', [{ path: 'query.interval', message: 'perps have 1m and 1h bars', code: 'interval_unavailable' }]);
    const len = INTERVAL_MS[query.interval];
    const rows = await platformEm(deps.orm)
      .getConnection()
      .execute<{ open_time: Date; open: string; high: string; low: string; close: string; volume: string; source: string }[]>(
        `select open_time, open::text, high::text, low::text, close::text, volume::text, source from candles
          where venue = ? and symbol = ? and interval = ? and open_time <= coalesce(?::timestamptz, 'infinity') order by open_time desc limit ?`,
        [params.venue, params.symbol, query.interval, query.endTime ?? null, query.limit],
      );
    const now = Date.now();
    const bars = rows.reverse().map((r) => {
      const open = new Date(r.open_time).getTime();
      return { openTime: new Date(open).toISOString(), closeTime: new Date(open + len - 1).toISOString(), open: r.open, high: r.high, low: r.low, close: r.close, volume: r.volume, closed: open + len <= now };
    });
    const sources = [...new Set(rows.map((r) => r.source))];
    ctx.body = { venue: params.venue, symbol: params.symbol, interval: query.interval, bars, source: sources.length ? sources.join('+') : 'recorded:hyperliquid', window: { from: bars[0]?.openTime ?? null, to: bars.at(-1)?.closeTime ?? null } };
  });

  /** Daily bars of a Polymarket outcome from its recorded prices. @throws 400 symbol_unknown, 400 validation_failed. */
  async function polymarketCandles(symbol: string, query: z.output<typeof candleQuery>) {
    const found = await findPolymarketOutcome(symbol);
    if (!found) throw new ApiError('symbol_unknown', `unknown Polymarket outcome ${symbol}; see GET /api/v1/market/polymarket/markets`);
    if (query.interval !== '1d') throw new ApiError('validation_failed', [{ path: 'query.interval', message: 'Polymarket outcomes have daily prices only: interval=1d', code: 'interval_unavailable' }]);
    const until = query.endTime ? query.endTime.slice(0, 10) : '9999-12-31';
    const points = found.outcome.history.filter((p) => p.date <= until).slice(-query.limit);
    const bars = points.map((p) => {
      const open = Date.parse(`${p.date}T00:00:00Z`);
      const price = fmt(p.price);
      return { openTime: new Date(open).toISOString(), closeTime: new Date(open + INTERVAL_MS['1d'] - 1).toISOString(), open: price, high: price, low: price, close: price, volume: '0', closed: true };
    });
    return { venue: 'polymarket', symbol, interval: '1d', bars, source: 'recorded:polymarket', window: { from: bars[0]?.openTime ?? null, to: bars.at(-1)?.closeTime ?? null } };
  }

  endpoint(router, openapi, { method: 'get', path: '/tape/:venue/:symbol', summary: 'Recent prints of a pair, newest first (docs/api.md §4.6); 503 cold_cache while its stream opens', tags, gate: read, schemas: { params: pairParams, query: tapeQuery }, responses: { '200': { description: 'Tape', schema: tapeView } } }, async (ctx, { params, query }) => {
    if (!findSymbol(params.venue, params.symbol)) throw new ApiError('symbol_unknown', `unknown pair ${params.venue}/${params.symbol}; see GET /api/v1/symbols/${params.venue}`);
    const live = await streams.isLive(params.venue, params.symbol);
    await streams.demand(params.venue, params.symbol, !live);
    if (!live) throw new ApiError('cold_cache', `opening the ${params.venue}/${params.symbol} stream; retry in about 500 ms`, {}, { 'Retry-After': '1' });
    ctx.body = { venue: params.venue, symbol: params.symbol, trades: await streams.tape(params.venue, params.symbol, query.limit), source: MARK_SOURCE };
  });

  endpoint(router, openapi, { method: 'get', path: '/fx', summary: 'FX rates for accounts not denominated in USD, with their source and time', tags, gate: read, schemas: {}, responses: { '200': { description: 'Rates', schema: fxView } } }, async (ctx) => {
    const asOf = new Date().toISOString(); // a peg holds at every instant: stamped with the answer's time
    const pegged = PEGGED.map((currency) => ({ currency, rate: '1', source: 'peg', asOf }));
    const configured = deps.config.fxRates.filter((r) => !PEGGED.includes(r.currency)).map((r) => ({ ...r, source: 'config' }));
    ctx.body = { base: 'USD', rates: [...pegged, ...configured] };
  });

  endpoint(router, openapi, { method: 'get', path: '/polymarket/markets', summary: 'The recorded Polymarket election markets and their outcome symbols (probability units)', tags, gate: read, schemas: {}, responses: { '200': { description: 'Markets', schema: polymarketMarketsView } } }, async (ctx) => {
    const markets = await loadPolymarketMarkets();
    ctx.body = {
      markets: markets.map(({ outcomes, ...m }) => ({
        ...m,
        outcomes: outcomes.map((o) => ({ outcome: o.outcome, symbol: o.symbol, tokenId: o.tokenId, lastPrice: o.history.at(-1) ? fmt(o.history.at(-1)!.price) : null, lastDate: o.history.at(-1)?.date ?? null, points: o.history.length })),
      })),
    };
  });

  return router;
}

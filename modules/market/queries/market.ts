/**
 * Market data reads (docs/api.md §4.6). Quotes and stats read the canonical marks (`503 cold_cache` before
 * the first mark). Depth and tape read the pair's market stream: a pair nobody streams yet registers
 * demand and answers `503 cold_cache` with `Retry-After`; the producer picks it up within a few
 * milliseconds, so the next call after about 500 ms succeeds (modules/market/feeds/streams.ts).
 * Candles are the recorded Hyperliquid 1m/1h bars followed by the live bars the mark feed
 * aggregates; Polymarket outcomes chart their recorded daily prices (interval `1d`). FX rates come
 * from configuration.
 */
import type { QuoteView } from '../../../api/ws/quotes-hub.js';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ApiError } from '../../../domain/errors.js';
import { Decimal, fmt } from '../../../domain/decimal.js';
import { groupLevels } from '../../../domain/market/depth.js';
import { findSymbol } from '../../../domain/market/symbols.js';
import type { SymbolSpec } from '../../../domain/market/symbol-spec.js';
import { Mark } from '../../../db/entities.js';
import type { MarketStreams } from '../../../db/market-streams.js';
import { platformEm } from '../../../db/orm.js';
import { findPolymarketOutcome, loadPolymarketMarkets } from '../../../infra/recorded-polymarket.js';

/**
 * Where a symbol's marks, book and tape come from in this deployment (the `source` of its quotes and tape):
 * perps replay a recorded Hyperliquid coin (modules/market/feeds/mark-feed.ts, streams.ts), prediction
 * symbols (Polymarket `*.PM`, Kalshi `*.KX`) the recorded daily prices of a Polymarket outcome token
 * (modules/market/feeds/prediction-marks.ts).
 */
export function markSource(spec: Pick<SymbolSpec, 'assetClass'>): 'replay:hyperliquid' | 'replay:polymarket' {
  return spec.assetClass === 'prediction' ? 'replay:polymarket' : 'replay:hyperliquid';
}

/** Bar length per interval, ms. */
const INTERVAL_MS = { '1m': 60_000, '1h': 3_600_000, '1d': 86_400_000 } as const;

/** Venue of a ticker suffix (`BTC.PAPER` → paper). */
const VENUE_OF_SUFFIX: Record<string, string> = { PAPER: 'paper' };

/** Stablecoins an account may be denominated in, at their 1:1 USD peg. */
const PEGGED = ['USDC', 'USDT'];

/** @throws ApiError `400 symbol_unknown` for a pair this deployment does not trade. */
function knownPair(venue: string, symbol: string) {
  const spec = findSymbol(venue, symbol);
  if (!spec) throw new ApiError('symbol_unknown', `unknown pair ${venue}/${symbol}; see GET /api/v1/symbols/${venue}`);
  return spec;
}

/** The current mark row of a pair. @throws ApiError `400 symbol_unknown`, `503 cold_cache`. */
async function markOf(orm: MikroORM, venue: string, symbol: string) {
  knownPair(venue, symbol);
  const row = await platformEm(orm).findOne(Mark, { venue, symbol });
  if (!row)
    throw new ApiError(
      'cold_cache',
      `no mark for ${venue}/${symbol} yet; retry in about 500 ms`,
      {},
      { 'Retry-After': '1' },
    );
  return row;
}

/**
 * The current canonical quote of a pair (quoteView): from this api process's memory when the quotes hub
 * holds it (kept current by NOTIFY `marks`, api/ws/quotes-hub.ts `latest`), else read from PostgreSQL.
 * @throws as {@link markOf}.
 */
export async function quote(
  orm: MikroORM,
  venue: string,
  symbol: string,
  hub: { latest(key: string): QuoteView | undefined },
) {
  const source = markSource(knownPair(venue, symbol));
  const held = hub.latest(`${venue} ${symbol}`);
  if (held) return { ...held, source };
  const m = await markOf(orm, venue, symbol);
  return {
    venue: m.venue,
    symbol: m.symbol,
    mark: m.mark,
    bid: m.bid,
    ask: m.ask,
    ts: m.ts.toISOString(),
    source,
  };
}

/**
 * The streamed book of a pair; keeps its stream demanded. A pair nobody streams yet opens the
 * subscription and answers 503 cold_cache. @throws ApiError `400 symbol_unknown`, `503 cold_cache`.
 */
async function streamedBook(streams: MarketStreams, venue: string, symbol: string) {
  knownPair(venue, symbol);
  const book = await streams.book(venue, symbol);
  await streams.demand(venue, symbol, !book);
  if (!book)
    throw new ApiError(
      'cold_cache',
      `opening the ${venue}/${symbol} stream; retry in about 500 ms`,
      {},
      { 'Retry-After': '1' },
    );
  return book;
}

/** The top `levels` of a pair's book (depthView). @throws as {@link streamedBook}. */
export async function depth(streams: MarketStreams, venue: string, symbol: string, levels: number) {
  const b = await streamedBook(streams, venue, symbol);
  return { venue, symbol, bookSeq: b.bookSeq, ts: b.ts, bids: b.bids.slice(0, levels), asks: b.asks.slice(0, levels) };
}

/**
 * A pair's book in price buckets of `step` USD (default 10 ticks); bids round down, asks up.
 * @throws ApiError `400 validation_failed` (`step_tick`: not a positive multiple of the tick), as {@link streamedBook}.
 */
export async function groupedDepth(
  streams: MarketStreams,
  venue: string,
  symbol: string,
  stepText: string | undefined,
) {
  const b = await streamedBook(streams, venue, symbol);
  const tick = new Decimal(findSymbol(venue, symbol)!.tickSize);
  const step = stepText ? new Decimal(stepText) : tick.times(10);
  if (step.lte(0) || !step.mod(tick).isZero())
    throw new ApiError('validation_failed', [
      { path: 'query.step', message: `step must be a positive multiple of the tick ${fmt(tick)}`, code: 'step_tick' },
    ]);
  return {
    venue,
    symbol,
    bookSeq: b.bookSeq,
    ts: b.ts,
    step: fmt(step),
    bids: groupLevels(b.bids, step, 'bids'),
    asks: groupLevels(b.asks, step, 'asks'),
  };
}

/**
 * Mark and 24 h statistics of a venue-suffixed ticker over the last 24 h of recorded 1m bars (statsView).
 * @throws ApiError `400 symbol_unknown`, `503 cold_cache`.
 */
export async function stats(orm: MikroORM, ticker: string) {
  const venue = Object.entries(VENUE_OF_SUFFIX).find(([suffix]) => ticker.endsWith(`.${suffix}`))?.[1];
  if (!venue || !findSymbol(venue, ticker)) throw new ApiError('symbol_unknown', `unknown ticker ${ticker}`);
  const m = await markOf(orm, venue, ticker);
  const [agg] = await platformEm(orm)
    .getConnection()
    .execute<
      {
        open: string | null;
        high: string | null;
        low: string | null;
        volume: string | null;
        from: Date | null;
        to: Date | null;
      }[]
    >(
      `with last as (select max(open_time) as t from candles where venue = ? and symbol = ? and interval = '1m' and not live),
            win as (select c.* from candles c, last where c.venue = ? and c.symbol = ? and c.interval = '1m' and not c.live and c.open_time > last.t - interval '24 hours')
       select (select open::text from win order by open_time asc limit 1) as open, max(high)::text as high, min(low)::text as low,
              sum(volume)::text as volume, min(open_time) as "from", max(open_time) as "to" from win`,
      [venue, ticker, venue, ticker],
    );
  const open = agg?.open ? new Decimal(agg.open) : null;
  const mark = new Decimal(m.mark);
  return {
    ticker,
    venue,
    markPrice: m.mark,
    open24h: agg?.open ?? null,
    high24h: agg?.high ?? null,
    low24h: agg?.low ?? null,
    volume24h: agg?.volume ?? null,
    change24h: open ? fmt(mark.minus(open)) : null,
    changePct24h: open ? fmt(mark.minus(open).div(open).times(100).toDecimalPlaces(4)) : null,
    window: {
      from: agg?.from ? new Date(agg.from).toISOString() : null,
      to: agg?.to ? new Date(new Date(agg.to).getTime() + 59_999).toISOString() : null,
    },
    source: { mark: markSource(findSymbol(venue, ticker)!), bars: 'recorded:hyperliquid' },
  };
}

/** A candles request (market.schemas.ts `candleQuery`). */
export interface CandleQuery {
  interval: keyof typeof INTERVAL_MS;
  limit: number;
  endTime?: string;
}

/** Daily bars of a Polymarket outcome from its recorded prices. @throws ApiError `400 symbol_unknown`, `400 validation_failed`. */
async function polymarketCandles(symbol: string, query: CandleQuery) {
  const found = await findPolymarketOutcome(symbol);
  if (!found)
    throw new ApiError(
      'symbol_unknown',
      `unknown Polymarket outcome ${symbol}; see GET /api/v1/market/polymarket/markets`,
    );
  if (query.interval !== '1d')
    throw new ApiError('validation_failed', [
      {
        path: 'query.interval',
        message: 'Polymarket outcomes have daily prices only: interval=1d',
        code: 'interval_unavailable',
      },
    ]);
  const until = query.endTime ? query.endTime.slice(0, 10) : '9999-12-31';
  const points = found.outcome.history.filter((p) => p.date <= until).slice(-query.limit);
  const bars = points.map((p) => {
    const open = Date.parse(`${p.date}T00:00:00Z`);
    const price = fmt(p.price);
    return {
      openTime: new Date(open).toISOString(),
      closeTime: new Date(open + INTERVAL_MS['1d'] - 1).toISOString(),
      open: price,
      high: price,
      low: price,
      close: price,
      volume: '0',
      closed: true,
    };
  });
  return {
    venue: 'polymarket',
    symbol,
    interval: '1d',
    bars,
    source: 'recorded:polymarket',
    window: { from: bars[0]?.openTime ?? null, to: bars.at(-1)?.closeTime ?? null },
  };
}

/**
 * OHLCV bars of a pair, oldest first (candlesView): recorded history, then live bars; Polymarket
 * outcomes their daily prices. @throws ApiError `400 symbol_unknown`, `400 validation_failed` (`interval_unavailable`).
 */
export async function candles(orm: MikroORM, venue: string, symbol: string, query: CandleQuery) {
  if (venue === 'polymarket') return polymarketCandles(symbol, query);
  if (!findSymbol(venue, symbol)) throw new ApiError('symbol_unknown', `unknown pair ${venue}/${symbol}`);
  if (query.interval === '1d')
    throw new ApiError('validation_failed', [
      { path: 'query.interval', message: 'perps have 1m and 1h bars', code: 'interval_unavailable' },
    ]);
  const len = INTERVAL_MS[query.interval];
  const rows = await platformEm(orm)
    .getConnection()
    .execute<
      { open_time: Date; open: string; high: string; low: string; close: string; volume: string; source: string }[]
    >(
      `select open_time, open::text, high::text, low::text, close::text, volume::text, source from candles
        where venue = ? and symbol = ? and interval = ? and open_time <= coalesce(?::timestamptz, 'infinity') order by open_time desc limit ?`,
      [venue, symbol, query.interval, query.endTime ?? null, query.limit],
    );
  const now = Date.now();
  const bars = rows.reverse().map((r) => {
    const open = new Date(r.open_time).getTime();
    return {
      openTime: new Date(open).toISOString(),
      closeTime: new Date(open + len - 1).toISOString(),
      open: r.open,
      high: r.high,
      low: r.low,
      close: r.close,
      volume: r.volume,
      closed: open + len <= now,
    };
  });
  const sources = [...new Set(rows.map((r) => r.source))];
  return {
    venue,
    symbol,
    interval: query.interval,
    bars,
    source: sources.length ? sources.join('+') : 'recorded:hyperliquid',
    window: { from: bars[0]?.openTime ?? null, to: bars.at(-1)?.closeTime ?? null },
  };
}

/** Recent prints of a pair, newest first (tapeView); keeps its stream demanded. @throws ApiError `400 symbol_unknown`, `503 cold_cache`. */
export async function tape(streams: MarketStreams, venue: string, symbol: string, limit: number) {
  const spec = knownPair(venue, symbol);
  const live = await streams.isLive(venue, symbol);
  await streams.demand(venue, symbol, !live);
  if (!live)
    throw new ApiError(
      'cold_cache',
      `opening the ${venue}/${symbol} stream; retry in about 500 ms`,
      {},
      { 'Retry-After': '1' },
    );
  return { venue, symbol, trades: await streams.tape(venue, symbol, limit), source: markSource(spec) };
}

/** FX rates against USD (fxView): the pegged stablecoins (stamped now), then the configured rates. */
export function fxRates(configured: { currency: string; rate: string; asOf: string }[]) {
  const asOf = new Date().toISOString(); // a peg holds at every instant: stamped with the answer's time
  const pegged = PEGGED.map((currency) => ({ currency, rate: '1', source: 'peg', asOf }));
  return {
    base: 'USD',
    rates: [
      ...pegged,
      ...configured.filter((r) => !PEGGED.includes(r.currency)).map((r) => ({ ...r, source: 'config' })),
    ],
  };
}

/** The recorded Polymarket election markets with their outcome symbols and last prices (polymarketMarketsView). */
export async function polymarketMarkets() {
  const markets = await loadPolymarketMarkets();
  return {
    markets: markets.map(({ outcomes, ...m }) => ({
      ...m,
      outcomes: outcomes.map((o) => ({
        outcome: o.outcome,
        symbol: o.symbol,
        tokenId: o.tokenId,
        lastPrice: o.history.at(-1) ? fmt(o.history.at(-1)!.price) : null,
        lastDate: o.history.at(-1)?.date ?? null,
        points: o.history.length,
      })),
    })),
  };
}

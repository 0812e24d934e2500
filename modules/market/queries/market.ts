/**
 * Market data reads (docs/api.md §4.6). Quotes read the canonical marks (`503 cold_cache` before
 * the first mark). Depth and tape read the pair's market stream: a pair nobody streams yet registers
 * demand and answers `503 cold_cache` with `Retry-After`; the producer picks it up within a few
 * milliseconds, so the next call after about 500 ms succeeds (modules/market/feeds/streams.ts).
 * Candles and 24 h stats are ./candles.ts. FX rates come from configuration.
 */
import type { QuoteView } from '../../../api/ws/quotes-hub.js';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ApiError } from '../../../domain/errors.js';
import { Decimal, fmt } from '../../../domain/decimal.js';
import { groupLevels } from '../../../domain/market/depth.js';
import { VENUE_SUFFIX, findSymbol } from '../../../domain/market/symbols.js';
import { enabledSymbols, type TenantVenues } from '../../../domain/tenant/entitlements.js';
import { markSource, type MarketFeeds } from '../../../domain/market/live-venues.js';
import { Mark } from '../../../db/entities.js';
import type { MarketStreams } from '../../../db/market-streams.js';
import { platformEm } from '../../../db/orm.js';
import { loadPolymarketMarkets } from '../../../infra/recorded-polymarket.js';

/** Venue slug of a ticker suffix (`HL` → `hyperliquid`), from domain/market/symbols.ts `VENUE_SUFFIX`. */
const VENUE_OF_SUFFIX = new Map<string, string>(Object.entries(VENUE_SUFFIX).map(([venue, suffix]) => [suffix, venue]));

/** The venue of a venue-suffixed ticker `stats` resolves (`BTC.PAPER` → `paper`, `BTC.HL` → `hyperliquid`), or undefined. */
export function tickerVenue(ticker: string): string | undefined {
  const dot = ticker.lastIndexOf('.');
  return dot < 0 ? undefined : VENUE_OF_SUFFIX.get(ticker.slice(dot + 1));
}

/** Stablecoins an account may be denominated in, at their 1:1 USD peg. */
const PEGGED = ['USDC', 'USDT'];

/** @throws ApiError `400 symbol_unknown` for a pair this deployment does not trade. */
function knownPair(venue: string, symbol: string) {
  const spec = findSymbol(venue, symbol);
  if (!spec) throw new ApiError('symbol_unknown', `unknown pair ${venue}/${symbol}; see GET /api/v1/symbols/${venue}`);
  return spec;
}

/** The current mark row of a pair. @throws ApiError `400 symbol_unknown`, `503 cold_cache`. */
export async function markOf(orm: MikroORM, venue: string, symbol: string) {
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
 * `source` is where the pair's marks come from in a deployment configured `feeds` (`live:<venue>` or
 * `replay:…`, domain/market/live-venues.ts `markSource`).
 * @throws as {@link markOf}.
 */
export async function quote(
  orm: MikroORM,
  venue: string,
  symbol: string,
  hub: { latest(key: string): QuoteView | undefined },
  feeds: MarketFeeds,
) {
  const source = markSource(feeds, knownPair(venue, symbol));
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
 * Recent prints of a pair, newest first (tapeView); keeps its stream demanded. `source` as the quote's: a live
 * venue's tape is its own prints (modules/market/feeds/streams.ts), a replayed pair's the recorded trades.
 * @throws ApiError `400 symbol_unknown`, `503 cold_cache`.
 */
export async function tape(streams: MarketStreams, venue: string, symbol: string, limit: number, feeds: MarketFeeds) {
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
  return { venue, symbol, trades: await streams.tape(venue, symbol, limit), source: markSource(feeds, spec) };
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

/**
 * The recorded Polymarket election markets with their outcome symbols and last prices (polymarketMarketsView):
 * only the outcomes the tenant's `venues` offer (judged by their symbol as this list and the candles spell
 * it, `<marketId>-<OUTCOME>.PM`), and the markets with at least one of them.
 */
export async function polymarketMarkets(venues: TenantVenues) {
  const markets = await loadPolymarketMarkets();
  return {
    markets: markets.flatMap(({ outcomes, ...m }) => {
      const offered = enabledSymbols(venues, 'polymarket', outcomes);
      if (!offered.length) return [];
      return [
        {
          ...m,
          outcomes: offered.map((o) => ({
            outcome: o.outcome,
            symbol: o.symbol,
            tokenId: o.tokenId,
            lastPrice: o.history.at(-1) ? fmt(o.history.at(-1)!.price) : null,
            lastDate: o.history.at(-1)?.date ?? null,
            points: o.history.length,
          })),
        },
      ];
    }),
  };
}

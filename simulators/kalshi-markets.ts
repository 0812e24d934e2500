/**
 * The Kalshi simulator's market data (simulators/kalshi.ts; docs/venues.md §4.3): its markets are the
 * platform's Kalshi symbol table (domain/market/venues/kalshi.ts, two symbols — YES and NO — per
 * market ticker), its prices the platform's marks of those symbols. Builds what the public routes
 * answer: `GET /markets`, `GET /markets/{ticker}` (a `Market`) and `GET /markets/{ticker}/orderbook`
 * (`orderbook_fp`), in the shapes of Kalshi's published client (kalshi-typescript). Pure apart from
 * reading marks.
 *
 * Quote of a market (USD, on the 1-cent grid, clamped to 0.01–0.99): the YES ask is the YES mark
 * rounded UP to the cent; the YES bid is 1 − the NO ask (the NO mark rounded up), i.e. what buying NO
 * costs seen from the YES side. Without a NO mark the YES bid is the YES mark rounded down; without a
 * YES mark the YES ask is 1 − the NO mark rounded down. The book shows that quote as one level of
 * {@link QUOTE_DEPTH_FP} contracts a side, plus the members' resting orders.
 */
import type { Market, OrderbookCountFp } from 'kalshi-typescript';
import { Decimal } from '../domain/decimal.js';
import { KALSHI_SYMBOLS } from '../domain/market/venues/kalshi.js';
import type { SimulatorOptions } from './harness.js';
import { sumLevels } from './book.js';
import { otherSide, toDollars, toFp, toGridPrice, type KalshiSide } from '../venues/kalshi/wire.js';

/** Contracts shown at the quote on each side of the book (the simulator fills any size there). */
export const QUOTE_DEPTH_FP = '1000.00';

/** The best YES bid and ask of a market (USD, Decimals; null where neither mark gives one). */
export interface Quote {
  bid: Decimal | null;
  ask: Decimal | null;
}

/** Trading so far in a market: contracts traded (Σ fill counts) and the last fill's YES price (USD). */
export interface MarketTrading {
  volume: Decimal;
  lastYesPrice: Decimal | null;
}

/** One simulated market: its ticker, its event (the ticker without its last `-` segment) and the platform symbol of each side. */
export interface SimMarket {
  ticker: string;
  eventTicker: string;
  symbols: Record<KalshiSide, string>;
}

/** The markets of the symbol table, in its order: one per ticker, with the platform symbol of each side. */
export function simMarkets(): SimMarket[] {
  const byTicker = new Map<string, SimMarket>();
  for (const spec of KALSHI_SYMBOLS) {
    const m = spec.venueSymbol!.match(/^(.+):(yes|no)$/)!;
    const ticker = m[1];
    const row = byTicker.get(ticker) ?? {
      ticker,
      eventTicker: ticker.replace(/-[^-]+$/, ''),
      symbols: { yes: '', no: '' },
    };
    row.symbols[m[2] as KalshiSide] = spec.symbol;
    byTicker.set(ticker, row);
  }
  return [...byTicker.values()];
}

/**
 * The quote of `market` from the marks `markOf` gives its two symbols (module doc). The other side
 * of a grid price is on the grid too (1 − 0.01–0.99 is 0.01–0.99).
 */
export async function quoteOf(market: SimMarket, markOf: SimulatorOptions['markOf']): Promise<Quote> {
  const [yes, no] = await Promise.all([markOf(market.symbols.yes), markOf(market.symbols.no)]);
  const grid = (mark: string, round: 'up' | 'down') => toGridPrice(new Decimal(mark), round);
  const ask = yes != null ? grid(yes, 'up') : no != null ? otherSide(grid(no, 'down')) : null;
  const bid = no != null ? otherSide(grid(no, 'up')) : yes != null ? grid(yes, 'down') : null;
  return { bid, ask };
}

/** A resting order as the book shows it: its book side, YES price (USD) and contracts still resting. */
export interface BookEntry {
  book: 'bid' | 'ask';
  yesPrice: Decimal;
  remaining: Decimal;
}

/**
 * `orderbook_fp` of a market: `yes_dollars` the YES bids (the quote's bid and resting bids at their
 * price), `no_dollars` the NO bids (the quote's ask and resting asks, each at 1 − its YES price), each
 * `[price_dollars, count_fp]` per price level, ascending (the best bid last), the best `depth` levels
 * (0 or less: all).
 */
export function orderbookOf(quote: Quote, resting: BookEntry[], depth: number): OrderbookCountFp {
  const side = (entries: { px: Decimal; sz: Decimal }[]): string[][] => {
    const sorted = sumLevels(entries).map((l) => [toDollars(l.px), toFp(l.sz)]);
    return depth > 0 ? sorted.slice(-depth) : sorted;
  };
  const quoted = (px: Decimal | null) => (px ? [{ px, sz: new Decimal(QUOTE_DEPTH_FP) }] : []);
  return {
    yes_dollars: side([
      ...quoted(quote.bid),
      ...resting.filter((r) => r.book === 'bid').map((r) => ({ px: r.yesPrice, sz: r.remaining })),
    ]),
    no_dollars: side([
      ...quoted(quote.ask && otherSide(quote.ask)),
      ...resting.filter((r) => r.book === 'ask').map((r) => ({ px: otherSide(r.yesPrice), sz: r.remaining })),
    ]),
  };
}

/** When the simulated markets opened and close (fixed: the simulator's markets are always open). */
const OPENED = '2024-01-01T00:00:00Z';
const CLOSES = '2099-12-31T23:59:59Z';

/**
 * A `Market` of the simulator: active, binary, on the `linear_cent` grid (0.01 steps), with the
 * quote, its sizes, and the trading so far. Titles and rules name the ticker (the symbol table has
 * no wording of its own); the times are fixed (module doc of simulators/kalshi.ts).
 */
export function marketOf(m: SimMarket, quote: Quote, trading: MarketTrading): Market {
  const dollars = (p: Decimal | null) => toDollars(p ?? new Decimal(0));
  const size = (p: Decimal | null) => (p ? QUOTE_DEPTH_FP : toFp('0'));
  return {
    ticker: m.ticker,
    event_ticker: m.eventTicker,
    market_type: 'binary',
    yes_sub_title: `${m.ticker} yes`,
    no_sub_title: `${m.ticker} no`,
    created_time: OPENED,
    updated_time: OPENED,
    open_time: OPENED,
    close_time: CLOSES,
    latest_expiration_time: CLOSES,
    settlement_timer_seconds: 0,
    status: 'active',
    yes_bid_dollars: dollars(quote.bid),
    yes_bid_size_fp: size(quote.bid),
    yes_ask_dollars: dollars(quote.ask),
    yes_ask_size_fp: size(quote.ask),
    no_bid_dollars: dollars(quote.ask && otherSide(quote.ask)),
    no_ask_dollars: dollars(quote.bid && otherSide(quote.bid)),
    last_price_dollars: dollars(trading.lastYesPrice),
    volume_fp: toFp(trading.volume),
    volume_24h_fp: toFp(trading.volume),
    result: '',
    can_close_early: true,
    open_interest_fp: toFp('0'),
    notional_value_dollars: toDollars('1'),
    previous_yes_bid_dollars: dollars(quote.bid),
    previous_yes_ask_dollars: dollars(quote.ask),
    previous_price_dollars: dollars(trading.lastYesPrice),
    expiration_value: '',
    rules_primary: `Simulated market ${m.ticker}.`,
    rules_secondary: '',
    price_level_structure: 'linear_cent',
    price_ranges: [{ start: toDollars('0'), end: toDollars('1'), step: toDollars('0.01') }],
    exchange_index: 0,
  };
}

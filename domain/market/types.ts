/**
 * Market-data shapes shared by the replay feed, the paper engine and the API.
 * All prices and sizes are Decimals (see domain/decimal.ts); times are Unix milliseconds.
 */
import type { Decimal } from '../decimal.js';

/** One price level of an L2 book: price in USD per contract, size in contracts (base units). */
export interface BookLevel {
  price: Decimal;
  size: Decimal;
}

/** An L2 book: bids best (highest) first, asks best (lowest) first. */
export interface BookSnapshot {
  bids: BookLevel[];
  asks: BookLevel[];
}

/**
 * The canonical mark of one venue symbol at one instant (docs/architecture.md "Market data").
 * `mark` is the mid of the best bid and offer; `book` is the recorded L2 book re-centred on it.
 */
export interface MarkTick {
  /** Venue slug, e.g. `paper`. */
  venue: string;
  /** Venue-suffixed symbol, e.g. `BTC.PAPER`. */
  symbol: string;
  /** Wall-clock time of the tick, Unix ms. */
  ts: number;
  /** Canonical mark price, USD. */
  mark: Decimal;
  /** Best bid, USD. */
  bid: Decimal;
  /** Best ask, USD. */
  ask: Decimal;
  book: BookSnapshot;
}

/**
 * Replay of recorded market data on the wall clock (docs/architecture.md "Market data"). Pure: no I/O, no
 * clock; the caller supplies every time. The loop is seamless: the recording plays forward, then
 * backward, so prices never jump when it wraps.
 */
import { Decimal } from '../decimal.js';
import type { BookLevel, BookSnapshot, MarkTick } from './types.js';

/**
 * A recording of one coin. Times are exchange timestamps, Unix ms; both series ascend by `ts`.
 * `startMs`..`endMs` is the span where both series have data (replay clamps to it).
 */
export interface RecordedMarket {
  /** Recorded coin, e.g. `BTC`. */
  coin: string;
  /** First replayable instant, Unix ms (exchange time). */
  startMs: number;
  /** Last replayable instant, Unix ms (exchange time). */
  endMs: number;
  /** Best bid and offer (USD) in force from `ts` on. */
  bbo: { ts: number; bid: Decimal; ask: Decimal }[];
  /** L2 book snapshots (prices USD, sizes contracts) in force from `ts` on. */
  books: { ts: number; book: BookSnapshot }[];
  /** Trade prints (price USD, size contracts, aggressor side, the venue's trade id), ascending by `ts`. */
  trades?: RecordedTrade[];
}

/** One recorded trade print. */
export interface RecordedTrade {
  ts: number;
  id: string;
  price: Decimal;
  size: Decimal;
  side: 'buy' | 'sell';
}

/** A trade print of the replayed tape: `tradeId` is unique per loop of the replay, `ts` the wall time (Unix ms). */
export interface TapePrint {
  tradeId: string;
  ts: number;
  price: Decimal;
  size: Decimal;
  side: 'buy' | 'sell';
}

/**
 * The recorded trades the replay passes over between wall times `fromWallMs` (exclusive) and
 * `toWallMs` (inclusive), in replay order (backwards while the ping-pong plays backwards), each
 * stamped `toWallMs` and given the id `<loop>-<venue trade id>` so the tape never repeats an id.
 * Prices are as recorded (USD, on the tick grid), sizes contracts. Empty when the recording has no
 * trades or the interval is empty. All times Unix ms; pure.
 */
export function tradesBetween(m: RecordedMarket, fromWallMs: number, toWallMs: number, anchorMs: number): TapePrint[] {
  const trades = m.trades ?? [];
  const span = m.endMs - m.startMs;
  if (!trades.length || !(toWallMs > fromWallMs) || !(span > 0)) return [];
  const a = replayTime(fromWallMs, anchorMs, m.startMs, m.endMs);
  const b = replayTime(toWallMs, anchorMs, m.startMs, m.endMs);
  const [lo, hi] = a <= b ? [a, b] : [b, a];
  const loop = Math.floor((toWallMs - anchorMs) / span);
  const picked = trades.filter((t) => t.ts > lo && t.ts <= hi);
  if (b < a) picked.reverse();
  return picked.map((t) => ({ tradeId: `${loop}-${t.id}`, ts: toWallMs, price: t.price, size: t.size, side: t.side }));
}

/**
 * Ping-pong replay: maps a wall-clock time to a recorded time so the loop is seamless (plays
 * forward over the span, then backward, repeat; continuous prices, no jump at the seam).
 * `anchorMs` is the wall time at which replay position is the recording start. All values are
 * Unix ms; the result lies in [startMs, endMs] and has period 2 × (endMs − startMs).
 * A zero or negative span always maps to `startMs`.
 */
export function replayTime(nowMs: number, anchorMs: number, startMs: number, endMs: number): number {
  const span = endMs - startMs;
  if (!(span > 0)) return startMs;
  const period = 2 * span;
  const phase = (((nowMs - anchorMs) % period) + period) % period;
  return startMs + (phase <= span ? phase : period - phase);
}

/** Index of the last row with `ts ≤ t`; 0 when `t` precedes every row (clamps to the first). */
function lastAtOrBefore(rows: readonly { ts: number }[], t: number): number {
  let lo = 0;
  let hi = rows.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (rows[mid].ts <= t) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Moves every level by `by` (USD) and rounds it to the tick, down (bids) or up (asks). Sizes unchanged. */
function shiftLevels(
  levels: BookLevel[],
  by: Decimal,
  tick: Decimal,
  rounding: typeof Decimal.ROUND_FLOOR | typeof Decimal.ROUND_CEIL,
): BookLevel[] {
  return levels.map((l) => ({ price: l.price.plus(by).toNearest(tick, rounding), size: l.size }));
}

/**
 * The MarkTick at recorded time t: the latest bbo at or before t (mark = (bid+ask)/2 exact), the
 * latest L2 book at or before t re-centred on the mark: every level's price shifted by
 * (mark − bookMid) so the book sits around the canonical mark, rounded to the symbol's tick size
 * so prices stay valid (bids down, asks up, so best bid < mark < best ask always holds); sizes
 * unchanged. Since recorded prices are on the tick grid, each side moves by a whole number of
 * ticks; when the shift is a whole number of ticks the recorded spread is kept exactly, otherwise
 * it widens by one tick. If the recorded book itself is crossed, it is shifted by the nearest
 * whole number of ticks instead (keeping the recorded spread). Binary search over both series.
 *
 * `recordedMs` is exchange time (Unix ms; clamped to the first rows when earlier), `wallMs` the
 * wall time stamped on the tick as `ts`, `tickSize` the symbol's price increment in USD.
 * `bid`/`ask` of the tick are the recorded best bid and offer (USD).
 * @throws Error when the recording has no bbo rows or no books.
 */
export function tickAt(
  m: RecordedMarket,
  recordedMs: number,
  venue: string,
  symbol: string,
  wallMs: number,
  tickSize: Decimal,
): MarkTick {
  if (m.bbo.length === 0 || m.books.length === 0)
    throw new Error(`recording of ${m.coin} has no best bid/offer or no book`);
  const { bid, ask } = m.bbo[lastAtOrBefore(m.bbo, recordedMs)];
  const { book } = m.books[lastAtOrBefore(m.books, recordedMs)];
  const mark = bid.plus(ask).div(2);

  const bestBid = book.bids[0]?.price;
  const bestAsk = book.asks[0]?.price;
  const shift =
    bestBid && bestAsk
      ? mark.minus(bestBid.plus(bestAsk).div(2))
      : bestBid
        ? bid.minus(bestBid)
        : bestAsk
          ? ask.minus(bestAsk)
          : new Decimal(0);

  let bids = shiftLevels(book.bids, shift, tickSize, Decimal.ROUND_FLOOR);
  let asks = shiftLevels(book.asks, shift, tickSize, Decimal.ROUND_CEIL);
  if (bids[0] && asks[0] && bids[0].price.gte(asks[0].price)) {
    const whole = shift.toNearest(tickSize, Decimal.ROUND_HALF_EVEN);
    bids = shiftLevels(book.bids, whole, tickSize, Decimal.ROUND_FLOOR);
    asks = shiftLevels(book.asks, whole, tickSize, Decimal.ROUND_CEIL);
  }
  return { venue, symbol, ts: wallMs, mark, bid, ask, book: { bids, asks } };
}

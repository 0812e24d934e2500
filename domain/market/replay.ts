/**
 * Replay of recorded market data on the wall clock (DESIGN.md "Market data"), pure.
 * The loop is seamless: it plays the recording forward, then backward, so prices never jump.
 */
import { Decimal } from '../decimal.js';
import type { BookSnapshot, MarkTick } from './types.js';

/** A recording of one coin: best bid/offer and L2 books, ascending by exchange time (ms). */
export interface RecordedMarket {
  coin: string;
  startMs: number;
  endMs: number;
  bbo: { ts: number; bid: Decimal; ask: Decimal }[];
  books: { ts: number; book: BookSnapshot }[];
}

/**
 * Maps wall time to recorded time, ping-pong: forward over the span, then backward, period 2 × span.
 * `anchorMs` is a wall time at which the replay stands at the recording's start.
 */
export function replayTime(nowMs: number, anchorMs: number, startMs: number, endMs: number): number {
  const span = endMs - startMs;
  const phase = (((nowMs - anchorMs) % (2 * span)) + 2 * span) % (2 * span);
  return startMs + (phase <= span ? phase : 2 * span - phase);
}

/** Index of the last element with ts ≤ t (0 when t precedes all). */
function lastAtOrBefore(rows: { ts: number }[], t: number): number {
  let lo = 0;
  let hi = rows.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (rows[mid].ts <= t) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * The tick at recorded time `recordedMs`: mark = mid of the latest best bid/offer; the latest L2
 * book shifted by a whole number of ticks so that its mid sits on the mark (sizes unchanged).
 */
export function tickAt(m: RecordedMarket, recordedMs: number, venue: string, symbol: string, wallMs: number, tickSize: Decimal): MarkTick {
  const q = m.bbo[lastAtOrBefore(m.bbo, recordedMs)];
  const { book } = m.books[lastAtOrBefore(m.books, recordedMs)];
  const mark = q.bid.plus(q.ask).div(2);
  const bookMid = book.bids[0].price.plus(book.asks[0].price).div(2);
  const shift = mark.minus(bookMid).div(tickSize).round().times(tickSize);
  const move = (levels: BookSnapshot['bids']) => levels.map((l) => ({ price: l.price.plus(shift), size: l.size }));
  return { venue, symbol, ts: wallMs, mark, bid: q.bid, ask: q.ask, book: { bids: move(book.bids), asks: move(book.asks) } };
}

/**
 * Order-book deltas for `/ws/market` `l2Delta` (docs/api.md §6.1): the levels that changed between two
 * L2 snapshots, Binance diff-depth style. A level is `[price USD, size contracts]` as decimal
 * strings; size `"0"` removes the level. Applying the delta to the older book gives the newer.
 */
import { Decimal } from '../decimal.js';

/** An L2 level on the wire: `[price, size]`, decimal strings. */
export type WireLevel = [string, string];

/** Bids and asks of a book on the wire, best first. */
export interface WireBook {
  bids: WireLevel[];
  asks: WireLevel[];
}

function sideDelta(prev: WireLevel[], next: WireLevel[]): WireLevel[] {
  const before = new Map(prev);
  const after = new Map(next);
  const changed: WireLevel[] = [];
  for (const [price, size] of next) if (before.get(price) !== size) changed.push([price, size]);
  for (const [price] of prev) if (!after.has(price)) changed.push([price, '0']);
  return changed;
}

/** The changed levels per side from `prev` to `next` (empty arrays when nothing changed). Pure. */
export function bookDelta(prev: WireBook, next: WireBook): WireBook {
  return { bids: sideDelta(prev.bids, next.bids), asks: sideDelta(prev.asks, next.asks) };
}

/**
 * Applies a delta to a book (the client's side of `l2Delta`): replaces or removes each level,
 * keeps bids descending and asks ascending by price. Prices compare as decimals. Pure.
 */
export function applyBookDelta(book: WireBook, delta: WireBook): WireBook {
  const apply = (levels: WireLevel[], changes: WireLevel[], desc: boolean): WireLevel[] => {
    const m = new Map(levels);
    for (const [price, size] of changes)
      if (new Decimal(size).isZero()) m.delete(price);
      else m.set(price, size);
    return [...m.entries()].sort((x, y) => new Decimal(x[0]).comparedTo(y[0]) * (desc ? -1 : 1));
  };
  return { bids: apply(book.bids, delta.bids, true), asks: apply(book.asks, delta.asks, false) };
}

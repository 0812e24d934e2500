/**
 * The order books the venue simulators show (Hyperliquid `l2Book`, Kalshi `orderbook_fp`, Polymarket
 * `GET /book`): one side's entries summed per price into levels. Each simulator keeps its own
 * entries (synthetic depth, resting orders), side order, depth and number format.
 */
import { ZERO, type Decimal } from '../domain/decimal.js';

/** One price level of a book side: its price, the size summed over its entries, and how many entries (Decimals; units the caller's). */
export interface BookLevel {
  px: Decimal;
  sz: Decimal;
  n: number;
}

/** The levels of one book side: `entries` (price, size) summed per price, ascending by price (best bid last, best ask first). */
export function sumLevels(entries: Iterable<{ px: Decimal; sz: Decimal }>): BookLevel[] {
  const byPrice = new Map<string, BookLevel>();
  for (const { px, sz } of entries) {
    const level = byPrice.get(px.toFixed());
    byPrice.set(px.toFixed(), { px, sz: (level?.sz ?? ZERO).add(sz), n: (level?.n ?? 0) + 1 });
  }
  return [...byPrice.values()].sort((a, b) => a.px.cmp(b.px));
}

/**
 * The Aster simulator's own prices when it is given no `markOf` (docs/venues.md §2.4): the recorded
 * Hyperliquid ticks replayed on the wall clock (simulators/hyperliquid-prices.ts), shifted by
 * {@link ASTER_MARK_OFFSET}, and a touch {@link ASTER_HALF_SPREAD} either side of that mark, so that under
 * `VENUE_FEEDS=live` Aster's books differ from Hyperliquid's (a higher mark, a wider touch) and routing
 * between them has a real choice.
 */
import { Decimal } from '../domain/decimal.js';
import type { SymbolSpec } from '../domain/market/symbols.js';
import { replayedMarks } from './hyperliquid-prices.js';

/** Aster's mark over the replayed Hyperliquid mid, as a fraction: +5 bps (`mark = hlMid × 1.0005`). */
export const ASTER_MARK_OFFSET = '0.0005';

/**
 * Half the width of the own-priced book's touch, as a fraction of the mark: best bid = mark × (1 − 0.0002)
 * rounded down to the tick, best ask = mark × (1 + 0.0002) rounded up (a touch about 4 bps wide, where
 * Hyperliquid's simulator shows one tick).
 */
export const ASTER_HALF_SPREAD = '0.0002';

/**
 * A `markOf` (platform symbol `BTC.ASTER` → mark in USDT as a decimal string, or null for a symbol not in
 * `symbols` or without a loadable recording): the replayed Hyperliquid mid of the symbol's coin at wall time
 * `now()` (Unix ms) × (1 + {@link ASTER_MARK_OFFSET}); recordings from `dataDir` (default as replayedMarks).
 */
export function asterOwnMarks(
  symbols: readonly SymbolSpec[],
  opts: { dataDir?: string; now?: () => number } = {},
): (symbol: string) => Promise<string | null> {
  const replayed = replayedMarks(symbols, opts);
  const factor = new Decimal(1).plus(ASTER_MARK_OFFSET);
  return async (symbol) => {
    const mid = await replayed(symbol);
    return mid === null ? null : new Decimal(mid).mul(factor).toFixed();
  };
}

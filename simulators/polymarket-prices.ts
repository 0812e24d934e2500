/**
 * The Polymarket simulator's own prices when it is given no `markOf` (docs/venues.md §3): the recorded daily
 * CLOB prices of each outcome token (data/recorded/polymarket_election_top20, infra/recorded-polymarket.ts),
 * replayed on the wall clock exactly as the offline prediction replay does (domain/market/prediction-replay.ts:
 * one recorded day per 10 s, looping; the price clamped to [tick, 1 − tick]), and a book of
 * {@link OWN_BOOK_DEPTH} shares a side bracketing that price on the token's tick grid ({@link ownTouch}), so that
 * under `VENUE_FEEDS=live` the `*.PM` marks the worker reads from the simulator's market channel come from the
 * simulator's own data, not from the store the worker writes.
 */
import { Decimal } from '../domain/decimal.js';
import { predictionDay, predictionMark } from '../domain/market/prediction-replay.js';
import type { SymbolSpec } from '../domain/market/symbols.js';
import { tokenPrices } from '../infra/recorded-polymarket.js';

/** Size of the simulator's own book level on each side (shares), as the offline replay's nominal depth. */
export const OWN_BOOK_DEPTH = '1000';

/**
 * A `markOf` (platform symbol `TRUMP-INAUGURATED-YES.PM` → price in USD per share 0–1 as a decimal string, or
 * null for a symbol not in `symbols` or without recorded prices): the recorded price of the day shown at wall time
 * `now()` (Unix ms; default `Date.now`), clamped to [tick, 1 − tick]; recordings from `dataDir` (default the
 * configured market data directory).
 */
export function polymarketOwnMarks(
  symbols: readonly SymbolSpec[],
  opts: { dataDir?: string; now?: () => number } = {},
): (symbol: string) => Promise<string | null> {
  const now = opts.now ?? Date.now;
  return async (symbol) => {
    const spec = symbols.find((s) => s.symbol === symbol);
    if (!spec) return null;
    const series = await tokenPrices(spec.sourceCoin, opts.dataDir);
    if (!series?.length) return null;
    return predictionMark(spec.tickSize, series[predictionDay(now(), series.length)]).toFixed();
  };
}

/**
 * The own book's touch around `mark` (USD per share) on a `tick` grid: best bid = the highest tick strictly below
 * the mark, best ask = the lowest tick strictly above it (a mark on the grid is bracketed one tick either side,
 * so the mid is the mark; off the grid, the mid is the centre of its tick). A side outside [tick, 1 − tick] is
 * null (no level). Prices are Decimal, never floats.
 */
export function ownTouch(mark: Decimal, tick: Decimal): { bid: Decimal | null; ask: Decimal | null } {
  const below = mark.div(tick).ceil().sub(1).mul(tick);
  const above = mark.div(tick).floor().add(1).mul(tick);
  return {
    bid: below.gte(tick) ? below : null,
    ask: above.lte(new Decimal(1).sub(tick)) ? above : null,
  };
}

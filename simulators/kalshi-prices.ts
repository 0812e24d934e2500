/**
 * The Kalshi simulator's own prices when it is given no `markOf` (docs/venues.md §4.4): the recorded daily prices of
 * the YES symbol's source token (the matching Polymarket outcome, domain/market/venues/kalshi.ts) replayed on the
 * wall clock as the offline prediction replay does (simulators/polymarket-prices.ts), moved by
 * {@link KALSHI_MARK_OFFSET}, and a NO mark {@link KALSHI_SPREAD} above the YES mark's complement, so that under
 * `VENUE_FEEDS=live` the `*.KX` books the worker reads from the simulator's socket come from the simulator's own data
 * (not from the store the worker writes) and differ from Polymarket's books of the same question.
 */
import { Decimal } from '../domain/decimal.js';
import type { SymbolSpec } from '../domain/market/symbols.js';
import { polymarketOwnMarks } from './polymarket-prices.js';

/** Kalshi's YES mark over the replayed source price (USD per contract): one cent higher. */
export const KALSHI_MARK_OFFSET = '0.01';

/**
 * How far the NO mark sits above 1 − the YES mark (USD per contract): one cent. The simulator's quote
 * (simulators/kalshi-markets.ts) puts the YES ask at the YES mark rounded up and the YES bid at 1 − the NO mark
 * rounded up: YES bid = (the YES mark − 1 cent) rounded down, YES ask = the YES mark rounded up, a touch one cent wide
 * for a mark on the grid, two off it.
 */
export const KALSHI_SPREAD = '0.01';

const MIN = new Decimal('0.01');
const MAX = new Decimal('0.99');
const clamp = (d: Decimal) => Decimal.min(Decimal.max(d, MIN), MAX);

/**
 * A `markOf` (platform symbol `PRES-2024-DJT-YES.KX` → USD per contract 0.01–0.99 as a decimal string, or null for a
 * symbol not in `symbols` or whose market's YES side has no recorded prices): the YES symbol's mark = the recorded
 * price of its source token at wall time `now()` (Unix ms; default `Date.now`) + {@link KALSHI_MARK_OFFSET}; the NO
 * symbol's = 1 − that + {@link KALSHI_SPREAD}; each clamped to 0.01–0.99. Recordings from `dataDir` (default the
 * configured market data directory).
 */
export function kalshiOwnMarks(
  symbols: readonly SymbolSpec[],
  opts: { dataDir?: string; now?: () => number } = {},
): (symbol: string) => Promise<string | null> {
  const recorded = polymarketOwnMarks(symbols, opts);
  const yesOf = (spec: SymbolSpec) =>
    symbols.find((s) => s.venueSymbol === spec.venueSymbol!.replace(/:(yes|no)$/, ':yes'));
  return async (symbol) => {
    const spec = symbols.find((s) => s.symbol === symbol);
    const yes = spec && yesOf(spec);
    if (!spec || !yes) return null;
    const price = await recorded(yes.symbol);
    if (price === null) return null;
    const yesMark = clamp(new Decimal(price).plus(KALSHI_MARK_OFFSET));
    return (spec === yes ? yesMark : clamp(new Decimal(1).minus(yesMark).plus(KALSHI_SPREAD))).toFixed();
  };
}

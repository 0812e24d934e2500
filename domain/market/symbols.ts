/**
 * Symbol registry of the paper venue, as a table (spec: symbols are `<BASE>.<VENUE_SUFFIX>`).
 * Marks and books are replayed from the recorded Hyperliquid perps (`sourceCoin`); size decimals
 * and leverage caps are Hyperliquid's; tick sizes are the price increments of the recorded books
 * (every recorded BTC price is a whole USD, ETH a multiple of 0.1, SOL of 0.01 — checked by
 * test/unit/market-replay.test.ts against the data).
 */

import { HYPERLIQUID_SYMBOLS } from './venues/hyperliquid.js';
import { ASTER_SYMBOLS } from './venues/aster.js';
import { POLYMARKET_SYMBOLS } from './venues/polymarket.js';
import { KALSHI_SYMBOLS } from './venues/kalshi.js';
import { perpTable, type SymbolSpec } from './symbol-spec.js';

export type { SymbolSpec };

/**
 * Symbol suffix per venue slug: a venue symbol is `<BASE>.<suffix>`, e.g. `BTC.PAPER`, `ETH.HL`.
 * `b3` has a suffix for imported manual trades (`.B3`) only: no adapter and no symbol, so `/api/v1/venues`
 * does not list it and compose refuses it.
 */
export const VENUE_SUFFIX = {
  paper: 'PAPER',
  hyperliquid: 'HL',
  aster: 'ASTER',
  polymarket: 'PM',
  kalshi: 'KX',
  b3: 'B3',
} as const;

/** The perps tradeable on venue `paper`: BTC.PAPER, ETH.PAPER, SOL.PAPER. Read-only by convention. */
export const PAPER_SYMBOLS: SymbolSpec[] = perpTable('paper', 'PAPER', [
  ['BTC', 5, '1', 40],
  ['ETH', 4, '0.1', 25],
  ['SOL', 2, '0.01', 20],
]);

/**
 * The spec of a venue symbol (exact, case-sensitive match on venue slug and venue-suffixed symbol),
 * or undefined when this deployment does not trade it.
 */
export function findSymbol(venue: string, symbol: string): SymbolSpec | undefined {
  return VENUE_SYMBOLS[venue]?.find((s) => s.symbol === symbol);
}

/**
 * Tradeable symbols per venue slug (docs/api.md §4.2 `GET /api/v1/symbols/{venue}`): `paper` and every
 * routed venue. Each routed venue's table lives in domain/market/venues/<venue>.ts.
 */
export const VENUE_SYMBOLS: Readonly<Record<string, readonly SymbolSpec[]>> = Object.freeze(
  // No prototype: a venue named `__proto__` or `constructor` (a path parameter) finds nothing.
  Object.assign(Object.create(null) as Record<string, readonly SymbolSpec[]>, {
    paper: PAPER_SYMBOLS,
    hyperliquid: HYPERLIQUID_SYMBOLS,
    aster: ASTER_SYMBOLS,
    polymarket: POLYMARKET_SYMBOLS,
    kalshi: KALSHI_SYMBOLS,
  }),
);

/**
 * The paper symbol of the same underlying as `spec`: the `paper` perp replaying the same recorded coin
 * (`BTC.HL`, `BTC.ASTER` → `BTC.PAPER`; a paper symbol is its own twin). An internalised account's order on
 * `spec` is matched by the platform engine on it (docs/api.md §1). Undefined when the engine lists no
 * such symbol (prediction-market outcomes).
 */
export function paperTwin(spec: SymbolSpec): SymbolSpec | undefined {
  return PAPER_SYMBOLS.find((p) => p.assetClass === spec.assetClass && p.sourceCoin === spec.sourceCoin);
}

/** The spec of a symbol by the venue's own instrument id (`venueSymbol`), or undefined. */
export function findByVenueSymbol(venue: string, venueSymbol: string): SymbolSpec | undefined {
  return VENUE_SYMBOLS[venue]?.find((s) => s.venueSymbol === venueSymbol);
}

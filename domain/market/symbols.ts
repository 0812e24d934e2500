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

/**
 * Symbol suffix per venue slug: a venue symbol is `<BASE>.<suffix>`, e.g. `BTC.PAPER`, `ETH.HL`.
 * `b3` is included because `/api/v1/venues` lists it (suffix `B3`) although compose refuses it.
 */
export const VENUE_SUFFIX = {
  paper: 'PAPER',
  hyperliquid: 'HL',
  aster: 'ASTER',
  polymarket: 'PM',
  kalshi: 'KX',
  b3: 'B3',
} as const;

/** One tradeable venue symbol. */
export interface SymbolSpec {
  /** Venue-suffixed symbol, `<base>.<VENUE_SUFFIX[venue]>`, e.g. `BTC.PAPER`. */
  symbol: string;
  /** Base asset, e.g. `BTC`; sizes are in contracts of one base unit each. */
  base: string;
  /** Venue slug, e.g. `paper`. */
  venue: string;
  /** Quote currency: prices, PnL and margin are USD. */
  quote: 'USD';
  /**
   * Perps: the recorded Hyperliquid coin whose marks and L2 book this symbol replays offline (`BTC`,
   * `ETH`, `SOL`). Prediction markets: the recorded Polymarket CLOB token id whose daily prices
   * drive its mark offline (domain/market/venues/polymarket.ts).
   */
  sourceCoin: string;
  /** Instrument kind: a perpetual future, or one outcome of a binary prediction market (price 0–1 USD per share). */
  assetClass: 'perp' | 'prediction';
  /**
   * The venue's own instrument id: Hyperliquid asset index (`'0'` = BTC), Aster symbol (`BTCUSDT`),
   * Polymarket outcome token id (decimal uint256), Kalshi market ticker plus side (`PRES-2024-DJT:yes`).
   * Absent on `paper`.
   */
  venueSymbol?: string;
  /** Decimal places allowed in an order size (contracts); the lot size is 10^-szDecimals. */
  szDecimals: number;
  /** Minimum price increment, USD, as a canonical decimal string (`'1'`, `'0.1'`, `'0.01'`). */
  tickSize: string;
  /** Highest leverage allowed on a position (initial margin ≥ notional / maxLeverage). */
  maxLeverage: number;
}

/** The perps tradeable on venue `paper`: BTC.PAPER, ETH.PAPER, SOL.PAPER. Read-only by convention. */
export const PAPER_SYMBOLS: SymbolSpec[] = [
  {
    symbol: 'BTC.PAPER',
    base: 'BTC',
    venue: 'paper',
    quote: 'USD',
    sourceCoin: 'BTC',
    assetClass: 'perp',
    szDecimals: 5,
    tickSize: '1',
    maxLeverage: 40,
  },
  {
    symbol: 'ETH.PAPER',
    base: 'ETH',
    venue: 'paper',
    quote: 'USD',
    sourceCoin: 'ETH',
    assetClass: 'perp',
    szDecimals: 4,
    tickSize: '0.1',
    maxLeverage: 25,
  },
  {
    symbol: 'SOL.PAPER',
    base: 'SOL',
    venue: 'paper',
    quote: 'USD',
    sourceCoin: 'SOL',
    assetClass: 'perp',
    szDecimals: 2,
    tickSize: '0.01',
    maxLeverage: 20,
  },
];

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
export const VENUE_SYMBOLS: Record<string, readonly SymbolSpec[]> = {
  paper: PAPER_SYMBOLS,
  hyperliquid: HYPERLIQUID_SYMBOLS,
  aster: ASTER_SYMBOLS,
  polymarket: POLYMARKET_SYMBOLS,
  kalshi: KALSHI_SYMBOLS,
};

/** The spec of a symbol by the venue's own instrument id (`venueSymbol`), or undefined. */
export function findByVenueSymbol(venue: string, venueSymbol: string): SymbolSpec | undefined {
  return VENUE_SYMBOLS[venue]?.find((s) => s.venueSymbol === venueSymbol);
}

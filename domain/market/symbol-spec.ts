/**
 * The shape of one tradeable venue symbol, shared by the symbol registry (./symbols.ts) and the
 * per-venue symbol tables (./venues/*.ts), which the registry imports.
 */

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

/**
 * One perp of a venue's table, in columns: base asset, size decimals (contracts), tick size (USD, a
 * canonical decimal string), leverage cap, and the venue's own instrument id (absent on `paper`).
 */
export type PerpRow = readonly [
  base: string,
  szDecimals: number,
  tickSize: string,
  maxLeverage: number,
  venueSymbol?: string,
];

/**
 * A venue's perps from its table of {@link PerpRow}s: symbol `<base>.<suffix>`, quoted in USD, its marks
 * and book replayed offline from the recorded Hyperliquid coin of the same base.
 */
export function perpTable(venue: string, suffix: string, rows: readonly PerpRow[]): SymbolSpec[] {
  return rows.map(([base, szDecimals, tickSize, maxLeverage, venueSymbol]) => ({
    symbol: `${base}.${suffix}`,
    base,
    venue,
    quote: 'USD',
    sourceCoin: base,
    assetClass: 'perp',
    szDecimals,
    tickSize,
    maxLeverage,
    ...(venueSymbol === undefined ? {} : { venueSymbol }),
  }));
}

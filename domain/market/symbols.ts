/**
 * Symbol registry of the paper venue, as a table (spec §2.6: `<BASE>.<VENUE_SUFFIX>`).
 * Prices come from the recorded Hyperliquid perps; tick sizes and size decimals are Hyperliquid's.
 */

/** Symbol suffix per venue. */
export const VENUE_SUFFIX = { paper: 'PAPER', hyperliquid: 'HL', aster: 'ASTER', polymarket: 'PM', kalshi: 'KX', b3: 'B3' } as const;

/** One tradeable symbol. `tickSize` USD as a decimal string; `szDecimals` = decimals allowed in sizes. */
export interface SymbolSpec {
  symbol: string;
  base: string;
  venue: string;
  quote: 'USD';
  /** The recorded coin whose marks and book this symbol replays. */
  sourceCoin: string;
  assetClass: 'perp';
  szDecimals: number;
  tickSize: string;
  maxLeverage: number;
}

/** BTC, ETH and SOL perps on `paper`. */
export const PAPER_SYMBOLS: SymbolSpec[] = [
  { symbol: 'BTC.PAPER', base: 'BTC', venue: 'paper', quote: 'USD', sourceCoin: 'BTC', assetClass: 'perp', szDecimals: 5, tickSize: '1', maxLeverage: 40 },
  { symbol: 'ETH.PAPER', base: 'ETH', venue: 'paper', quote: 'USD', sourceCoin: 'ETH', assetClass: 'perp', szDecimals: 4, tickSize: '0.1', maxLeverage: 25 },
  { symbol: 'SOL.PAPER', base: 'SOL', venue: 'paper', quote: 'USD', sourceCoin: 'SOL', assetClass: 'perp', szDecimals: 2, tickSize: '0.01', maxLeverage: 20 },
];

/** The spec of a venue symbol, or undefined when this deployment does not trade it. */
export function findSymbol(venue: string, symbol: string): SymbolSpec | undefined {
  return PAPER_SYMBOLS.find((s) => s.venue === venue && s.symbol === symbol);
}

/**
 * Hyperliquid perps the platform routes to (`<COIN>.HL`). `venueSymbol` is the asset index in
 * mainnet `meta.universe` (BTC 0, ETH 1, SOL 5); `szDecimals` and leverage caps are Hyperliquid's;
 * prices: ≤ 5 significant figures and ≤ 6 − szDecimals decimals (docs/venues.md §1.3), so
 * `tickSize` is the finest increment at the recorded price level. Offline the marks replay the
 * recorded Hyperliquid data of the same coin.
 */
import { perpTable, type SymbolSpec } from '../symbol-spec.js';

export const HYPERLIQUID_SYMBOLS: SymbolSpec[] = perpTable('hyperliquid', 'HL', [
  ['BTC', 5, '1', 40, '0'],
  ['ETH', 4, '0.1', 25, '1'],
  ['SOL', 2, '0.01', 20, '5'],
]);

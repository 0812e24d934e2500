/**
 * Hyperliquid perps the platform routes to (`<COIN>.HL`). `venueSymbol` is the asset index in
 * mainnet `meta.universe` (BTC 0, ETH 1, SOL 5); `szDecimals` and leverage caps are Hyperliquid's;
 * prices: ≤ 5 significant figures and ≤ 6 − szDecimals decimals (docs/venues.md §1.3), so
 * `tickSize` is the finest increment at the recorded price level. Offline the marks replay the
 * recorded Hyperliquid data of the same coin.
 */
import type { SymbolSpec } from '../symbol-spec.js';

export const HYPERLIQUID_SYMBOLS: SymbolSpec[] = [
  {
    symbol: 'BTC.HL',
    base: 'BTC',
    venue: 'hyperliquid',
    quote: 'USD',
    sourceCoin: 'BTC',
    assetClass: 'perp',
    szDecimals: 5,
    tickSize: '1',
    maxLeverage: 40,
    venueSymbol: '0',
  },
  {
    symbol: 'ETH.HL',
    base: 'ETH',
    venue: 'hyperliquid',
    quote: 'USD',
    sourceCoin: 'ETH',
    assetClass: 'perp',
    szDecimals: 4,
    tickSize: '0.1',
    maxLeverage: 25,
    venueSymbol: '1',
  },
  {
    symbol: 'SOL.HL',
    base: 'SOL',
    venue: 'hyperliquid',
    quote: 'USD',
    sourceCoin: 'SOL',
    assetClass: 'perp',
    szDecimals: 2,
    tickSize: '0.01',
    maxLeverage: 20,
    venueSymbol: '5',
  },
];

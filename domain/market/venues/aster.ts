/**
 * Aster Futures perps the platform routes to (`<COIN>.ASTER`). `venueSymbol` is Aster's symbol
 * (`BTCUSDT`); `tickSize` and `szDecimals` (from `stepSize`) follow `GET /fapi/v3/exchangeInfo`.
 * Offline the marks replay the recorded Hyperliquid data of the same coin (Aster's own prints are
 * not recorded here).
 */
import type { SymbolSpec } from '../symbol-spec.js';

export const ASTER_SYMBOLS: SymbolSpec[] = [
  {
    symbol: 'BTC.ASTER',
    base: 'BTC',
    venue: 'aster',
    quote: 'USD',
    sourceCoin: 'BTC',
    assetClass: 'perp',
    szDecimals: 3,
    tickSize: '0.1',
    maxLeverage: 100,
    venueSymbol: 'BTCUSDT',
  },
  {
    symbol: 'ETH.ASTER',
    base: 'ETH',
    venue: 'aster',
    quote: 'USD',
    sourceCoin: 'ETH',
    assetClass: 'perp',
    szDecimals: 3,
    tickSize: '0.01',
    maxLeverage: 100,
    venueSymbol: 'ETHUSDT',
  },
  {
    symbol: 'SOL.ASTER',
    base: 'SOL',
    venue: 'aster',
    quote: 'USD',
    sourceCoin: 'SOL',
    assetClass: 'perp',
    szDecimals: 2,
    tickSize: '0.01',
    maxLeverage: 50,
    venueSymbol: 'SOLUSDT',
  },
];

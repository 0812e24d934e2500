/**
 * Aster Futures perps the platform routes to (`<COIN>.ASTER`). `venueSymbol` is Aster's symbol
 * (`BTCUSDT`); `tickSize` and `szDecimals` (from `stepSize`) follow `GET /fapi/v3/exchangeInfo`.
 * Offline the marks replay the recorded Hyperliquid data of the same coin (Aster's own prints are
 * not recorded here).
 */
import { perpTable, type SymbolSpec } from '../symbol-spec.js';

export const ASTER_SYMBOLS: SymbolSpec[] = perpTable('aster', 'ASTER', [
  ['BTC', 3, '0.1', 100, 'BTCUSDT'],
  ['ETH', 3, '0.01', 100, 'ETHUSDT'],
  ['SOL', 2, '0.01', 50, 'SOLUSDT'],
]);

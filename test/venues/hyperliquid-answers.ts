/**
 * Answers of the Hyperliquid simulator that both Hyperliquid conformance tests (the venue's SDK and ccxt)
 * check whole: a resting GTC buy as the order listings show it, and the state once a master with a
 * 10,000 USDC deposit has bought 0.01 BTC as taker at the mark 97000.5 (taker fee 0.045 % of 970.005 =
 * 0.436502 USDC, 6 decimals; equity 10000 − 0.436502; margin 970.005 / 20, cross, the default = 48.50025).
 */
import { expect } from 'vitest';

/** The `userFills` entry of the buy (order `oid`); `cloid` only when the order had one. */
export const btcLongFill = (oid: number, cloid?: string) => ({
  coin: 'BTC',
  px: '97000.5',
  sz: '0.01',
  side: 'B',
  time: expect.any(Number),
  startPosition: '0',
  dir: 'Open Long',
  closedPnl: '0',
  hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
  oid,
  crossed: true,
  fee: '0.436502',
  tid: expect.any(Number),
  feeToken: 'USDC',
  twapId: null,
  ...(cloid === undefined ? {} : { cloid }),
});

/** The `clearinghouseState` position entry of the long. */
export const BTC_LONG_POSITION = {
  type: 'oneWay',
  position: {
    coin: 'BTC',
    szi: '0.01',
    entryPx: '97000.5',
    positionValue: '970.005',
    unrealizedPnl: '0',
    returnOnEquity: '0',
    liquidationPx: null,
    leverage: { type: 'cross', value: 20 },
    marginUsed: '48.50025',
    maxLeverage: 40,
    cumFunding: { allTime: '0.0', sinceOpen: '0.0', sinceChange: '0.0' },
  },
};

const SUMMARY = {
  accountValue: '9999.563498',
  totalNtlPos: '970.005',
  totalRawUsd: '9999.563498',
  totalMarginUsed: '48.50025',
};

/** The whole `clearinghouseState` of the master holding the long. */
export const BTC_LONG_STATE = {
  marginSummary: SUMMARY,
  crossMarginSummary: SUMMARY,
  crossMaintenanceMarginUsed: '24.250125',
  withdrawable: '9951.063248',
  assetPositions: [BTC_LONG_POSITION],
  time: expect.any(Number),
};

/** A resting GTC limit buy as `frontendOpenOrders` (and `orderStatus`) show it: nothing filled, `cloid` or null. */
export const restingBuy = (o: {
  coin: string;
  limitPx: string;
  sz: string;
  oid: number;
  timestamp: unknown;
  cloid: string | null;
}) => ({
  coin: o.coin,
  side: 'B',
  limitPx: o.limitPx,
  sz: o.sz,
  oid: o.oid,
  timestamp: o.timestamp,
  triggerCondition: 'N/A',
  isTrigger: false,
  triggerPx: '0.0',
  children: [],
  isPositionTpsl: false,
  reduceOnly: false,
  orderType: 'Limit',
  origSz: o.sz,
  tif: 'Gtc',
  cloid: o.cloid,
});

/**
 * Aster Futures v3 wire format (docs/venues.md §2.2): platform ↔ venue tables (side, order
 * type, time in force, status), price/size rounding, the order parameters in sending order, the
 * client order id, and the venue's order/trade JSON mapped to {@link VenueOrder}/{@link VenueFill}.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { Decimal, fmt } from '../../domain/decimal.js';
import { findByVenueSymbol, findSymbol, type SymbolSpec } from '../../domain/market/symbols.js';
import type { OrderStatus } from '../../domain/oms/intent.js';
import type { VenueAccount, VenueFill, VenueOrder, VenueOrderRequest } from '../types.js';
import { decimal, int, text } from '../wire.js';
import type { Params } from './signing.js';

// JSON shapes: the fields the platform reads; the rest of each object (the simulator writes it in
// full) passes through unchecked. Aster sends decimals as text, ids and epoch-ms times as numbers.

const side = z.enum(['BUY', 'SELL']);

/**
 * Aster's order JSON. `status` is one of {@link WireStatus} (an unknown one reads as open); the
 * venue also sends `cumQuote`, `timeInForce`, `stopPrice`, `reduceOnly`, `time`.
 */
export const wireOrderSchema = z.looseObject({
  orderId: int,
  clientOrderId: text,
  symbol: text,
  side,
  type: text,
  origType: text.optional(),
  price: decimal,
  origQty: decimal,
  executedQty: decimal,
  avgPrice: decimal,
  status: text,
  updateTime: int,
});
export type WireOrder = z.infer<typeof wireOrderSchema>;

/**
 * Aster's trade JSON (`GET /fapi/v3/userTrades`). `commission` is the fee charged (positive), in
 * `commissionAsset`; the venue also sends `quoteQty`, `realizedPnl`, `maker`, `buyer`, `positionSide`.
 */
export const wireTradeSchema = z.looseObject({
  id: int,
  orderId: int,
  symbol: text,
  side,
  price: decimal,
  qty: decimal,
  commission: decimal,
  time: int,
});
export type WireTrade = z.infer<typeof wireTradeSchema>;

/** Aster's order statuses. */
export type WireStatus = 'NEW' | 'PARTIALLY_FILLED' | 'FILLED' | 'CANCELED' | 'REJECTED' | 'EXPIRED';

/** Venue status → platform status (docs/api.md §3.2). */
export const STATUS: Record<WireStatus, OrderStatus> = {
  NEW: 'open',
  PARTIALLY_FILLED: 'open',
  FILLED: 'filled',
  CANCELED: 'canceled',
  REJECTED: 'rejected',
  EXPIRED: 'expired',
};

/** Platform side → Aster side, and back. */
export const SIDE = { buy: 'BUY', sell: 'SELL' } as const;
export const SIDE_BACK = { BUY: 'buy', SELL: 'sell' } as const;

/** Platform order type → Aster `type`. */
export const ORDER_TYPE: Record<VenueOrderRequest['type'], string> = {
  market: 'MARKET',
  limit: 'LIMIT',
  stop: 'STOP_MARKET',
  stop_limit: 'STOP',
  take_profit: 'TAKE_PROFIT_MARKET',
};

/** Aster `type` → platform order type (UI orders may carry types the platform does not place). */
export const ORDER_TYPE_BACK: Record<string, string> = {
  MARKET: 'market',
  LIMIT: 'limit',
  STOP_MARKET: 'stop',
  STOP: 'stop_limit',
  TAKE_PROFIT_MARKET: 'take_profit',
  TAKE_PROFIT: 'take_profit_limit',
  TRAILING_STOP_MARKET: 'trailing_stop',
};

/** Platform time in force → Aster `timeInForce` (`GTX` = post-only). */
export const TIF = { Gtc: 'GTC', Ioc: 'IOC', Alo: 'GTX' } as const;

/** Which optional fields each Aster type sends: `price` (limit), `stopPrice` (trigger), `timeInForce`. */
const TYPE_FIELDS: Record<string, { price: boolean; stop: boolean; tif: boolean }> = {
  MARKET: { price: false, stop: false, tif: false },
  LIMIT: { price: true, stop: false, tif: true },
  STOP_MARKET: { price: false, stop: true, tif: false },
  STOP: { price: true, stop: true, tif: true },
  TAKE_PROFIT_MARKET: { price: false, stop: true, tif: false },
};

/**
 * The Aster spec of a platform symbol (`BTC.ASTER`).
 * @throws Error `not an Aster symbol` when the platform does not list it on Aster.
 */
export function specOf(symbol: string): SymbolSpec & { venueSymbol: string } {
  const spec = findSymbol('aster', symbol);
  if (!spec?.venueSymbol) throw new Error(`${symbol} is not an Aster symbol`);
  return spec as SymbolSpec & { venueSymbol: string };
}

/** Decimal places of a tick size string (`'0.01'` → 2, `'1'` → 0). */
const decimalsOf = (tick: string) => Math.max(0, new Decimal(tick).decimalPlaces());

/**
 * A price rounded to the nearest multiple of `tickSize` (half-even), written with the tick's
 * decimals (`'2500.456'`, `'0.01'` → `'2500.46'`).
 * @throws Error when the result is not positive.
 */
export function roundPrice(price: string, tickSize: string): string {
  const tick = new Decimal(tickSize);
  const p = new Decimal(price).div(tick).toDecimalPlaces(0, Decimal.ROUND_HALF_EVEN).mul(tick);
  if (p.lte(0)) throw new Error(`price ${price} rounds to ${fmt(p)} at tick ${tickSize}`);
  return p.toFixed(decimalsOf(tickSize));
}

/**
 * A quantity rounded DOWN to the lot size 10^-szDecimals (never more than asked), with those decimals.
 * @throws Error when it rounds to 0.
 */
export function roundQty(qty: string, szDecimals: number): string {
  const q = new Decimal(qty).toDecimalPlaces(szDecimals, Decimal.ROUND_DOWN);
  if (q.lte(0)) throw new Error(`quantity ${qty} rounds to 0 at ${szDecimals} decimals`);
  return q.toFixed(szDecimals);
}

/**
 * Client order id (`newClientOrderId`, ≤ 36 of `[.A-Za-z:/0-9_-]`): `mv-` + the first 32 hex digits
 * of sha256(intentId) — 35 characters, deterministic, and free of `:`/`/` (which the form encoder
 * would escape, see signing.ts).
 */
export function clientOrderIdFromIntentId(intentId: string): string {
  return `mv-${createHash('sha256').update(intentId).digest('hex').slice(0, 32)}`;
}

/**
 * `POST /fapi/v3/order` parameters in sending (= signing) order: `symbol, side, type,
 * timeInForce?, quantity, price?, stopPrice?, reduceOnly, newClientOrderId, newOrderRespType`.
 * `stop_limit` sends `price = stopLimitPrice`, `stopPrice = triggerPrice`; trigger types send
 * `stopPrice = triggerPrice`. Prices are rounded to the tick, the quantity down to the lot.
 * `newOrderRespType=RESULT` makes a MARKET order answer with its final (filled) state.
 * @throws Error for a non-Aster symbol, a missing price/trigger, or a size that rounds to 0.
 */
export function orderParams(o: VenueOrderRequest): Params {
  const spec = specOf(o.symbol);
  const type = ORDER_TYPE[o.type];
  const f = TYPE_FIELDS[type];
  const limit = o.type === 'stop_limit' ? o.stopLimitPrice : o.price;
  if (f.price && !limit)
    throw new Error(`${o.type} order needs ${o.type === 'stop_limit' ? 'stopLimitPrice' : 'price'}`);
  if (f.stop && !o.triggerPrice) throw new Error(`${o.type} order needs triggerPrice`);
  return [
    ['symbol', spec.venueSymbol],
    ['side', SIDE[o.side]],
    ['type', type],
    ['timeInForce', f.tif ? TIF[o.timeInForce] : null],
    ['quantity', roundQty(o.qty, spec.szDecimals)],
    ['price', f.price ? roundPrice(limit!, spec.tickSize) : null],
    ['stopPrice', f.stop ? roundPrice(o.triggerPrice!, spec.tickSize) : null],
    ['reduceOnly', o.reduceOnly ? 'true' : 'false'],
    ['newClientOrderId', o.clientOrderId],
    ['newOrderRespType', 'RESULT'],
  ];
}

/** Canonical decimal string (`"2500.00"` → `"2500"`). */
export const canon = (s: string) => fmt(new Decimal(s));

/** Platform symbol of an Aster symbol, or the Aster symbol itself when the platform does not list it. */
export const platformSymbol = (venueSymbol: string) => findByVenueSymbol('aster', venueSymbol)?.symbol ?? venueSymbol;

/**
 * Aster order JSON → {@link VenueOrder} (`avgPrice` 0 → null; `price` 0 of a market order → null).
 * No `reason`: Aster's order object carries none (refusals arrive as `{code,msg}` errors instead).
 */
export function toVenueOrder(w: WireOrder): VenueOrder {
  const avg = new Decimal(w.avgPrice || '0');
  const px = new Decimal(w.price || '0');
  return {
    venueOrderId: String(w.orderId),
    clientOrderId: w.clientOrderId || null,
    symbol: platformSymbol(w.symbol),
    side: SIDE_BACK[w.side],
    type: ORDER_TYPE_BACK[w.origType ?? w.type] ?? String(w.origType ?? w.type).toLowerCase(),
    qty: canon(w.origQty),
    price: px.isZero() ? null : fmt(px),
    status: STATUS[w.status as WireStatus] ?? 'open',
    filledQty: canon(w.executedQty),
    avgFillPrice: avg.isZero() ? null : fmt(avg),
    updatedAt: w.updateTime,
  };
}

/** Aster trade JSON → {@link VenueFill}: `commission` (USDT = USD) is the fee; trades carry no client order id. */
export function toVenueFill(t: WireTrade): VenueFill {
  return {
    venueTradeId: String(t.id),
    venueOrderId: String(t.orderId),
    clientOrderId: null,
    symbol: platformSymbol(t.symbol),
    side: SIDE_BACK[t.side],
    qty: canon(t.qty),
    price: canon(t.price),
    feeUsd: canon(t.commission),
    time: t.time,
  };
}

/**
 * Aster's account totals (`GET /fapi/v3/accountWithJoinMargin`, "Account Information v3"; USDT = USD):
 * `totalWalletBalance` (cash), `totalUnrealizedProfit`, `totalMarginBalance` (equity), `totalInitialMargin`
 * (margin used), `availableBalance`. The venue also sends `assets`, `maxWithdrawAmount`, `totalMaintMargin`, … and
 * `positions` without a mark price (read from {@link wirePositionRiskSchema} instead).
 */
export const wireAccountSchema = z.looseObject({
  totalWalletBalance: decimal,
  totalUnrealizedProfit: decimal,
  totalMarginBalance: decimal,
  totalInitialMargin: decimal,
  availableBalance: decimal,
});
export type WireAccount = z.infer<typeof wireAccountSchema>;

/**
 * Aster's positions (`GET /fapi/v3/positionRisk`, "Position Information v3"; one entry per symbol in one-way
 * mode, flat ones included): `positionAmt` (signed, contracts), `entryPrice`, `markPrice` (USD), `unRealizedProfit`
 * (USD), `leverage`; the venue also sends `marginType`, `isolatedMargin`, `liquidationPrice`, `maxNotionalValue`, ….
 */
export const wirePositionRiskSchema = z.array(
  z.looseObject({
    symbol: text,
    positionAmt: decimal,
    entryPrice: decimal,
    markPrice: decimal,
    unRealizedProfit: decimal,
    leverage: decimal,
  }),
);
export type WirePositionRisk = z.infer<typeof wirePositionRiskSchema>;

/** Aster's account totals and position list → {@link VenueAccount}: the venue's totals, its open (non-flat) positions. */
export function toVenueAccount(w: WireAccount, positions: WirePositionRisk): VenueAccount {
  return {
    balanceUsd: canon(w.totalWalletBalance),
    unrealizedPnlUsd: canon(w.totalUnrealizedProfit),
    equityUsd: canon(w.totalMarginBalance),
    marginUsedUsd: canon(w.totalInitialMargin),
    marginAvailableUsd: canon(w.availableBalance),
    positions: positions
      .filter((p) => !new Decimal(p.positionAmt).isZero())
      .map((p) => ({
        symbol: platformSymbol(p.symbol),
        qty: canon(p.positionAmt),
        avgEntryPrice: canon(p.entryPrice),
        markPrice: canon(p.markPrice),
        unrealizedPnlUsd: canon(p.unRealizedProfit),
        leverage: canon(p.leverage),
      })),
  };
}

/** Aster's error body, when `body` is one: `{"code": <negative>, "msg": "…"}`. */
export function asError(body: unknown): { code: number; msg: string } | null {
  if (!body || typeof body !== 'object') return null;
  const b = body as { code?: unknown; msg?: unknown };
  return typeof b.code === 'number' && b.code < 0 && typeof b.msg === 'string' ? { code: b.code, msg: b.msg } : null;
}

/** Aster's "unknown order" code (status lookups answer null for it). */
export const UNKNOWN_ORDER = -2013;

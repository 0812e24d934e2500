/**
 * Hyperliquid wire vocabulary ↔ the platform's (docs/venues.md §1.3–1.5): number strings,
 * price and size rounding, the protective price of a market order, the client order id, the order
 * wire object, the order-status table, and the venue's JSON shapes the adapter reads. Pure tables
 * and arithmetic on decimal strings (no I/O).
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { Decimal, fmt } from '../../domain/decimal.js';
import type { OrderStatus } from '../../domain/oms/intent.js';
import { findSymbol, type SymbolSpec } from '../../domain/market/symbols.js';
import { HYPERLIQUID_SYMBOLS } from '../../domain/market/venues/hyperliquid.js';
import { decimal, int, text } from '../wire.js';
import type { VenueAccount, VenueFill, VenueOrder, VenueOrderRequest } from '../types.js';

/** Most decimals a Hyperliquid number string may carry. */
export const MAX_WIRE_DECIMALS = 8;

/**
 * A decimal as a Hyperliquid number string: at most 8 decimals, no trailing zeros or point, `-0`
 * written `0` (`"100"`, `"1670.1"`, `"0.0147"`), the SDKs' `float_to_wire` on exact decimals.
 * @throws Error when the value has more than 8 significant decimals (the SDKs' "rounding" error).
 */
export function toWire(v: string | Decimal): string {
  const d = new Decimal(v);
  if (!d.isFinite()) throw new Error(`not a finite number: ${v.toString()}`);
  if (d.decimalPlaces() > MAX_WIRE_DECIMALS) throw new Error(`float_to_wire causes rounding: ${d.toFixed()}`);
  return d.isZero() ? '0' : d.toFixed();
}

/** Significant figures a perp/spot price may have (integers are always valid). */
export const PRICE_SIG_FIGS = 5;
/** Decimals allowed in a price: `MAX_DECIMALS − szDecimals` (perps 6, spot 8). */
export const MAX_PRICE_DECIMALS = { perp: 6, spot: 8 } as const;

/**
 * Whether `price` is a valid Hyperliquid price for an asset of `szDecimals` (perps): an integer,
 * or ≤ 5 significant figures and ≤ 6 − szDecimals decimals.
 */
export function validPrice(price: string | Decimal, szDecimals: number, kind: 'perp' | 'spot' = 'perp'): boolean {
  const d = new Decimal(price);
  if (d.lte(0)) return false;
  if (d.isInteger()) return true;
  return d.precision(true) <= PRICE_SIG_FIGS && d.decimalPlaces() <= MAX_PRICE_DECIMALS[kind] - szDecimals;
}

/**
 * A price rounded the way the official SDK's `market_open` rounds its slippage price: to 5
 * significant figures, then to `6 − szDecimals` decimals (half-even), as a wire string.
 */
export function roundPrice(price: string | Decimal, szDecimals: number, kind: 'perp' | 'spot' = 'perp'): string {
  const d = new Decimal(price)
    .toSignificantDigits(PRICE_SIG_FIGS, Decimal.ROUND_HALF_EVEN)
    .toDecimalPlaces(MAX_PRICE_DECIMALS[kind] - szDecimals, Decimal.ROUND_HALF_EVEN);
  return toWire(d);
}

/**
 * An order size rounded DOWN to `szDecimals` (never more than asked), as a wire string.
 * @throws Error when the size rounds to zero or is not positive.
 */
export function roundSize(qty: string, szDecimals: number): string {
  const d = new Decimal(qty).toDecimalPlaces(szDecimals, Decimal.ROUND_DOWN);
  if (d.lte(0)) throw new Error(`size ${qty} rounds to 0 at ${szDecimals} decimals`);
  return toWire(d);
}

/** Slippage of a market order's protective limit price from the mark (the SDKs' default 5 %). */
export const MARKET_SLIPPAGE = '0.05';

/**
 * The limit price of a market order (an IOC limit, as the official SDK's `market_open`): mark × 1.05
 * for a buy, mark × 0.95 for a sell, rounded by {@link roundPrice}. Decimal strings in and out.
 */
export function protectivePrice(side: 'buy' | 'sell', mark: string, szDecimals: number): string {
  const factor = new Decimal(1)[side === 'buy' ? 'add' : 'sub'](MARKET_SLIPPAGE);
  return roundPrice(new Decimal(mark).mul(factor), szDecimals);
}

/**
 * The Hyperliquid client order id (`cloid`, 16 bytes) of a platform intent: `0x` + the first 32
 * hex digits of sha256(intentId as UTF-8). Deterministic, so a retried dispatch carries the same
 * cloid and `orderStatus` by cloid finds an order the lost ack hid.
 */
export function cloidFromIntentId(intentId: string): string {
  return `0x${createHash('sha256').update(intentId, 'utf8').digest('hex').slice(0, 32)}`;
}

/** Platform TIF → Hyperliquid TIF (1:1). */
export const TIF = { Gtc: 'Gtc', Ioc: 'Ioc', Alo: 'Alo' } as const;

/** Order wire type object (`t`). */
export type WireOrderType =
  { limit: { tif: 'Gtc' | 'Ioc' | 'Alo' } } | { trigger: { isMarket: boolean; triggerPx: string; tpsl: 'tp' | 'sl' } };

/** One order as hashed and posted, keys in wire order `a b p s r t c`. */
export interface OrderWire {
  a: number;
  b: boolean;
  p: string;
  s: string;
  r: boolean;
  t: WireOrderType;
  c?: string;
}

/** How each platform order type becomes `p` and `t` (a table; `mark`-relative only for market). */
const ORDER_TYPE: Record<
  VenueOrderRequest['type'],
  (o: VenueOrderRequest, szDecimals: number) => { p: string; t: WireOrderType }
> = {
  market: (o, sz) => ({ p: protectivePrice(o.side, o.markPrice, sz), t: { limit: { tif: 'Ioc' } } }),
  limit: (o) => ({ p: toWire(need(o.price, 'price')), t: { limit: { tif: TIF[o.timeInForce] } } }),
  stop: (o, sz) => ({
    p: protectivePrice(o.side, need(o.triggerPrice, 'triggerPrice'), sz),
    t: { trigger: { isMarket: true, triggerPx: toWire(need(o.triggerPrice, 'triggerPrice')), tpsl: 'sl' } },
  }),
  take_profit: (o, sz) => ({
    p: protectivePrice(o.side, need(o.triggerPrice, 'triggerPrice'), sz),
    t: { trigger: { isMarket: true, triggerPx: toWire(need(o.triggerPrice, 'triggerPrice')), tpsl: 'tp' } },
  }),
  stop_limit: (o) => ({
    p: toWire(need(o.stopLimitPrice, 'stopLimitPrice')),
    t: { trigger: { isMarket: false, triggerPx: toWire(need(o.triggerPrice, 'triggerPrice')), tpsl: 'sl' } },
  }),
};

function need(v: string | null, name: string): string {
  if (v == null) throw new Error(`${name} is required`);
  return v;
}

/** The spec of a platform symbol on Hyperliquid. @throws Error when not listed. */
export function specOf(symbol: string): SymbolSpec & { venueSymbol: string } {
  const spec = findSymbol('hyperliquid', symbol);
  if (!spec?.venueSymbol) throw new Error(`${symbol} is not a Hyperliquid symbol`);
  return spec as SymbolSpec & { venueSymbol: string };
}

/** The spec of a Hyperliquid coin name (`"BTC"` → the spec of `BTC.HL`), or undefined when the platform does not list it. */
export function specOfCoin(coin: string): SymbolSpec | undefined {
  return HYPERLIQUID_SYMBOLS.find((s) => s.base === coin);
}

/** Platform symbol of a Hyperliquid coin name (`"BTC"` → `BTC.HL`); the coin itself when not listed. */
export function symbolOfCoin(coin: string): string {
  return specOfCoin(coin)?.symbol ?? coin;
}

/**
 * The order wire of a platform order: market = IOC limit at mark ± 5 %; stop / take_profit =
 * market trigger orders (`tpsl` sl / tp) whose protective limit is trigger ± 5 %; stop_limit = a
 * limit trigger at `stopLimitPrice`; limit TIF 1:1. Size rounded down to szDecimals. Keys are
 * written in wire order; `c` = `order.clientOrderId`.
 * @throws Error on a missing price field, a size rounding to 0, or an unknown symbol.
 */
export function orderWire(order: VenueOrderRequest): OrderWire {
  const spec = specOf(order.symbol);
  const { p, t } = ORDER_TYPE[order.type](order, spec.szDecimals);
  return {
    a: Number(spec.venueSymbol),
    b: order.side === 'buy',
    p,
    s: roundSize(order.qty, spec.szDecimals),
    r: order.reduceOnly,
    t,
    c: order.clientOrderId,
  };
}

/**
 * Hyperliquid order status → spec status. Every `…Canceled` is `canceled`, every `…Rejected` is
 * `rejected` (see {@link platformStatus} for ones not listed).
 */
export const STATUS: Record<string, OrderStatus> = {
  open: 'open',
  filled: 'filled',
  canceled: 'canceled',
  triggered: 'triggered',
  rejected: 'rejected',
  marginCanceled: 'canceled',
  vaultWithdrawalCanceled: 'canceled',
  openInterestCapCanceled: 'canceled',
  selfTradeCanceled: 'canceled',
  reduceOnlyCanceled: 'canceled',
  siblingFilledCanceled: 'canceled',
  delistedCanceled: 'canceled',
  liquidatedCanceled: 'canceled',
  scheduledCancel: 'canceled',
  tickRejected: 'rejected',
  minTradeNtlRejected: 'rejected',
  perpMarginRejected: 'rejected',
  reduceOnlyRejected: 'rejected',
  badAloPxRejected: 'rejected',
  iocCancelRejected: 'rejected',
  badTriggerPxRejected: 'rejected',
  marketOrderNoLiquidityRejected: 'rejected',
  positionIncreaseAtOpenInterestCapRejected: 'rejected',
  positionFlipAtOpenInterestCapRejected: 'rejected',
  tooAggressiveAtOpenInterestCapRejected: 'rejected',
  openInterestIncreaseRejected: 'rejected',
  insufficientSpotBalanceRejected: 'rejected',
  oracleRejected: 'rejected',
  perpMaxPositionRejected: 'rejected',
};

/** Status suffixes for statuses the table does not list yet (the venue adds flavours over time). */
const STATUS_SUFFIX: [string, OrderStatus][] = [
  ['Canceled', 'canceled'],
  ['Rejected', 'rejected'],
];

/** Spec status of a Hyperliquid order status. @throws Error on a status neither the table nor a suffix covers. */
export function platformStatus(venueStatus: string): OrderStatus {
  const s = STATUS[venueStatus] ?? STATUS_SUFFIX.find(([suffix]) => venueStatus.endsWith(suffix))?.[1];
  if (!s) throw new Error(`unknown Hyperliquid order status ${venueStatus}`);
  return s;
}

/** Hyperliquid `orderType` labels → platform order type. */
export const ORDER_TYPE_FROM_VENUE: Record<string, string> = {
  Limit: 'limit',
  Market: 'market',
  'Stop Market': 'stop',
  'Stop Limit': 'stop_limit',
  'Take Profit Market': 'take_profit',
  'Take Profit Limit': 'take_profit',
};

/** Venue side letter → platform side: `B` bid/buy, `A` ask/sell. */
export const SIDE_FROM_VENUE: Record<string, 'buy' | 'sell'> = { B: 'buy', A: 'sell' };

// JSON shapes: the fields the adapter reads; the rest of each object (the simulator writes it in
// full) passes through unchecked. Prices, sizes and fees are number strings, ids and epoch-ms times
// numbers.

const side = z.enum(['B', 'A']);
const cloid = z.string().nullish();

/**
 * The inner order object of `orderStatus`, `historicalOrders` and `frontendOpenOrders`; `sz` is
 * the remaining (unfilled) size. The venue also sends `tif`, `reduceOnly`, `isTrigger`,
 * `triggerPx`, `triggerCondition`, `children`, `isPositionTpsl`.
 */
export const wireOrderSchema = z.looseObject({
  coin: text,
  side,
  limitPx: decimal,
  sz: decimal,
  oid: int,
  timestamp: int,
  origSz: decimal,
  cloid,
  orderType: text.optional(),
});

/** `{order, status, statusTimestamp}` as `orderStatus` (under `order`) and `historicalOrders` report it. */
export const wireOrderWithStatusSchema = z.looseObject({ order: wireOrderSchema, status: text, statusTimestamp: int });
export type WireOrderWithStatus = z.infer<typeof wireOrderWithStatusSchema>;

/**
 * One fill as `userFills` / `userFillsByTime` report it (fee in `feeToken`, USDC). The venue also
 * sends `startPosition`, `dir`, `closedPnl`, `hash`, `crossed`, `feeToken`.
 */
export const wireFillSchema = z.looseObject({
  coin: text,
  px: decimal,
  sz: decimal,
  side,
  time: int,
  oid: int,
  fee: decimal,
  tid: int,
  cloid,
});
export type WireFill = z.infer<typeof wireFillSchema>;

/**
 * One entry of an `order` / `cancel` answer's `statuses`: `"success"` (and other words), or an
 * object with `resting`, `filled` or `error`.
 */
export const wireActionStatusSchema = z.union([
  text,
  z.looseObject({
    resting: z.looseObject({ oid: int }).optional(),
    filled: z.looseObject({ totalSz: decimal, avgPx: decimal, oid: int }).optional(),
    error: text.optional(),
  }),
]);

/** An ok answer of `POST /exchange`: `{status: "ok", response: {type, data: {statuses}}}` (data absent for some actions). */
export const exchangeAnswerSchema = z
  .looseObject({
    response: z
      .looseObject({ data: z.looseObject({ statuses: z.array(wireActionStatusSchema).optional() }).nullish() })
      .nullish(),
  })
  .nullable();

/** `orderStatus`: `{status: "order", order}` for a known order, `{status: "unknownOid"}` otherwise. */
export const orderStatusAnswerSchema = z
  .looseObject({ status: text, order: wireOrderWithStatusSchema.nullish() })
  .nullable();

/**
 * `clearinghouseState` (the owner's perp account, USDC = USD): `marginSummary.accountValue` (equity),
 * `totalMarginUsed`, `withdrawable`, and per open position `szi` (signed size), `entryPx`, `positionValue`
 * (|size| × mark), `unrealizedPnl`, `leverage.value`. The venue also sends `crossMarginSummary`,
 * `crossMaintenanceMarginUsed`, `time`, and per position `liquidationPx`, `marginUsed`, `cumFunding`, ….
 */
export const clearinghouseStateSchema = z.looseObject({
  marginSummary: z.looseObject({ accountValue: decimal, totalMarginUsed: decimal }),
  withdrawable: decimal,
  assetPositions: z.array(
    z.looseObject({
      position: z.looseObject({
        coin: text,
        szi: decimal,
        entryPx: decimal.nullish(),
        positionValue: decimal,
        unrealizedPnl: decimal,
        leverage: z.looseObject({ value: int }),
      }),
    }),
  ),
});
export type ClearinghouseState = z.infer<typeof clearinghouseStateSchema>;

/** The owner's account from `clearinghouseState` (venues/types.ts `VenueAccount`): balance = equity − unrealised. */
export function toVenueAccount(w: ClearinghouseState): VenueAccount {
  const open = w.assetPositions.map((a) => a.position).filter((p) => !new Decimal(p.szi).isZero());
  const unrealized = open.reduce((s, p) => s.add(p.unrealizedPnl), new Decimal(0));
  const equity = new Decimal(w.marginSummary.accountValue);
  return {
    balanceUsd: fmt(equity.sub(unrealized)),
    unrealizedPnlUsd: fmt(unrealized),
    equityUsd: fmt(equity),
    marginUsedUsd: fmt(new Decimal(w.marginSummary.totalMarginUsed)),
    marginAvailableUsd: fmt(new Decimal(w.withdrawable)),
    positions: open.map((p) => ({
      symbol: symbolOfCoin(p.coin),
      qty: fmt(new Decimal(p.szi)),
      avgEntryPrice: fmt(new Decimal(p.entryPx ?? '0')),
      markPrice: fmt(
        new Decimal(p.positionValue)
          .div(new Decimal(p.szi).abs())
          .toDecimalPlaces(MAX_WIRE_DECIMALS, Decimal.ROUND_HALF_EVEN),
      ),
      unrealizedPnlUsd: fmt(new Decimal(p.unrealizedPnl)),
      leverage: String(p.leverage.value),
    })),
  };
}

/** A venue order mapped to the platform's view; `avgFillPrice` comes from the order's fills (null when none). */
export function toVenueOrder(w: WireOrderWithStatus, avgFillPrice: string | null): VenueOrder {
  const o = w.order;
  const filled = new Decimal(o.origSz).sub(o.sz);
  return {
    venueOrderId: String(o.oid),
    clientOrderId: o.cloid ?? null,
    symbol: symbolOfCoin(o.coin),
    side: SIDE_FROM_VENUE[o.side],
    type: ORDER_TYPE_FROM_VENUE[o.orderType ?? 'Limit'] ?? String(o.orderType),
    qty: toWire(o.origSz),
    price: o.limitPx == null ? null : toWire(o.limitPx),
    status: platformStatus(w.status),
    filledQty: toWire(filled.lt(0) ? '0' : filled),
    avgFillPrice,
    ...(platformStatus(w.status) === 'canceled' || platformStatus(w.status) === 'rejected' ? { reason: w.status } : {}),
    updatedAt: w.statusTimestamp,
  };
}

/** A venue fill mapped to the platform's view (fee in USDC = USD). */
export function toVenueFill(f: WireFill): VenueFill {
  return {
    venueTradeId: String(f.tid),
    venueOrderId: String(f.oid),
    clientOrderId: f.cloid ?? null,
    symbol: symbolOfCoin(f.coin),
    side: SIDE_FROM_VENUE[f.side],
    qty: toWire(f.sz),
    price: toWire(f.px),
    feeUsd: new Decimal(f.fee).toFixed(),
    time: f.time,
  };
}

/** Size-weighted average price of fills (decimal string), or null when there are none. */
export function averagePrice(fills: { px: string; sz: string }[]): string | null {
  let qty = new Decimal(0);
  let notional = new Decimal(0);
  for (const f of fills) {
    qty = qty.add(f.sz);
    notional = notional.add(new Decimal(f.px).mul(f.sz));
  }
  return qty.isZero() ? null : notional.div(qty).toDecimalPlaces(MAX_WIRE_DECIMALS, Decimal.ROUND_HALF_EVEN).toFixed();
}

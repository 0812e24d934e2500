/**
 * Polymarket CLOB wire vocabulary ↔ the platform's: order status, side, order type and time in
 * force, the protective price of a market order, and the venue's JSON shapes the adapter reads.
 * Pure tables and arithmetic on decimal strings (no I/O).
 */
import { Decimal } from '../../../domain/decimal.js';
import type { OrderStatus } from '../../../domain/oms/intent.js';

/**
 * Venue order status (compared lower-case) → spec status. `live`/`delayed`/`unmatched` are all
 * accepted and working (`unmatched`: marketable but placed without matching); `matched` is fully
 * filled; every cancellation flavour is `canceled`.
 */
export const STATUS: Record<string, OrderStatus> = {
  live: 'open',
  delayed: 'open',
  unmatched: 'open',
  matched: 'filled',
  canceled: 'canceled',
  cancelled: 'canceled',
  canceled_market_resolved: 'canceled',
  invalid: 'rejected',
};

/** Spec status of a venue status string. @throws Error on a status the table does not know. */
export function platformStatus(venueStatus: string): OrderStatus {
  const s = STATUS[venueStatus.toLowerCase()];
  if (!s) throw new Error(`unknown Polymarket order status ${venueStatus}`);
  return s;
}

/** Platform side → venue side and back. */
export const SIDE_TO_VENUE = { buy: 'BUY', sell: 'SELL' } as const;
export const SIDE_FROM_VENUE: Record<string, 'buy' | 'sell'> = { BUY: 'buy', SELL: 'sell' };

/**
 * How a platform order type and time in force go on the wire: market orders are FAK at a
 * protective limit price, `Ioc` limits are FAK, `Alo` limits are GTC with `postOnly: true`.
 * Stops and take-profits do not exist on the CLOB (absent here: the adapter refuses them).
 */
export const ORDER_TYPE: Record<string, { orderType: 'GTC' | 'FAK'; postOnly: boolean }> = {
  'market:Gtc': { orderType: 'FAK', postOnly: false },
  'market:Ioc': { orderType: 'FAK', postOnly: false },
  'market:Alo': { orderType: 'FAK', postOnly: false },
  'limit:Gtc': { orderType: 'GTC', postOnly: false },
  'limit:Ioc': { orderType: 'FAK', postOnly: false },
  'limit:Alo': { orderType: 'GTC', postOnly: true },
};

/** Ticks between the mark and a market order's protective limit price. */
export const PROTECTIVE_TICKS = 5;

/**
 * The limit price of a market order: mark + 5 ticks (buy) or mark − 5 ticks (sell), on the tick
 * grid (rounded away from the mark), capped to [tick, 1 − tick] (the CLOB's price range).
 * Decimal strings in, decimal string out.
 */
export function protectivePrice(side: 'buy' | 'sell', mark: string, tickSize: string): string {
  const tick = new Decimal(tickSize);
  const raw = side === 'buy' ? new Decimal(mark).add(tick.mul(PROTECTIVE_TICKS)) : new Decimal(mark).sub(tick.mul(PROTECTIVE_TICKS));
  const onGrid = raw.div(tick).toDecimalPlaces(0, side === 'buy' ? Decimal.ROUND_CEIL : Decimal.ROUND_FLOOR).mul(tick);
  return Decimal.min(Decimal.max(onGrid, tick), new Decimal(1).sub(tick)).toFixed();
}

/**
 * The taker fee in USD of a fill: Polymarket's formula `rate × min(price, 1 − price) × size`
 * with `rate = fee_rate_bps / 10000` (the trade's own rate; 0 on most markets). Makers pay 0.
 */
export function takerFeeUsd(feeRateBps: string, price: string, size: string): string {
  const p = new Decimal(price);
  return new Decimal(feeRateBps).div(10_000).mul(Decimal.min(p, new Decimal(1).sub(p))).mul(size).toFixed();
}

/** `GET /data/order/<id>` and the items of `GET /data/orders`. Sizes in shares, price 0–1, times epoch s. */
export interface WireOrder {
  id: string;
  status: string;
  owner: string;
  maker_address: string;
  market: string;
  asset_id: string;
  side: 'BUY' | 'SELL';
  original_size: string;
  size_matched: string;
  price: string;
  associate_trades: string[];
  outcome: string;
  created_at: number;
  expiration: string;
  order_type: string;
  /** Only the simulator reports it (the real venue does not): see the adapter's lookup notes. */
  salt?: number;
}

/** One maker leg of a trade. */
export interface WireMakerOrder {
  order_id: string;
  owner: string;
  maker_address: string;
  matched_amount: string;
  price: string;
  fee_rate_bps: string;
  asset_id: string;
  outcome: string;
  side: 'BUY' | 'SELL';
}

/** An item of `GET /data/trades`. `match_time` is epoch seconds (string). */
export interface WireTrade {
  id: string;
  taker_order_id: string;
  market: string;
  asset_id: string;
  side: 'BUY' | 'SELL';
  size: string;
  fee_rate_bps: string;
  price: string;
  status: string;
  match_time: string;
  last_update: string;
  outcome: string;
  owner: string;
  maker_address: string;
  trader_side: 'TAKER' | 'MAKER';
  maker_orders: WireMakerOrder[];
}

/** A page of `GET /data/orders` or `GET /data/trades`; `next_cursor` `LTE=` ends the listing. */
export interface WirePage<T> {
  data: T[];
  next_cursor: string;
  limit?: number;
  count?: number;
}

/** Cursor of the first page and the cursor that means "no more pages". */
export const INITIAL_CURSOR = 'MA==';
export const END_CURSOR = 'LTE=';

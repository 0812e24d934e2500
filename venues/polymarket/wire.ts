/**
 * Polymarket CLOB wire vocabulary ↔ the platform's: order status, side, order type and time in
 * force, the protective price of a market order, and the venue's JSON shapes the adapter reads.
 * Pure tables and arithmetic on decimal strings (no I/O).
 */
import { z } from 'zod';
import { Decimal } from '../../domain/decimal.js';
import type { OrderStatus } from '../../domain/oms/intent.js';
import { decimal, numberish, statusReader, text } from '../wire.js';

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
export const platformStatus = statusReader('Polymarket', STATUS);

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
  const raw =
    side === 'buy'
      ? new Decimal(mark).add(tick.mul(PROTECTIVE_TICKS))
      : new Decimal(mark).sub(tick.mul(PROTECTIVE_TICKS));
  const onGrid = raw
    .div(tick)
    .toDecimalPlaces(0, side === 'buy' ? Decimal.ROUND_CEIL : Decimal.ROUND_FLOOR)
    .mul(tick);
  return Decimal.min(Decimal.max(onGrid, tick), new Decimal(1).sub(tick)).toFixed();
}

/**
 * The taker fee in USD of a fill: Polymarket's formula `rate × min(price, 1 − price) × size`
 * with `rate = fee_rate_bps / 10000` (the trade's own rate; 0 on most markets). Makers pay 0.
 */
export function takerFeeUsd(feeRateBps: string, price: string, size: string): string {
  const p = new Decimal(price);
  return new Decimal(feeRateBps)
    .div(10_000)
    .mul(Decimal.min(p, new Decimal(1).sub(p)))
    .mul(size)
    .toFixed();
}

// JSON shapes: the fields the adapter reads; the rest of each object (the simulator writes it in
// full) passes through unchecked. Sizes (shares) and prices (0–1) are decimal text, times epoch
// seconds.

const side = z.enum(['BUY', 'SELL']);

/**
 * `GET /data/order/<id>` (any status) and the items of `GET /data/orders` (working orders only).
 * `maker_address` is the wallet the order trades for. The venue also sends `owner` (the API key),
 * `market`, `associate_trades`, `outcome`, `expiration`; never the order's salt or
 * signing timestamp.
 */
export const wireOrderSchema = z.looseObject({
  id: text,
  status: text,
  asset_id: text,
  side,
  original_size: decimal,
  size_matched: decimal,
  price: decimal,
  created_at: numberish,
  maker_address: text.optional(),
  /** `GTC`, `GTD`, `FOK` or `FAK`: which amounts rule the order was signed under (docs/venues.md §3.1). */
  order_type: text.optional(),
});
export type WireOrder = z.infer<typeof wireOrderSchema>;

/** One maker leg of a trade. The venue also sends `fee_rate_bps` and `outcome`. */
export const wireMakerOrderSchema = z.looseObject({
  order_id: text,
  owner: text,
  maker_address: text,
  matched_amount: decimal,
  price: decimal,
  asset_id: text,
  side,
});

/**
 * An item of `GET /data/trades`; `match_time` is epoch seconds (text). The venue also sends
 * `market`, `status`, `last_update`, `outcome`, `owner`, `maker_address`.
 */
export const wireTradeSchema = z.looseObject({
  id: text,
  taker_order_id: text,
  asset_id: text,
  side,
  size: decimal,
  fee_rate_bps: decimal.optional(),
  price: decimal,
  match_time: text,
  trader_side: z.enum(['TAKER', 'MAKER']),
  maker_orders: z.array(wireMakerOrderSchema),
});
export type WireTrade = z.infer<typeof wireTradeSchema>;

/**
 * A page of `GET /data/orders` or `GET /data/trades` of `item`s, read as `{ data, next_cursor }`
 * (missing fields read empty); `next_cursor` `LTE=` ends the listing.
 */
export const wirePageSchema = <T>(item: z.ZodType<T>) =>
  z
    .looseObject({ data: z.array(item).nullish(), next_cursor: text.nullish() })
    .nullable()
    .transform((p) => ({ data: p?.data ?? [], next_cursor: p?.next_cursor ?? null }));

/**
 * `GET /balance-allowance?asset_type=COLLATERAL`: the funder's USDC `balance` in base units (6 decimals,
 * text). The venue also sends `allowance` (or `allowances` per exchange contract).
 */
export const wireBalanceSchema = z.looseObject({ balance: decimal });

/** USDC base units per dollar (6 decimals). */
export const USDC_UNITS = 1_000_000;

/** Polymarket's reason in an error body (`{"error": …}` or `{"errorMsg": …}`; a non-text one as JSON), else `fallback`. */
export function errorReason(body: unknown, fallback: string): string {
  const b = body as { error?: unknown; errorMsg?: unknown } | null;
  const reason = b?.error ?? b?.errorMsg;
  if (reason === undefined || reason === null) return fallback;
  return typeof reason === 'string' ? reason : JSON.stringify(reason);
}

/** Cursor of the first page and the cursor that means "no more pages". */
export const INITIAL_CURSOR = 'MA==';
export const END_CURSOR = 'LTE=';

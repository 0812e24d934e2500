/**
 * Kalshi Trade API v2 wire vocabulary ↔ the platform's (docs/venues.md §4.2): cents ↔
 * probability prices, the protective price of a market order, time in force, the order-status
 * table, the client order id, Kalshi's taker fee, the error envelope, symbol ↔ (ticker, side), and
 * the JSON shapes of orders and fills. Pure tables and arithmetic on decimal strings (no I/O).
 *
 * A platform symbol is ONE side of a Kalshi market: `PRES-2024-DJT-YES.KX` trades the YES contracts
 * of market `PRES-2024-DJT`, `PRES-2024-DJT-NO.KX` its NO contracts (`venueSymbol`
 * `PRES-2024-DJT:yes` / `:no`). A platform price is that side's price in USD per contract (0–1);
 * on the wire it is whole cents 1–99 in `yes_price` or `no_price` (NO = 100 − YES). Platform
 * `buy`/`sell` is Kalshi's `action`.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { Decimal } from '../../domain/decimal.js';
import type { OrderStatus } from '../../domain/oms/intent.js';
import { findByVenueSymbol, findSymbol } from '../../domain/market/symbols.js';
import { int, statusReader, text } from '../wire.js';
import { VenueRejected, type VenueAccount, type VenueFill, type VenueOrder } from '../types.js';
import { fullyPaidAccount } from '../account.js';

/** A market side on the wire. */
export type KalshiSide = 'yes' | 'no';
/** Kalshi's time-in-force values (long form, as the Trade API v2 takes them). */
export type KalshiTif = 'good_till_canceled' | 'immediate_or_cancel' | 'fill_or_kill';

/** Lowest and highest price of a contract, cents. */
export const MIN_CENTS = 1;
export const MAX_CENTS = 99;

/** Cents between the mark and a market order's protective limit price. */
export const PROTECTIVE_CENTS = 5;

/** Most results a Kalshi list endpoint returns per page (`limit` ≤ 200). */
export const PAGE_LIMIT = 200;

// ---------------------------------------------------------------------------------------------
// Prices

/**
 * A probability price (USD per contract, decimal string) as whole cents.
 * @throws VenueRejected when the price is not a whole number of cents in 1–99 (Kalshi refuses it).
 */
export function toCents(price: string): number {
  const cents = new Decimal(price).mul(100);
  if (!cents.isInteger() || cents.lt(MIN_CENTS) || cents.gt(MAX_CENTS))
    throw new VenueRejected(`invalid_parameters: price ${price} must be a whole number of cents between 0.01 and 0.99`);
  return cents.toNumber();
}

/** Whole cents → probability price string (`56` → `"0.56"`). */
export const centsToPrice = (cents: number): string => new Decimal(cents).div(100).toFixed();

/** Whole cents → Kalshi's fixed-point dollar string with 4 decimals (`56` → `"0.5600"`). */
export const centsToDollars = (cents: number | Decimal): string => new Decimal(cents).div(100).toFixed(4);

/** A fixed-point dollar string (`"0.5600"`) → whole cents, rounded half-up. */
export const dollarsToCents = (dollars: string): number =>
  new Decimal(dollars).mul(100).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber();

/** The other side's price of a contract, cents (NO = 100 − YES). */
export const otherSideCents = (cents: number): number => 100 - cents;

const clampCents = (c: Decimal): number => Decimal.min(Decimal.max(c, MIN_CENTS), MAX_CENTS).toNumber();

/**
 * The limit price of a market order, cents: mark + 5 cents rounded up (buy) or mark − 5 cents
 * rounded down (sell), clamped to 1–99. `mark` is the side's probability price (decimal string).
 */
export function protectiveCents(side: 'buy' | 'sell', mark: string): number {
  const m = new Decimal(mark).mul(100);
  return side === 'buy' ? clampCents(m.add(PROTECTIVE_CENTS).ceil()) : clampCents(m.sub(PROTECTIVE_CENTS).floor());
}

/**
 * A contract count from a platform size (decimal string).
 * @throws VenueRejected when the size is not a whole number ≥ 1 (Kalshi trades whole contracts).
 */
export function toCount(qty: string): number {
  const d = new Decimal(qty);
  if (!d.isInteger() || d.lt(1))
    throw new VenueRejected(`invalid_parameters: count must be a whole number of contracts ≥ 1 (got ${qty})`);
  return d.toNumber();
}

// ---------------------------------------------------------------------------------------------
// Order types, status, ids

/**
 * How a platform order type and time in force go on the wire. Market orders are
 * `immediate_or_cancel` at the protective price; `Alo` is a `good_till_canceled` post-only limit.
 * Stops and take-profits do not exist on Kalshi (absent: the adapter refuses them).
 */
export const ORDER_TYPE: Record<string, { time_in_force: KalshiTif; post_only: boolean }> = {
  'market:Gtc': { time_in_force: 'immediate_or_cancel', post_only: false },
  'market:Ioc': { time_in_force: 'immediate_or_cancel', post_only: false },
  'market:Alo': { time_in_force: 'immediate_or_cancel', post_only: false },
  'limit:Gtc': { time_in_force: 'good_till_canceled', post_only: false },
  'limit:Ioc': { time_in_force: 'immediate_or_cancel', post_only: false },
  'limit:Alo': { time_in_force: 'good_till_canceled', post_only: true },
};

/**
 * Kalshi order status → spec status: `resting` works, `executed` is fully filled, `canceled`
 * (including an IOC's unfilled remainder) is canceled, `pending` (accepted, not yet on the book) works.
 */
export const STATUS: Record<string, OrderStatus> = {
  resting: 'open',
  pending: 'open',
  executed: 'filled',
  canceled: 'canceled',
  cancelled: 'canceled',
};

/** Spec status of a Kalshi status. @throws Error on a status the table does not know. */
export const platformStatus = statusReader('Kalshi', STATUS);

/** Kalshi's client_order_id rule: ≤ 64 characters of `[A-Za-z0-9_\-:+=/]`. */
export const CLIENT_ORDER_ID_RE = /^[-\w:+=/]{1,64}$/;

/**
 * The client order id of an intent: the intent id itself when Kalshi accepts it as is (platform
 * ids `int_` + 20 hex characters do: 24 characters of letters, digits and `_`), so the venue shows the intent
 * id; otherwise a UUID made of the first 16 bytes of sha256(intentId) (version nibble 4, variant
 * 10), which is deterministic too.
 */
export function clientOrderIdOf(intentId: string): string {
  if (CLIENT_ORDER_ID_RE.test(intentId)) return intentId;
  const b = createHash('sha256').update(intentId).digest().subarray(0, 16);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

// ---------------------------------------------------------------------------------------------
// Fees

/** Kalshi's general taker fee rate (fee = ⌈0.07 × C × P × (1 − P)⌉ to the next cent). */
export const TAKER_FEE_RATE = new Decimal('0.07');

/**
 * Kalshi's taker fee of a fill of `count` contracts at `priceCents`, in whole cents:
 * ceil(0.07 × C × P × (1 − P) × 100) with P in dollars (symmetric in YES/NO). Makers pay 0 on the
 * markets modelled here. E.g. 10 contracts at 50¢ → 0.175 USD → 18 cents.
 */
export function takerFeeCents(count: number, priceCents: number): number {
  const p = new Decimal(priceCents).div(100);
  return TAKER_FEE_RATE.mul(count).mul(p).mul(new Decimal(1).sub(p)).mul(100).ceil().toNumber();
}

// ---------------------------------------------------------------------------------------------
// Errors

/** Kalshi's error body `{code, message, details?, service?}` (documented ErrorResponse). */
export interface KalshiError {
  code?: string;
  message?: string;
  details?: string;
  service?: string;
}

/**
 * The venue's reason from an error body: Kalshi answers `{"error":{code,message,details?,service?}}`
 * (seen in the wild) and documents the bare `{code,message,details,service}`; both are read, and a
 * plain `{"error":"text"}` too. Reason = `message` (else `code`), with `: details` appended when
 * the venue gave details; `fallback` when the body has none of these.
 */
export function errorReason(body: unknown, fallback: string): string {
  const b = body as { error?: KalshiError | string } & KalshiError;
  const e: KalshiError | undefined =
    typeof b?.error === 'string' ? { message: b.error } : (b?.error ?? (b && (b.code || b.message) ? b : undefined));
  const head = e?.message || e?.code;
  if (!head) return fallback;
  return e?.details ? `${head}: ${e.details}` : head;
}

// ---------------------------------------------------------------------------------------------
// Symbols

/** The Kalshi market ticker and side a platform symbol trades. @throws VenueRejected for a symbol the platform does not list on Kalshi. */
export function marketSide(symbol: string): { ticker: string; side: KalshiSide } {
  const spec = findSymbol('kalshi', symbol);
  const m = spec?.venueSymbol?.match(/^(.+):(yes|no)$/);
  if (!m) throw new VenueRejected(`market not found: ${symbol}`);
  return { ticker: m[1], side: m[2] as KalshiSide };
}

/** The platform symbol of a (ticker, side), or `<ticker>:<side>` when the platform does not list it. */
export function platformSymbol(ticker: string, side: KalshiSide): string {
  return findByVenueSymbol('kalshi', `${ticker}:${side}`)?.symbol ?? `${ticker}:${side}`;
}

// ---------------------------------------------------------------------------------------------
// JSON shapes: the fields the adapter reads; the rest of each documented object (the simulator
// writes it in full) passes through unchecked. Prices and costs are whole cents, counts whole
// contracts, times ISO 8601 text (fills also carry `ts`, epoch seconds).

const side = z.enum(['yes', 'no']);
const action = z.enum(['buy', 'sell']);
const cents = int;
const count = int;
const time = z.string().nullish();

/**
 * A Kalshi order (`GET /portfolio/orders/{id}` → `{order}`). The venue also sends `user_id`,
 * `*_dollars` twins of the cent fields, `taker_fees`, `maker_fees`, `queue_position`,
 * `expiration_time`, `self_trade_prevention_type`, `order_group_id`, `cancel_order_on_pause`.
 */
export const wireOrderSchema = z.looseObject({
  order_id: text,
  client_order_id: text.optional(),
  ticker: text,
  side,
  action,
  type: z.enum(['limit', 'market']).optional(),
  status: text,
  yes_price: cents,
  no_price: cents,
  fill_count: count,
  remaining_count: count,
  initial_count: count.optional(),
  taker_fill_cost: cents.optional(),
  maker_fill_cost: cents.optional(),
  created_time: time,
  last_update_time: time,
});
export type WireOrder = z.infer<typeof wireOrderSchema>;

/**
 * A Kalshi fill (`GET /portfolio/fills` → `{fills, cursor}`). `fee_cost` is fixed-point dollars
 * (text). The venue also sends `count_fp`, `yes_price_fixed`, `no_price_fixed`.
 */
export const wireFillSchema = z.looseObject({
  fill_id: text,
  trade_id: text,
  order_id: text,
  client_order_id: text.optional(),
  ticker: text,
  market_ticker: text,
  side,
  action,
  count,
  yes_price: cents,
  no_price: cents,
  is_taker: z.boolean(),
  fee_cost: text.optional(),
  created_time: text,
  ts: z.number(),
});
export type WireFill = z.infer<typeof wireFillSchema>;

/** A side's price of an order or fill, cents. */
export const sideCents = (w: { side: KalshiSide; yes_price: number; no_price: number }): number =>
  w.side === 'yes' ? w.yes_price : w.no_price;

/**
 * A Kalshi order in the platform's vocabulary: the symbol of its side, the side's price, filled
 * count, the average fill price ((taker + maker fill cost) / fill count, cents → USD) and the
 * status from {@link STATUS}.
 */
export function toVenueOrder(w: WireOrder): VenueOrder {
  const cost = (w.taker_fill_cost ?? 0) + (w.maker_fill_cost ?? 0);
  const updated = Date.parse(w.last_update_time ?? w.created_time ?? '');
  return {
    venueOrderId: w.order_id,
    clientOrderId: w.client_order_id || null,
    symbol: platformSymbol(w.ticker, w.side),
    side: w.action,
    type: w.type ?? 'limit',
    qty: String(w.initial_count ?? w.fill_count + w.remaining_count),
    price: centsToPrice(sideCents(w)),
    status: platformStatus(w.status),
    filledQty: String(w.fill_count),
    avgFillPrice: w.fill_count > 0 ? new Decimal(cost).div(w.fill_count).div(100).toFixed() : null,
    updatedAt: Number.isFinite(updated) ? updated : Date.now(),
  };
}

/**
 * A Kalshi fill in the platform's vocabulary. Fee: the fill's `fee_cost` (dollars) when the venue
 * reports it; otherwise Kalshi's taker formula for a taker fill and 0 for a maker fill.
 */
export function toVenueFill(f: WireFill): VenueFill {
  const cents = sideCents(f);
  const fee =
    f.fee_cost !== undefined
      ? new Decimal(f.fee_cost)
      : new Decimal(f.is_taker ? takerFeeCents(f.count, cents) : 0).div(100);
  const time = Date.parse(f.created_time);
  return {
    venueTradeId: f.fill_id || f.trade_id,
    venueOrderId: f.order_id,
    clientOrderId: f.client_order_id || null,
    symbol: platformSymbol(f.ticker || f.market_ticker, f.side),
    side: f.action,
    qty: String(f.count),
    price: centsToPrice(cents),
    feeUsd: fee.toFixed(),
    time: Number.isFinite(time) ? time : f.ts * 1000,
  };
}

/**
 * `GET /portfolio/balance`: the member's free cash `balance` and the current value of its positions
 * `portfolio_value`, whole cents. The venue also sends `updated_ts`.
 */
export const wireBalanceSchema = z.looseObject({ balance: cents, portfolio_value: cents.optional() });
export type WireBalance = z.infer<typeof wireBalanceSchema>;

/**
 * One market position (`GET /portfolio/positions` → `{market_positions, event_positions, cursor}`):
 * `position` signed contracts (+ YES, − NO), `market_exposure` their cost, cents. The venue also sends
 * `realized_pnl`, `fees_paid`, `total_traded`, `resting_orders_count` and `*_dollars` twins.
 */
export const wireMarketPositionSchema = z.looseObject({ ticker: text, position: count, market_exposure: cents });
export type WireMarketPosition = z.infer<typeof wireMarketPositionSchema>;

/**
 * The member's account (venues/account.ts `fullyPaidAccount`): cash and position value from the balance,
 * each open market position as the symbol of the side held (`position` > 0: YES, < 0: NO) with its
 * average entry = exposure ÷ contracts (cents → USD).
 */
export function toVenueAccount(b: WireBalance, markets: WireMarketPosition[]): VenueAccount {
  const positions = markets
    .filter((m) => m.position !== 0)
    .map((m) => ({
      symbol: platformSymbol(m.ticker, m.position > 0 ? 'yes' : 'no'),
      qty: String(Math.abs(m.position)),
      avgEntryPrice: new Decimal(m.market_exposure)
        .div(Math.abs(m.position))
        .div(100)
        .toDecimalPlaces(6, Decimal.ROUND_HALF_EVEN)
        .toFixed(),
      markPrice: null,
      unrealizedPnlUsd: null,
      leverage: null,
    }));
  const usd = (c: number) => new Decimal(c).div(100).toFixed();
  return fullyPaidAccount(
    usd(b.balance),
    positions,
    b.portfolio_value === undefined ? undefined : usd(b.portfolio_value),
  );
}

/**
 * Kalshi Trade API v2 wire vocabulary ↔ the platform's (docs/venues.md §4.2): the single YES book
 * (`bid`/`ask`) ↔ a platform side and action, fixed-point prices (`*_dollars`) and contract counts
 * (`*_fp`), the protective price of a market order, time in force, the order-status table, the
 * client order id, Kalshi's taker fee, the error envelope and symbol ↔ (ticker, side). Pure tables
 * and arithmetic on decimal strings (no I/O); the JSON shapes are ./shapes.ts.
 *
 * A platform symbol is ONE side of a Kalshi market: `PRES-2024-DJT-YES.KX` trades the YES contracts
 * of market `PRES-2024-DJT`, `PRES-2024-DJT-NO.KX` its NO contracts (`venueSymbol`
 * `PRES-2024-DJT:yes` / `:no`). A platform price is that side's price in USD per contract (0–1).
 *
 * Kalshi quotes every order from the YES side: `bid` buys YES, `ask` sells YES (which is buying NO
 * at 1 − price), and `price` is always the YES price. So a platform buy of YES or sell of NO is a
 * `bid`, a sell of YES or buy of NO an `ask`, and a NO price p goes out as the YES price 1 − p.
 * Orders and fills report the direction as `book_side` (`bid`/`ask`) and, equivalently,
 * `outcome_side` (`yes`/`no`: the outcome the member ends up long): `bid` ≡ `yes`, `ask` ≡ `no`.
 */
import { createHash } from 'node:crypto';
import { Decimal } from '../../domain/decimal.js';
import type { OrderStatus } from '../../domain/oms/intent.js';
import { findByVenueSymbol, findSymbol } from '../../domain/market/symbols.js';
import { statusReader } from '../wire.js';
import { VenueRejected } from '../types.js';

/** An outcome (a market side) on the wire: `outcome_side`, and the side a platform symbol trades. */
export type KalshiSide = 'yes' | 'no';
/** A side of Kalshi's single YES book: `bid` buys YES (long yes), `ask` sells YES (long no). */
export type BookSide = 'bid' | 'ask';
/** A platform action. */
export type Action = 'buy' | 'sell';
/** Kalshi's time-in-force values (long form, as the Trade API v2 takes them). */
export type KalshiTif = 'good_till_canceled' | 'immediate_or_cancel' | 'fill_or_kill';

/** A decimal amount: a decimal string or a Decimal (never a JS float). */
export type Amount = string | Decimal;

/** Lowest and highest price of a contract on the 1-cent grid of the markets modelled here, USD. */
export const MIN_PRICE = new Decimal('0.01');
export const MAX_PRICE = new Decimal('0.99');
/** The price grid step of a `linear_cent` market, USD. */
export const PRICE_STEP = new Decimal('0.01');

/** USD between the mark and a market order's protective limit price (5 cents). */
export const PROTECTIVE_USD = new Decimal('0.05');

/** Most results a Kalshi list endpoint returns per page (`limit` ≤ 200). */
export const PAGE_LIMIT = 200;

// ---------------------------------------------------------------------------------------------
// Direction

/** The book side of a platform action on a symbol side: buy YES / sell NO bid, sell YES / buy NO ask. */
export const BOOK_SIDE: Record<`${KalshiSide}:${Action}`, BookSide> = {
  'yes:buy': 'bid',
  'yes:sell': 'ask',
  'no:buy': 'ask',
  'no:sell': 'bid',
};

/** The platform action of a book side read as a symbol side: on YES a bid buys, on NO an ask buys. */
export const ACTION_OF: Record<`${KalshiSide}:${BookSide}`, Action> = {
  'yes:bid': 'buy',
  'yes:ask': 'sell',
  'no:ask': 'buy',
  'no:bid': 'sell',
};

/** The outcome a book side leaves the member long: `bid` ≡ `yes`, `ask` ≡ `no`. */
export const OUTCOME_OF: Record<BookSide, KalshiSide> = { bid: 'yes', ask: 'no' };

// ---------------------------------------------------------------------------------------------
// Fixed-point prices and counts

/** A USD amount or price as Kalshi writes it: a fixed-point dollar string with 4 decimals (`"0.5600"`). */
export const toDollars = (v: Amount): string => new Decimal(v).toFixed(4);

/** A contract count as Kalshi writes it: a fixed-point string with 2 decimals (`"10.00"`). */
export const toFp = (v: Amount): string => new Decimal(v).toFixed(2);

/** A fixed-point string (`"0.5600"`, `"10.00"`) in the platform's canonical form (`"0.56"`, `"10"`). */
export const plain = (v: Amount): string => new Decimal(v).toFixed();

/** The other side's price of a contract (NO = 1 − YES), as a Decimal. */
export const otherSide = (price: Amount): Decimal => new Decimal(1).minus(price);

/** A side's price from the YES price (`side` yes: itself; no: 1 − it). */
export const sidePrice = (side: KalshiSide, yesPrice: Amount): Decimal =>
  side === 'yes' ? new Decimal(yesPrice) : otherSide(yesPrice);

/** Whether `p` (USD) is on Kalshi's price grid: a whole number of cents from 0.01 to 0.99. */
export const onPriceGrid = (p: Decimal) => p.mod(PRICE_STEP).isZero() && p.gte(MIN_PRICE) && p.lte(MAX_PRICE);

/**
 * A platform price of `side` (USD per contract, decimal string) as the YES price Kalshi takes
 * (`"0.5600"`; a NO price p is 1 − p).
 * @throws VenueRejected when the price is not a whole number of cents in 0.01–0.99 (Kalshi refuses it).
 */
export function toYesPrice(side: KalshiSide, price: string): string {
  const p = new Decimal(price);
  if (!onPriceGrid(p))
    throw new VenueRejected(`invalid_parameters: price ${price} must be a whole number of cents between 0.01 and 0.99`);
  return toDollars(sidePrice(side, p));
}

/**
 * A price (USD) on the grid: rounded up or down to the cent, then clamped to 0.01–0.99, so that
 * {@link onPriceGrid} holds for it.
 */
export function toGridPrice(p: Decimal, round: 'up' | 'down'): Decimal {
  const cents = p.mul(100).toDecimalPlaces(0, round === 'up' ? Decimal.ROUND_CEIL : Decimal.ROUND_FLOOR);
  return Decimal.min(Decimal.max(cents.div(100), MIN_PRICE), MAX_PRICE);
}

/**
 * The limit price of a market order on a symbol side, USD (decimal string): mark + 5 cents rounded
 * up to the cent (buy) or mark − 5 cents rounded down (sell), clamped to 0.01–0.99. `mark` is the
 * side's probability price (decimal string).
 */
export function protectivePrice(action: Action, mark: string): string {
  const m = new Decimal(mark);
  const raw = action === 'buy' ? m.plus(PROTECTIVE_USD) : m.minus(PROTECTIVE_USD);
  return toGridPrice(raw, action === 'buy' ? 'up' : 'down').toFixed();
}

/**
 * A contract count from a platform size (decimal string), as Kalshi's fixed-point `count` (`"10.00"`).
 * @throws VenueRejected when the size is not a whole number ≥ 1 (fractional trading is not enabled
 *   on the markets the platform lists: their `szDecimals` is 0).
 */
export function toCount(qty: string): string {
  const d = new Decimal(qty);
  if (!d.isInteger() || d.lt(1))
    throw new VenueRejected(`invalid_parameters: count must be a whole number of contracts ≥ 1 (got ${qty})`);
  return toFp(d);
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
 * (including an IOC's unfilled remainder) is canceled.
 */
export const STATUS: Record<string, OrderStatus> = {
  resting: 'open',
  executed: 'filled',
  canceled: 'canceled',
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
 * Kalshi's taker fee of a fill of `count` contracts at price `price` (USD, either side's: the
 * formula is symmetric), USD rounded UP to the cent: ⌈0.07 × C × P × (1 − P)⌉. Makers pay 0 on the
 * markets modelled here. E.g. 10 contracts at 0.50 → 0.175 → 0.18.
 */
export function takerFee(count: Amount, price: Amount): Decimal {
  const p = new Decimal(price);
  return TAKER_FEE_RATE.mul(count).mul(p).mul(otherSide(p)).toDecimalPlaces(2, Decimal.ROUND_CEIL);
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
 * (seen in the wild) and documents the bare `{code,message,details}`; both are read, and a
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

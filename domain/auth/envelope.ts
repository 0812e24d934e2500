/**
 * A trader credential's risk envelope and allowlists (docs/api.md §2.1, §2.6 "Further checks"), checked
 * at compose. Pure, decimal, USD. Each refusal is an ApiError with a named code and the numbers behind it.
 *
 * - venue and symbol allowlists (null = every one): `403 venue_not_allowed`, `403 symbol_not_allowed`,
 *   every order;
 * - leverage: the order's `leverage` above `maxLeverage` → `400 envelope_leverage`, every order;
 * - order notional = qty × price (the limit, stop-limit or trigger price, else the mark) above
 *   `maxOrderNotionalUsd` → `400 envelope_order_notional`;
 * - position notional after the fill = |position qty + signed order qty| × price above
 *   `maxPositionNotionalUsd` → `400 envelope_position_notional`;
 * - loss today (UTC) = −(realised PnL of round trips closed today, net of their fees, + unrealised PnL of
 *   the open positions at the mark), across the account; at or above `dailyLossLimitUsd` →
 *   `403 daily_loss_limit`.
 *
 * The last three never refuse an order that does not add exposure (reduce-only, or one that leaves the
 * position no larger), so a trader can always close; without a price (no mark yet) the notional checks
 * pass and dispatch refuses a market order as `no_mark`.
 */
import { Decimal, fmt } from '../decimal.js';
import { ApiError } from '../errors.js';

/** The limits of a trader credential; an absent one is no limit. USD amounts are decimal strings. */
export interface RiskEnvelope {
  /** Largest order, qty × price, USD. */
  maxOrderNotionalUsd?: string;
  /** Largest position after the order fills, |qty| × price, USD. */
  maxPositionNotionalUsd?: string;
  /** Highest leverage an order may ask for. */
  maxLeverage?: number;
  /** Loss today (UTC) from which orders that add exposure are refused, USD. */
  dailyLossLimitUsd?: string;
}

/** Everything compose checks of a credential: its envelope and its allowlists (null = every venue or symbol). */
export interface CredentialLimits {
  envelope: RiskEnvelope;
  allowedVenues: readonly string[] | null;
  allowedSymbols: readonly string[] | null;
}

/** The order as the allowlists and the leverage limit see it. */
export interface EnvelopeOrder {
  venue: string;
  /** Venue-suffixed, e.g. `BTC.PAPER`. */
  symbol: string;
  leverage: number;
}

/** The order and the account it lands on, as the exposure limits see it. */
export interface ExposureOrder {
  side: 'buy' | 'sell';
  /** Contracts. */
  qty: string;
  reduceOnly: boolean;
  /** What the order is valued at (USD), see {@link valuationPrice}; null when unknown. */
  priceUsd: string | null;
  /** The account's current position in the symbol, signed contracts. */
  positionQty: string;
  /** The account's PnL today (UTC): realised net of fees plus unrealised at the mark, USD; null when not read. */
  pnlTodayUsd: string | null;
}

/** Whether `limits` restrict anything at all (else compose reads nothing for them). */
export function restricts(limits: CredentialLimits): boolean {
  return limits.allowedVenues !== null || limits.allowedSymbols !== null || Object.keys(limits.envelope).length > 0;
}

/** Whether the exposure limits need the position, the price and the day's PnL read. */
export function readsExposure(e: RiskEnvelope): boolean {
  return e.maxOrderNotionalUsd !== undefined || e.maxPositionNotionalUsd !== undefined || readsPnl(e);
}

/** Whether the daily loss limit needs the day's PnL read. */
export function readsPnl(e: RiskEnvelope): boolean {
  return e.dailyLossLimitUsd !== undefined;
}

/**
 * The price an order is valued at, USD: a `stop_limit`'s resting limit, a `limit`'s price, a `stop` or
 * `take_profit`'s trigger, else (a market order) the mark; null when that is unknown.
 */
export function valuationPrice(
  o: { type: string; price?: string; triggerPrice?: string; stopLimitPrice?: string },
  mark: () => string | null,
): string | null {
  const BY_TYPE: Record<string, string | undefined> = {
    stop_limit: o.stopLimitPrice,
    limit: o.price,
    stop: o.triggerPrice,
    take_profit: o.triggerPrice,
  };
  return BY_TYPE[o.type] ?? mark();
}

/** One allowlist: the field it names in a refusal, its code, and how to read it off the limits and the order. */
const ALLOWLISTS = [
  {
    code: 'venue_not_allowed',
    field: 'venue',
    list: (l: CredentialLimits) => l.allowedVenues,
    value: (o: EnvelopeOrder) => o.venue,
  },
  {
    code: 'symbol_not_allowed',
    field: 'symbol',
    list: (l: CredentialLimits) => l.allowedSymbols,
    value: (o: EnvelopeOrder) => o.symbol,
  },
] as const;

/**
 * The allowlist or leverage refusal of an order, or null.
 * @returns ApiError `403 venue_not_allowed` / `403 symbol_not_allowed` (`{ venue | symbol, allowed }`),
 *   `400 envelope_leverage` (`{ limit, requested }`).
 */
export function orderBreach(limits: CredentialLimits, o: EnvelopeOrder): ApiError | null {
  for (const a of ALLOWLISTS) {
    const allowed = a.list(limits);
    const v = a.value(o);
    if (allowed && !allowed.includes(v))
      return new ApiError(a.code, `this credential may not trade ${a.field} ${v}`, { [a.field]: v, allowed });
  }
  const max = limits.envelope.maxLeverage;
  if (max !== undefined && o.leverage > max)
    return new ApiError('envelope_leverage', `leverage ${o.leverage} is above this credential's limit ${max}`, {
      limit: max,
      requested: o.leverage,
    });
  return null;
}

/** One exposure limit: its code, the amount it compares (null = not known), when that breaks it, and how a refusal reads. */
const EXPOSURE_LIMITS = [
  {
    code: 'envelope_order_notional',
    limit: (e: RiskEnvelope) => e.maxOrderNotionalUsd,
    amount: (x: Exposure) => x.orderNotional,
    exceeds: (amount: Decimal, limit: string) => amount.gt(limit),
    what: 'order notional',
    verb: 'is above',
    extra: (amount: string, limitUsd: string) => ({ limitUsd, notionalUsd: amount }),
  },
  {
    code: 'envelope_position_notional',
    limit: (e: RiskEnvelope) => e.maxPositionNotionalUsd,
    amount: (x: Exposure) => x.positionNotional,
    exceeds: (amount: Decimal, limit: string) => amount.gt(limit),
    what: 'position notional after the fill',
    verb: 'is above',
    extra: (amount: string, limitUsd: string) => ({ limitUsd, notionalUsd: amount }),
  },
  {
    code: 'daily_loss_limit',
    limit: (e: RiskEnvelope) => e.dailyLossLimitUsd,
    amount: (x: Exposure) => x.lossToday,
    exceeds: (amount: Decimal, limit: string) => amount.gte(limit),
    what: 'loss today (UTC)',
    verb: 'reached',
    extra: (amount: string, limitUsd: string) => ({ limitUsd, lossUsd: amount }),
  },
] as const;

/** The amounts an order's exposure limits compare, USD (null = unknown). */
interface Exposure {
  orderNotional: Decimal | null;
  positionNotional: Decimal | null;
  lossToday: Decimal | null;
}

/**
 * The exposure refusal of an order, or null; an order that adds no exposure is never refused.
 * @returns ApiError `400 envelope_order_notional`, `400 envelope_position_notional` (`{ limitUsd, notionalUsd }`),
 *   `403 daily_loss_limit` (`{ limitUsd, lossUsd }`).
 */
export function exposureBreach(e: RiskEnvelope, o: ExposureOrder): ApiError | null {
  const qty = new Decimal(o.qty);
  const before = new Decimal(o.positionQty);
  const after = before.add(o.side === 'buy' ? qty : qty.neg());
  if (o.reduceOnly || after.abs().lte(before.abs())) return null;
  const exposure: Exposure = {
    orderNotional: o.priceUsd === null ? null : qty.mul(o.priceUsd),
    positionNotional: o.priceUsd === null ? null : after.abs().mul(o.priceUsd),
    lossToday: o.pnlTodayUsd === null ? null : new Decimal(o.pnlTodayUsd).neg(),
  };
  for (const l of EXPOSURE_LIMITS) {
    const limit = l.limit(e);
    const amount = l.amount(exposure);
    if (limit === undefined || amount === null || !l.exceeds(amount, limit)) continue;
    const shown = fmt(amount.toDecimalPlaces(2));
    return new ApiError(
      l.code,
      `${l.what} ${shown} USD ${l.verb} this credential's limit ${limit} USD`,
      l.extra(shown, limit),
    );
  }
  return null;
}

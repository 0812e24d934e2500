/**
 * Risk-profile limits of a challenge account (docs/api.md §4.8 risk profiles), checked at compose. Pure,
 * decimal, USD. A reduce-only order, and any order that shrinks the position, is never refused.
 *
 * - order notional = qty × price, the price being the limit (or stop-limit) price, else the mark;
 * - position notional after the order = |position qty + signed order qty| × price.
 */
import { Decimal } from '../decimal.js';

/** The limits (null = none). */
export interface RiskLimits {
  maxOrderNotionalUsd?: string | null;
  maxPositionNotionalUsd?: string | null;
}

/** The order against the limits: side, qty (contracts), price (USD), the current position (signed contracts). */
export interface RiskOrder {
  side: 'buy' | 'sell';
  qty: string;
  priceUsd: string;
  positionQty: string;
  reduceOnly: boolean;
}

/** Why an order breaks a limit, or null. */
export function riskLimitBreach(limits: RiskLimits, o: RiskOrder): string | null {
  const qty = new Decimal(o.qty);
  const before = new Decimal(o.positionQty);
  const after = before.add(o.side === 'buy' ? qty : qty.neg());
  if (o.reduceOnly || after.abs().lte(before.abs())) return null;
  const order = qty.mul(o.priceUsd);
  if (limits.maxOrderNotionalUsd && order.gt(limits.maxOrderNotionalUsd))
    return `order notional ${order.toFixed(2)} USD is above the limit ${limits.maxOrderNotionalUsd} USD`;
  const position = after.abs().mul(o.priceUsd);
  if (limits.maxPositionNotionalUsd && position.gt(limits.maxPositionNotionalUsd))
    return `position notional after the order ${position.toFixed(2)} USD is above the limit ${limits.maxPositionNotionalUsd} USD`;
  return null;
}

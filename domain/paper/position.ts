/**
 * Net position and round-trip arithmetic (docs/api.md §2.8): fills move a signed position; a reducing
 * fill realises PnL against the average entry and closes a round trip (a trade).
 * Sizes in contracts (+ long, − short), prices and PnL in USD, all Decimals.
 */
import { Decimal, ZERO } from '../decimal.js';
import type { Side } from './engine.js';

/** A net position. `avgEntryPrice` is 0 when flat; `realizedPnl` is cumulative, before fees. */
export interface PositionState {
  qty: Decimal;
  avgEntryPrice: Decimal;
  realizedPnl: Decimal;
  /** When the current position was opened (ms), null when flat. */
  openedAt: number | null;
}

/** The flat position. */
export const FLAT: PositionState = { qty: ZERO, avgEntryPrice: ZERO, realizedPnl: ZERO, openedAt: null };

/** A closed round trip: entry at the average entry price, exit at the fill price. */
export interface ClosedTrade {
  side: 'long' | 'short';
  qty: Decimal;
  entryPrice: Decimal;
  exitPrice: Decimal;
  realizedPnl: Decimal;
  openedAt: number;
  closedAt: number;
}

/**
 * Applies one fill at time `ts` (ms). Increasing: weighted average entry. Reducing: realises
 * (exit − entry) × qty for longs, (entry − exit) × qty for shorts and returns the closed part as a
 * trade. Through zero: closes the whole position (one trade) and opens the rest at the fill price.
 */
export function applyFill(
  p: PositionState,
  fill: { side: Side; qty: Decimal; price: Decimal },
  ts: number,
): { position: PositionState; closed: ClosedTrade | null } {
  const signed = fill.side === 'buy' ? fill.qty : fill.qty.neg();
  if (p.qty.isZero() || p.qty.s === signed.s) {
    const qty = p.qty.plus(signed);
    const avgEntryPrice = p.qty.abs().times(p.avgEntryPrice).plus(fill.qty.times(fill.price)).div(qty.abs());
    return { position: { qty, avgEntryPrice, realizedPnl: p.realizedPnl, openedAt: p.openedAt ?? ts }, closed: null };
  }
  const closedQty = Decimal.min(fill.qty, p.qty.abs());
  const long = p.qty.gt(0);
  const pnl = (long ? fill.price.minus(p.avgEntryPrice) : p.avgEntryPrice.minus(fill.price)).times(closedQty);
  const closed: ClosedTrade = {
    side: long ? 'long' : 'short',
    qty: closedQty,
    entryPrice: p.avgEntryPrice,
    exitPrice: fill.price,
    realizedPnl: pnl,
    openedAt: p.openedAt ?? ts,
    closedAt: ts,
  };
  const qty = p.qty.plus(signed);
  const realizedPnl = p.realizedPnl.plus(pnl);
  if (qty.isZero()) return { position: { qty: ZERO, avgEntryPrice: ZERO, realizedPnl, openedAt: null }, closed };
  if (qty.s === p.qty.s)
    return { position: { qty, avgEntryPrice: p.avgEntryPrice, realizedPnl, openedAt: p.openedAt }, closed };
  return { position: { qty, avgEntryPrice: fill.price, realizedPnl, openedAt: ts }, closed };
}

/** Unrealised PnL at `mark`: (mark − entry) × signed qty, USD. */
export function unrealizedPnl(p: PositionState, mark: Decimal): Decimal {
  return mark.minus(p.avgEntryPrice).times(p.qty);
}

/** Fee in USD: price × qty × bps / 10 000. */
export function fee(price: Decimal, qty: Decimal, bps: Decimal): Decimal {
  return price.times(qty).times(bps).div(10_000);
}

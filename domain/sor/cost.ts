/**
 * The smart-order-routing cost model (docs/api.md §4.4 route-intents, §2.11): the estimated all-in cost of
 * a market order of `qty` on one venue, from that venue's canonical mark and L2 book. Pure, decimal.
 *
 * For side sign s (+1 buy, −1 sell), walking the book side the order takes (asks for a buy, bids
 * for a sell), best level first:
 * - `vwap`        = Σ(price × size taken) / qty; when the levels hold less than `qty`: `insufficient_depth`.
 * - `feeUsd`      = vwap × qty × takerFeeBps / 10 000 (the venue's taker fee, {@link TAKER_FEE_BPS}).
 * - `spreadUsd`   = (ask − bid) / 2 × qty — the half-spread paid to cross from the mid.
 * - `impactUsd`   = s × (vwap − touch) × qty, touch the best level taken — the depth walked beyond it.
 * - `totalCostUsd`= fee + spread + impact; `totalCostBps` = totalCostUsd / (qty × mark) × 10 000.
 * - `allInPrice`  = vwap + s × fee / qty — the estimated price per unit including the fee.
 * All USD amounts are USD per the venue's quote (USD); sizes are contracts (base units, or shares).
 */
import { Decimal, ZERO } from '../decimal.js';
import type { BookLevel, BookSnapshot } from '../market/types.js';

/** The candidate pool (docs/api.md §4.4), in tie-break order: equal estimates go to the earlier venue. */
export const SOR_VENUES = ['hyperliquid', 'aster', 'polymarket'] as const;
export type SorVenue = (typeof SOR_VENUES)[number];

/**
 * Taker fee per candidate venue, basis points of notional: Hyperliquid's base tier 4.5 bps, Aster's
 * 3.5 bps, Polymarket CLOB 0 (no trading fee on the recorded markets). Maker rebates do not apply
 * (routed orders are market orders).
 */
export const TAKER_FEE_BPS: Record<SorVenue, string> = { hyperliquid: '4.5', aster: '3.5', polymarket: '0' };

/** What the estimate needs: the order and one venue's quote. Prices USD, sizes contracts. */
export interface CostInput {
  side: 'buy' | 'sell';
  qty: Decimal;
  mark: Decimal;
  bid: Decimal;
  ask: Decimal;
  book: BookSnapshot;
  takerFeeBps: Decimal;
}

/** An estimate (module doc for each field); Decimals at full precision. */
export interface CostEstimate {
  vwap: Decimal;
  feeUsd: Decimal;
  spreadUsd: Decimal;
  impactUsd: Decimal;
  totalCostUsd: Decimal;
  totalCostBps: Decimal;
  allInPrice: Decimal;
}

/** +1 for a buy, −1 for a sell. */
export const sideSign = (side: 'buy' | 'sell') => (side === 'buy' ? 1 : -1);

/**
 * The volume-weighted price of taking `qty` from `levels` (best first), or null when the levels
 * hold less than `qty`.
 */
export function walkBook(levels: readonly BookLevel[], qty: Decimal): Decimal | null {
  let left = qty;
  let notional = ZERO;
  for (const level of levels) {
    if (left.lte(0)) break;
    const take = Decimal.min(left, level.size);
    notional = notional.plus(take.times(level.price));
    left = left.minus(take);
  }
  return left.gt(0) ? null : notional.div(qty);
}

/**
 * Estimates the all-in cost of a market order on one venue (module doc).
 * @returns the estimate, or `{ reason: 'insufficient_depth' }` when the book cannot fill `qty`.
 */
export function estimateCost(i: CostInput): CostEstimate | { reason: 'insufficient_depth' } {
  const levels = i.side === 'buy' ? i.book.asks : i.book.bids;
  const vwap = walkBook(levels, i.qty);
  if (!vwap || levels.length === 0) return { reason: 'insufficient_depth' };
  const s = sideSign(i.side);
  const feeUsd = vwap.times(i.qty).times(i.takerFeeBps).div(10_000);
  const spreadUsd = Decimal.max(ZERO, i.ask.minus(i.bid)).div(2).times(i.qty);
  const impactUsd = Decimal.max(ZERO, vwap.minus(levels[0].price).times(s).times(i.qty));
  const totalCostUsd = feeUsd.plus(spreadUsd).plus(impactUsd);
  const notional = i.qty.times(i.mark);
  return {
    vwap,
    feeUsd,
    spreadUsd,
    impactUsd,
    totalCostUsd,
    totalCostBps: notional.isZero() ? ZERO : totalCostUsd.div(notional).times(10_000),
    allInPrice: vwap.plus(feeUsd.div(i.qty).times(s)),
  };
}

/**
 * Per-venue account state of docs/api.md §2.5 and the initial-margin rule, in USD Decimals.
 */
import { Decimal, ZERO } from '../decimal.js';

/** A position valued at a mark, with the leverage it was opened at. */
export interface VenuePosition {
  qty: Decimal;
  avgEntryPrice: Decimal;
  mark: Decimal;
  leverage: Decimal;
}

/**
 * balance = cash (deposits + realised PnL − fees); unrealised = Σ (mark − entry) × qty;
 * equity = balance + unrealised; marginUsed = Σ |qty| × mark / leverage;
 * marginAvailable = max(0, equity − marginUsed).
 */
export function venueState(balanceUsd: Decimal, positions: VenuePosition[]) {
  const unrealizedPnlUsd = positions.reduce((s, p) => s.plus(p.mark.minus(p.avgEntryPrice).times(p.qty)), ZERO);
  const marginUsedUsd = positions.reduce((s, p) => s.plus(p.qty.abs().times(p.mark).div(p.leverage)), ZERO);
  const equityUsd = balanceUsd.plus(unrealizedPnlUsd);
  return {
    equityUsd,
    balanceUsd,
    marginUsedUsd,
    marginAvailableUsd: Decimal.max(ZERO, equityUsd.minus(marginUsedUsd)),
    unrealizedPnlUsd,
  };
}

/** Initial margin an order needs: qty × price / leverage (USD); a reduce-only order needs none. */
export function initialMargin(qty: Decimal, price: Decimal, leverage: Decimal, reduceOnly: boolean): Decimal {
  return reduceOnly ? ZERO : qty.times(price).div(leverage);
}

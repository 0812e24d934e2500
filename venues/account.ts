/**
 * The account arithmetic the adapters share (venues/types.ts `VenueAccount`): a prediction market's positions
 * are fully paid, so its totals follow from the cash the venue reports and the held contracts (Kalshi,
 * Polymarket). Pure, on decimal strings.
 */
import { Decimal, fmt, ZERO } from '../domain/decimal.js';
import type { VenueAccount, VenuePosition } from './types.js';

/**
 * The totals of a fully paid account: `cashUsd` the venue's free cash, the positions' cost their contracts
 * times average entry, their value `valueUsd` when the venue reports it, else each at its own mark (its
 * entry without one). balance = cash + cost; unrealised = value − cost; equity = cash + value; margin
 * used = value; margin available = cash.
 */
export function fullyPaidAccount(cashUsd: string, positions: VenuePosition[], valueUsd?: string): VenueAccount {
  const cash = new Decimal(cashUsd);
  const cost = positions.reduce((s, p) => s.plus(new Decimal(p.qty).abs().times(p.avgEntryPrice)), ZERO);
  const value =
    valueUsd !== undefined
      ? new Decimal(valueUsd)
      : positions.reduce((s, p) => s.plus(new Decimal(p.qty).abs().times(p.markPrice ?? p.avgEntryPrice)), ZERO);
  return {
    balanceUsd: fmt(cash.plus(cost)),
    unrealizedPnlUsd: fmt(value.minus(cost)),
    equityUsd: fmt(cash.plus(value)),
    marginUsedUsd: fmt(value),
    marginAvailableUsd: fmt(cash),
    positions,
  };
}

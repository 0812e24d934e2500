/**
 * The public proof of a prop firm (docs/api.md §1, §2.12, §4.9): reconciliation of the on-chain treasury
 * against the ledger, and the solvency classification. Pure, decimal, USD.
 *
 * - Ledger (PostgreSQL `prop_ledger`): `payIns` (challenge deposits), `collateral` (operator
 *   backing), `payouts` (executed on-chain by the owner), `forfeits` (deposits of breached
 *   challenges: money the firm keeps; no on-chain movement, already inside `payIns`).
 * - On chain (PropInstance, read live): `treasury` = the instance's stablecoin balance;
 *   `collateral` = collateral posted to it; `available` = treasury − liabilities.
 * - Liabilities: what passed and funded traders may still draw, Σ(payout ceiling − paid out).
 * - Reconciliation, dollar for dollar: expected treasury = payIns + collateral − payouts;
 *   `reconciled` when the on-chain treasury equals it to the unit (10⁻⁶ USD), `surplus` when the
 *   chain holds more (e.g. a direct token transfer), `shortfall` when it holds less;
 *   `not_deployed` for a firm with no instance.
 * - Solvency, by coverage = treasury ÷ liabilities: `solvent` (≥ 1, or no liabilities),
 *   `undercollateralized` (≥ 0.5 and < 1), `insolvent` (< 0.5), `not_deployed`.
 */
import { Decimal, ZERO, fmt } from '../decimal.js';

/** Coverage at or above which a firm is `solvent`, and below which `undercollateralized` becomes `insolvent`. */
export const SOLVENCY_THRESHOLDS = { solvent: '1', undercollateralized: '0.5' } as const;

export type Solvency = 'solvent' | 'undercollateralized' | 'insolvent' | 'not_deployed';
export type ReconciliationStatus = 'reconciled' | 'surplus' | 'shortfall' | 'not_deployed';

/** Ledger totals, USD decimal strings. */
export interface LedgerTotals {
  payInsUsd: string;
  collateralUsd: string;
  payoutsUsd: string;
  forfeitsUsd: string;
}

/** On-chain reads, USD decimal strings; null when the firm has no instance. */
export interface OnChainTreasury {
  treasuryUsd: string;
  collateralUsd: string;
  totalDepositsUsd: string;
  totalPayoutsUsd: string;
}

/** The reconciliation and solvency block of a transparency bundle. */
export interface Proof {
  treasury: { treasuryUsd: string; collateralUsd: string; availableUsd: string } | null;
  liabilitiesUsd: string;
  reconciliation: {
    status: ReconciliationStatus;
    expectedTreasuryUsd: string;
    onChainTreasuryUsd: string | null;
    differenceUsd: string | null;
  };
  solvency: Solvency;
  coverageRatio: string | null;
}

/** Builds the proof (module doc). `liabilitiesUsd` = Σ(payout ceiling − paid out) of passed and funded accounts. */
export function proveFirm(ledger: LedgerTotals, chain: OnChainTreasury | null, liabilitiesUsd: string): Proof {
  const expected = new Decimal(ledger.payInsUsd).add(ledger.collateralUsd).sub(ledger.payoutsUsd);
  const liabilities = new Decimal(liabilitiesUsd);
  if (!chain) {
    return {
      treasury: null,
      liabilitiesUsd: fmt(liabilities),
      reconciliation: {
        status: 'not_deployed',
        expectedTreasuryUsd: fmt(expected),
        onChainTreasuryUsd: null,
        differenceUsd: null,
      },
      solvency: 'not_deployed',
      coverageRatio: null,
    };
  }
  const treasury = new Decimal(chain.treasuryUsd);
  const diff = treasury.sub(expected);
  const status: ReconciliationStatus = diff.isZero() ? 'reconciled' : diff.gt(ZERO) ? 'surplus' : 'shortfall';
  const coverage = liabilities.isZero() ? null : treasury.div(liabilities);
  const solvency: Solvency =
    coverage === null || coverage.gte(SOLVENCY_THRESHOLDS.solvent)
      ? 'solvent'
      : coverage.gte(SOLVENCY_THRESHOLDS.undercollateralized)
        ? 'undercollateralized'
        : 'insolvent';
  return {
    treasury: {
      treasuryUsd: fmt(treasury),
      collateralUsd: chain.collateralUsd,
      availableUsd: fmt(treasury.sub(liabilities)),
    },
    liabilitiesUsd: fmt(liabilities),
    reconciliation: {
      status,
      expectedTreasuryUsd: fmt(expected),
      onChainTreasuryUsd: fmt(treasury),
      differenceUsd: fmt(diff),
    },
    solvency,
    coverageRatio: coverage === null ? null : coverage.toDecimalPlaces(4, Decimal.ROUND_DOWN).toFixed(),
  };
}

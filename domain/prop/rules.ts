/**
 * Challenge rules of a prop account (docs/api.md §3.5; issue 6). Pure, decimal. USD throughout; the
 * template's percentages are fractions of the account size (`0.08` = 8 %).
 *
 * On every evaluation (after a fill, on a mark, or on the challenge workflow's timer), with
 * `equity` the account's equity at the current marks:
 * - peak equity rises to `max(peak, equity)` (the high-water mark);
 * - `max_daily_loss` breach: `dayStartEquity − equity ≥ maxDailyLossPct × accountSize`
 *   (day start = equity at the first evaluation of the UTC day);
 * - `max_drawdown` breach: `peak − equity ≥ maxDrawdownPct × accountSize` (trailing from the peak);
 * - pass: `equity − startingBalance ≥ profitTargetPct × accountSize` and `tradingDays ≥
 *   minTradingDays` (a trading day is a UTC day with at least one fill). A pass moves no money:
 *   it records the payout ceiling `(equity − startingBalance) × payoutSplitPct`.
 * A breach is checked before a pass: an evaluation that satisfies both is a breach.
 */
import { Decimal, fmt } from '../decimal.js';

/** The rules of a challenge template, USD and fractions as decimal strings. */
export interface ChallengeRules {
  priceUsd: string;
  accountSizeUsd: string;
  profitTargetPct: string;
  maxDailyLossPct: string;
  maxDrawdownPct: string;
  minTradingDays: number;
  payoutSplitPct: string;
}

/** The rules of a template row (its other fields ignored). */
export function templateRules(t: ChallengeRules): ChallengeRules {
  return {
    priceUsd: t.priceUsd,
    accountSizeUsd: t.accountSizeUsd,
    profitTargetPct: t.profitTargetPct,
    maxDailyLossPct: t.maxDailyLossPct,
    maxDrawdownPct: t.maxDrawdownPct,
    minTradingDays: t.minTradingDays,
    payoutSplitPct: t.payoutSplitPct,
  };
}

/** What one evaluation needs (USD decimal strings). */
export interface ChallengeSnapshot {
  startingBalanceUsd: string;
  peakEquityUsd: string;
  dayStartEquityUsd: string;
  equityUsd: string;
  tradingDays: number;
}

/** Why a challenge breached. */
export type BreachReason = 'max_daily_loss' | 'max_drawdown';

/** The verdict of one evaluation: the new peak, and the outcome with its figures. */
export type ChallengeVerdict =
  | { outcome: 'active'; peakEquityUsd: string }
  | { outcome: 'breached'; peakEquityUsd: string; reason: BreachReason; detail: string }
  | { outcome: 'passed'; peakEquityUsd: string; profitUsd: string; payoutCeilingUsd: string };

/** Evaluates the rules on a snapshot (module doc). Pure. */
export function evaluateChallenge(rules: ChallengeRules, s: ChallengeSnapshot): ChallengeVerdict {
  const size = new Decimal(rules.accountSizeUsd);
  const equity = new Decimal(s.equityUsd);
  const peak = Decimal.max(new Decimal(s.peakEquityUsd), equity);
  const peakEquityUsd = fmt(peak);
  const dailyLoss = new Decimal(s.dayStartEquityUsd).sub(equity);
  const dailyLimit = size.mul(rules.maxDailyLossPct);
  if (dailyLoss.gte(dailyLimit))
    return {
      outcome: 'breached',
      peakEquityUsd,
      reason: 'max_daily_loss',
      detail: `daily loss ${fmt(dailyLoss)} USD reached the limit ${fmt(dailyLimit)} USD`,
    };
  const drawdown = peak.sub(equity);
  const drawdownLimit = size.mul(rules.maxDrawdownPct);
  if (drawdown.gte(drawdownLimit))
    return {
      outcome: 'breached',
      peakEquityUsd,
      reason: 'max_drawdown',
      detail: `drawdown ${fmt(drawdown)} USD from the peak ${peakEquityUsd} USD reached the limit ${fmt(drawdownLimit)} USD`,
    };
  const profit = equity.sub(s.startingBalanceUsd);
  if (profit.gte(size.mul(rules.profitTargetPct)) && s.tradingDays >= rules.minTradingDays) {
    return {
      outcome: 'passed',
      peakEquityUsd,
      profitUsd: fmt(profit),
      payoutCeilingUsd: fmt(profit.mul(rules.payoutSplitPct).toDecimalPlaces(2, Decimal.ROUND_DOWN)),
    };
  }
  return { outcome: 'active', peakEquityUsd };
}

/** Decimals of the firm stablecoin (USD-pegged, 6 like USDC). */
export const STABLECOIN_DECIMALS = 6;

/**
 * USD decimal string → stablecoin base units (`"12.5"` → `12500000n`).
 * @throws Error when the amount is negative or has more than {@link STABLECOIN_DECIMALS} decimals.
 */
export function usdToUnits(usd: string): bigint {
  const d = new Decimal(usd);
  if (d.isNeg()) throw new Error(`amount must not be negative: ${usd}`);
  const units = d.mul(new Decimal(10).pow(STABLECOIN_DECIMALS));
  if (!units.isInteger()) throw new Error(`amount has more than ${STABLECOIN_DECIMALS} decimals: ${usd}`);
  return BigInt(units.toFixed(0));
}

/** Stablecoin base units → USD decimal string (`12500000n` → `"12.5"`). */
export function unitsToUsd(units: bigint): string {
  return fmt(new Decimal(units.toString()).div(new Decimal(10).pow(STABLECOIN_DECIMALS)));
}

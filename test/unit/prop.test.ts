/**
 * The prop firm's pure rules (issue 6; docs/api.md §3.5, §4.9): challenge evaluation at and around each
 * limit, USD ↔ stablecoin units, the reconciliation and solvency classes, and risk-profile limits.
 */
import { describe, expect, it } from 'vitest';
import { evaluateChallenge, unitsToUsd, usdToUnits, type ChallengeRules } from '../../domain/prop/rules.js';
import { proveFirm } from '../../domain/prop/transparency.js';
import { riskLimitBreach } from '../../domain/prop/risk.js';

const rules: ChallengeRules = {
  priceUsd: '100',
  accountSizeUsd: '10000',
  profitTargetPct: '0.08',
  maxDailyLossPct: '0.05',
  maxDrawdownPct: '0.1',
  minTradingDays: 3,
  payoutSplitPct: '0.8',
};
const snap = (equityUsd: string, o: Partial<{ peak: string; dayStart: string; days: number }> = {}) => ({
  startingBalanceUsd: '10000',
  peakEquityUsd: o.peak ?? '10000',
  dayStartEquityUsd: o.dayStart ?? '10000',
  equityUsd,
  tradingDays: o.days ?? 3,
});

describe('challenge rules', () => {
  it('breaches on the daily loss limit exactly at the limit, not a cent before', () => {
    expect(evaluateChallenge(rules, snap('9500.01')).outcome).toBe('active');
    expect(evaluateChallenge(rules, snap('9500'))).toMatchObject({ outcome: 'breached', reason: 'max_daily_loss' });
  });
  it('measures drawdown from the peak, which rises with equity', () => {
    expect(evaluateChallenge(rules, snap('10600', { peak: '10500', dayStart: '10600' }))).toEqual({
      outcome: 'active',
      peakEquityUsd: '10600',
    });
    expect(evaluateChallenge(rules, snap('9700', { peak: '10700', dayStart: '9800' }))).toMatchObject({
      outcome: 'breached',
      reason: 'max_drawdown',
      peakEquityUsd: '10700',
    });
  });
  it('passes at the profit target only with enough trading days, recording profit × split as the ceiling', () => {
    expect(evaluateChallenge(rules, snap('10800', { days: 2, dayStart: '10800' })).outcome).toBe('active');
    expect(evaluateChallenge(rules, snap('10800.555', { days: 3, dayStart: '10800' }))).toEqual({
      outcome: 'passed',
      peakEquityUsd: '10800.555',
      profitUsd: '800.555',
      payoutCeilingUsd: '640.44',
    });
  });
  it('checks a breach before a pass', () => {
    expect(
      evaluateChallenge({ ...rules, profitTargetPct: '0.01' }, snap('10100', { peak: '11200', dayStart: '10100' }))
        .outcome,
    ).toBe('breached');
  });
});

describe('stablecoin units', () => {
  it('converts USD decimals to 6-decimal units and back without floats', () => {
    expect(usdToUnits('12.5')).toBe(12_500_000n);
    expect(usdToUnits('0.000001')).toBe(1n);
    expect(unitsToUsd(123_456_789n)).toBe('123.456789');
    expect(() => usdToUnits('0.0000001')).toThrow(/6 decimals/);
    expect(() => usdToUnits('-1')).toThrow(/negative/);
  });
});

describe('transparency proof', () => {
  const ledger = { payInsUsd: '200', collateralUsd: '5000', payoutsUsd: '50', forfeitsUsd: '100' };
  const onChain = (treasuryUsd: string) => ({
    treasuryUsd,
    collateralUsd: '5000',
    totalDepositsUsd: '200',
    totalPayoutsUsd: '50',
  });
  it('reconciles to the unit and classifies by coverage', () => {
    expect(proveFirm(ledger, onChain('5150'), '100')).toMatchObject({
      reconciliation: { status: 'reconciled', differenceUsd: '0' },
      solvency: 'solvent',
      coverageRatio: '51.5',
      treasury: { availableUsd: '5050' },
    });
    expect(proveFirm(ledger, onChain('5150.000001'), '0')).toMatchObject({
      reconciliation: { status: 'surplus', differenceUsd: '0.000001' },
      solvency: 'solvent',
      coverageRatio: null,
    });
    expect(proveFirm(ledger, onChain('5149'), '6000')).toMatchObject({
      reconciliation: { status: 'shortfall', differenceUsd: '-1' },
      solvency: 'undercollateralized',
    });
    expect(proveFirm(ledger, onChain('1000'), '6000')).toMatchObject({
      solvency: 'insolvent',
      treasury: { availableUsd: '-5000' },
    });
  });
  it('shows not_deployed without an instance', () => {
    expect(proveFirm(ledger, null, '0')).toMatchObject({
      treasury: null,
      reconciliation: { status: 'not_deployed', expectedTreasuryUsd: '5150', onChainTreasuryUsd: null },
      solvency: 'not_deployed',
    });
  });
});

describe('risk profile limits', () => {
  const limits = { maxOrderNotionalUsd: '1000', maxPositionNotionalUsd: '1500' };
  it('refuses an order or a resulting position above its notional limit', () => {
    expect(
      riskLimitBreach(limits, { side: 'buy', qty: '0.5', priceUsd: '2000', positionQty: '0', reduceOnly: false }),
    ).toBeNull();
    expect(
      riskLimitBreach(limits, { side: 'buy', qty: '0.51', priceUsd: '2000', positionQty: '0', reduceOnly: false }),
    ).toMatch(/order notional 1020.00/);
    expect(
      riskLimitBreach(limits, { side: 'sell', qty: '0.4', priceUsd: '2000', positionQty: '-0.4', reduceOnly: false }),
    ).toMatch(/position notional after the order 1600.00/);
  });
  it('never refuses an order that reduces the position', () => {
    expect(
      riskLimitBreach(limits, { side: 'sell', qty: '5', priceUsd: '2000', positionQty: '5', reduceOnly: false }),
    ).toBeNull();
    expect(
      riskLimitBreach(limits, { side: 'buy', qty: '5', priceUsd: '2000', positionQty: '0', reduceOnly: true }),
    ).toBeNull();
  });
});

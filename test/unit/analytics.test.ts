/** Performance analytics (docs/api.md §4.7, §2.8): hand-computed numbers, exact decimals. */
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../domain/decimal.js';
import {
  dailyEquity,
  drawdown,
  equityCurve,
  performance,
  perSymbol,
  riskMetrics,
  tradeStats,
  type FillInput,
  type TradeInput,
} from '../../domain/analytics/metrics.js';

const at = (iso: string) => Date.parse(iso);
const trade = (
  id: string,
  closedAt: string,
  realizedPnlUsd: string,
  feesUsd = '0',
  extra: Partial<TradeInput> = {},
): TradeInput => ({
  id,
  venue: 'paper',
  symbol: 'BTC.PAPER',
  side: 'long',
  qty: '1',
  realizedPnlUsd,
  feesUsd,
  closedAt: at(closedAt),
  ...extra,
});

// start 1000 → +100 (1100) → −110 net (990) → quiet day → +99 (1089)
const TRADES = [
  trade('t1', '2025-01-01T10:00:00Z', '100'),
  trade('t2', '2025-01-02T10:00:00Z', '-100', '10'),
  trade('t3', '2025-01-04T12:00:00Z', '99'),
];
const START = new Decimal(1000);

describe('performance and per-symbol', () => {
  const fills: FillInput[] = [
    {
      venue: 'paper',
      symbol: 'BTC.PAPER',
      qty: '0.5',
      price: '100',
      feeUsd: '0.1',
      executedAt: at('2025-01-01T09:00:00Z'),
    },
    {
      venue: 'paper',
      symbol: 'BTC.PAPER',
      qty: '0.5',
      price: '110',
      feeUsd: '0.11',
      executedAt: at('2025-01-01T10:00:00Z'),
    },
    {
      venue: 'paper',
      symbol: 'ETH.PAPER',
      qty: '2',
      price: '3000.25',
      feeUsd: '1.5',
      executedAt: at('2025-01-01T11:00:00Z'),
    },
  ];
  const trades = [
    trade('a', '2025-01-01T10:00:00Z', '5', '0.11'),
    trade('m', '2025-01-03T10:00:00Z', '-20', '1', { symbol: 'SOL.PAPER', source: 'manual' }), // imported: PnL, no volume
  ];

  it('takes volume from fills and PnL from trades, manual trades in PnL only', () => {
    expect(performance(fills, trades)).toEqual({
      fills: 3,
      volumeUsd: '6105.5', // 50 + 55 + 6000.5
      fillFeesUsd: '1.71',
      trades: 2,
      manualTrades: 1,
      realizedPnlUsd: '-15',
      tradeFeesUsd: '1.11',
      netPnlUsd: '-16.11',
      bestTradeUsd: '4.89',
      worstTradeUsd: '-21',
      wins: 1,
      losses: 1,
      winRate: '0.5',
    });
  });

  it('splits per venue symbol, sorted, a manual-only symbol with zero volume', () => {
    const rows = perSymbol(fills, trades);
    expect(rows.map((r) => [r.symbol, r.volumeUsd, r.fills, r.trades, r.netPnlUsd])).toEqual([
      ['BTC.PAPER', '105', 2, 1, '4.89'],
      ['ETH.PAPER', '6000.5', 1, 0, '0'],
      ['SOL.PAPER', '0', 0, 1, '-21'],
    ]);
  });

  it('is all zeros and nulls without data', () => {
    expect(performance([], [])).toMatchObject({ volumeUsd: '0', trades: 0, winRate: null, bestTradeUsd: null });
  });
});

describe('equity curve', () => {
  it('adds each trade’s net PnL to the starting equity, one point per close after the start', () => {
    expect(equityCurve(START, TRADES)).toEqual([
      { at: '2025-01-01T10:00:00.000Z', equityUsd: '1000', pnlUsd: '0' },
      { at: '2025-01-01T10:00:00.000Z', equityUsd: '1100', pnlUsd: '100', tradeId: 't1' },
      { at: '2025-01-02T10:00:00.000Z', equityUsd: '990', pnlUsd: '-110', tradeId: 't2' },
      { at: '2025-01-04T12:00:00.000Z', equityUsd: '1089', pnlUsd: '99', tradeId: 't3' },
    ]);
    expect(equityCurve(START, [])).toEqual([]);
  });

  it('has a daily variant with quiet days carried forward', () => {
    expect(dailyEquity(START, [...TRADES].reverse())).toEqual([
      { date: '2025-01-01', equityUsd: '1100', pnlUsd: '100', trades: 1 },
      { date: '2025-01-02', equityUsd: '990', pnlUsd: '-110', trades: 1 },
      { date: '2025-01-03', equityUsd: '990', pnlUsd: '0', trades: 0 },
      { date: '2025-01-04', equityUsd: '1089', pnlUsd: '99', trades: 1 },
    ]);
  });
});

describe('risk metrics', () => {
  it('computes daily returns, Sharpe, Sortino, drawdown and trade statistics by their definitions', () => {
    const m = riskMetrics(START, TRADES);
    // returns 0.1, −0.1, 0, 0.1: mean 0.025; sample variance 0.0275 / 3; downside √(0.01 / 4) = 0.05
    expect(m.returns).toEqual([
      { date: '2025-01-01', return: '0.1' },
      { date: '2025-01-02', return: '-0.1' },
      { date: '2025-01-03', return: '0' },
      { date: '2025-01-04', return: '0.1' },
    ]);
    expect(m.meanDailyReturn).toBe('0.025');
    expect(m.stdevDailyReturn).toBe('0.095742710776');
    expect(m.sharpe).toBe('4.98862342'); // 0.025 / 0.0957427… × √365
    expect(m.sortino).toBe('9.55248659'); // 0.025 / 0.05 × √365 = 0.5 × 19.1049731745…
    expect(m).toMatchObject({
      startEquityUsd: '1000',
      endEquityUsd: '1089',
      maxDrawdownUsd: '110', // peak 1100 → 990
      maxDrawdownPct: '10',
      trades: 3,
      wins: 2,
      losses: 1,
      winRate: '0.66666667',
      grossProfitUsd: '199',
      grossLossUsd: '-110',
      profitFactor: '1.80909091', // 199 / 110
      avgWinUsd: '99.5',
      avgLossUsd: '-110',
      expectancyUsd: '29.66666667', // 89 / 3
    });
  });

  it('answers null ratios when they are undefined', () => {
    const one = riskMetrics(START, [trade('x', '2025-01-01T00:00:00Z', '10')]);
    expect(one).toMatchObject({
      sharpe: null,
      sortino: null,
      profitFactor: null,
      avgLossUsd: null,
      maxDrawdownUsd: '0',
      maxDrawdownPct: '0',
      endEquityUsd: '1010',
    });
    const none = riskMetrics(START, []);
    expect(none).toMatchObject({
      returns: [],
      winRate: null,
      expectancyUsd: null,
      startEquityUsd: '1000',
      endEquityUsd: '1000',
    });
  });

  it('counts a break-even trade as neither a win nor a loss', () => {
    expect(
      tradeStats([
        { realizedPnlUsd: '2', feesUsd: '2' },
        { realizedPnlUsd: '3', feesUsd: '1' },
      ]),
    ).toMatchObject({ trades: 2, wins: 1, losses: 0, winRate: '0.5', expectancyUsd: '1' });
  });

  it('measures drawdown from the running peak', () => {
    expect(drawdown(['100', '150', '120', '160', '80', '90'].map((v) => new Decimal(v)))).toEqual({
      maxDrawdownUsd: '80',
      maxDrawdownPct: '50',
    });
  });
});

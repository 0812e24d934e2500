/**
 * Schemas of `/api/v1/analytics/*` (docs/api.md §4.7): a window over the caller's accounts, and the
 * documented shapes of the four derived reads. USD amounts are decimal strings; ratios are
 * fractions rounded to 8 decimal places; USD averages 8 places; percentages 4 places; daily returns
 * 12 places; USD sums exact.
 */
import { z } from 'zod';

const accountId = z
  .string()
  .min(1)
  .max(255)
  .optional()
  .meta({ description: 'Default: every account of the caller, combined' });

/** `?accountId&from&to` (and `bucket` on the equity curve). */
export const analyticsQuery = z
  .object({
    accountId,
    from: z.iso
      .datetime()
      .optional()
      .meta({ description: 'Inclusive, ISO 8601 (fills by executedAt, trades by closedAt)' }),
    to: z.iso.datetime().optional().meta({ description: 'Exclusive, ISO 8601' }),
  })
  .refine((q) => !q.from || !q.to || Date.parse(q.from) < Date.parse(q.to), {
    message: 'from must be before to',
    path: ['to'],
  })
  .meta({ id: 'AnalyticsWindow' });

/** The equity curve's query: the window plus `bucket`. */
export const equityCurveQuery = z
  .object({
    accountId,
    from: z.iso.datetime().optional().meta({ description: 'Inclusive, ISO 8601 (trades by closedAt)' }),
    to: z.iso.datetime().optional().meta({ description: 'Exclusive, ISO 8601' }),
    bucket: z
      .enum(['trade', 'day'])
      .default('trade')
      .meta({ description: '`trade`: one point per trade close (default); `day`: equity at the end of every UTC day' }),
  })
  .refine((q) => !q.from || !q.to || Date.parse(q.from) < Date.parse(q.to), {
    message: 'from must be before to',
    path: ['to'],
  })
  .meta({ id: 'EquityCurveQuery' });

const usd = (description: string) => z.string().meta({ description: `${description} (USD decimal string)` });
const window = z
  .object({ from: z.string().nullable(), to: z.string().nullable() })
  .meta({ description: 'The window as asked (null: open)' });

const summaryFields = {
  fills: z.number().int().meta({ description: 'Number of fills' }),
  volumeUsd: usd('Σ qty × price over fills (docs/api.md §2.8: volume from fills; manual trades add none)'),
  fillFeesUsd: usd('Σ fees of fills, entries included'),
  trades: z.number().int().meta({ description: 'Round trips closed (platform + manual)' }),
  manualTrades: z.number().int().meta({ description: 'Imported round trips (source manual)' }),
  realizedPnlUsd: usd('Σ realised PnL of trades before fees (docs/api.md §2.8: PnL from trades)'),
  tradeFeesUsd: usd(
    'Σ fees attributed to trades (the exit fill’s fee plus the pro-rata share of the entry fills’ fees; a manual trade’s own fees): equals fillFeesUsd once every position is flat',
  ),
  netPnlUsd: usd('realizedPnlUsd − tradeFeesUsd'),
  bestTradeUsd: usd('Best net trade').nullable(),
  worstTradeUsd: usd('Worst net trade').nullable(),
  wins: z.number().int().meta({ description: 'Trades with net PnL > 0' }),
  losses: z.number().int().meta({ description: 'Trades with net PnL < 0' }),
  winRate: z.string().nullable().meta({ description: 'wins / trades, fraction' }),
};

export const performanceView = z.object({ window, accountIds: z.array(z.string()), ...summaryFields }).meta({
  id: 'Performance',
  description: 'Totals over the window. Volume from fills, PnL from trades (docs/api.md §2.8).',
});

export const perSymbolView = z
  .object({
    window,
    accountIds: z.array(z.string()),
    symbols: z.array(z.object({ venue: z.string(), symbol: z.string(), ...summaryFields })),
  })
  .meta({ id: 'PerSymbolPerformance', description: 'Performance per venue symbol, sorted by venue then symbol.' });

export const equityCurveView = z
  .object({
    window,
    accountIds: z.array(z.string()),
    bucket: z.enum(['trade', 'day']),
    startEquityUsd: usd(
      'Deposits (funding.deposit − funding.withdrawal + signed funding.transfer events) + net PnL of trades closed before `from`',
    ),
    endEquityUsd: usd('Equity after the last trade of the window'),
    points: z.array(
      z.object({
        at: z.string().optional().meta({
          description: 'bucket=trade: the trade close time (the first point is the start, at the first close)',
        }),
        date: z.string().optional().meta({ description: 'bucket=day: UTC day YYYY-MM-DD' }),
        equityUsd: usd('Equity at this point'),
        pnlUsd: usd('Net PnL of this trade or day'),
        tradeId: z.string().optional(),
        trades: z.number().int().optional().meta({ description: 'bucket=day: trades closed that day' }),
      }),
    ),
  })
  .meta({
    id: 'EquityCurve',
    description:
      'Equity = starting equity + cumulative realised PnL net of trade fees, one point per trade close (or per UTC day).',
  });

export const riskMetricsView = z
  .object({
    window,
    accountIds: z.array(z.string()),
    startEquityUsd: usd('Equity before the first day (as the equity curve)'),
    endEquityUsd: usd('Equity after the last trade'),
    returns: z.array(z.object({ date: z.string(), return: z.string() })).meta({
      description:
        'Daily returns r_d = E_d / E_{d−1} − 1 over every UTC day from the first to the last trade close (days without trades: 0); E_0 = startEquity',
    }),
    meanDailyReturn: z.string().nullable().meta({ description: 'Mean of r_d' }),
    stdevDailyReturn: z
      .string()
      .nullable()
      .meta({ description: 'Sample standard deviation (n − 1) of r_d; null with fewer than 2 returns' }),
    sharpe: z.string().nullable().meta({
      description: 'mean(r) / stdev(r) × √365, risk-free rate 0; null with fewer than 2 returns or zero stdev',
    }),
    sortino: z.string().nullable().meta({
      description:
        'mean(r) / downsideDeviation × √365, downsideDeviation = √(Σ min(r_d, 0)² / n); null when no daily return is negative',
    }),
    maxDrawdownUsd: usd('max over the per-trade equity curve of (running peak − equity)'),
    maxDrawdownPct: z
      .string()
      .nullable()
      .meta({ description: 'max of (running peak − equity) / running peak × 100, percent' }),
    trades: z.number().int(),
    wins: z.number().int().meta({ description: 'Trades with net PnL (after fees) > 0' }),
    losses: z.number().int().meta({ description: 'Trades with net PnL < 0; a trade at exactly 0 is neither' }),
    winRate: z.string().nullable().meta({ description: 'wins / trades, fraction' }),
    grossProfitUsd: usd('Σ net PnL of winning trades'),
    grossLossUsd: usd('Σ net PnL of losing trades (≤ 0)'),
    profitFactor: z.string().nullable().meta({ description: 'grossProfit / |grossLoss|; null without a losing trade' }),
    avgWinUsd: usd('grossProfit / wins').nullable(),
    avgLossUsd: usd('grossLoss / losses (negative)').nullable(),
    expectancyUsd: usd('Σ net PnL / trades = winRate × avgWin + lossRate × avgLoss').nullable(),
  })
  .meta({
    id: 'RiskMetrics',
    description:
      'Risk metrics of the round trips closed in the window (docs/api.md §4.7). All computed with exact decimals.',
  });

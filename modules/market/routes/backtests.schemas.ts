/**
 * Schemas of `POST /api/v1/backtests/run` (docs/api.md §4.7). A rule is declarative:
 * `{ all: [cond, ...] }` (every condition) or `{ any: [cond, ...] }` (at least one), a condition
 * `{ left, op, right }` with `op` one of `gt`, `gte`, `lt`, `lte`, `crosses_above`, `crosses_below`
 * and operands a bar field (`open`, `high`, `low`, `close`, `volume`), an indicator output (`<id>`
 * for a single-output indicator, `<id>.<output>` otherwise, e.g. `m.signal`) or a decimal string
 * literal (`"70"`). Evaluation on bar close, fills at the next bar's open (domain/backtest/engine.ts).
 */
import { z } from 'zod';
import { OPS } from '../../../domain/backtest/engine.js';
import { MAX_INDICATORS } from '../../../domain/indicators/registry.js';
import { barSeriesFields, barWindowFields, indicatorRequest } from './indicators.schemas.js';
import { PLAIN_DECIMAL } from '../../../domain/decimal.js';

const decimal = (description: string) =>
  z.string().max(64).regex(PLAIN_DECIMAL, 'a non-negative decimal string').meta({ description });

const condition = z
  .object({
    left: z
      .string()
      .min(1)
      .max(128)
      .meta({ description: 'Operand: bar field, `<id>` / `<id>.<output>`, or decimal string' }),
    op: z.enum(OPS).meta({
      description: '`crosses_above`: left was ≤ right on the previous bar and is > right now; `crosses_below` mirrored',
    }),
    right: z.string().min(1).max(128).meta({ description: 'Operand, as `left`' }),
  })
  .meta({ id: 'BacktestCondition' });

const conditions = z.array(condition).min(1).max(20);

/** A rule: `{ all: [...] }` or `{ any: [...] }`, 1-20 conditions. */
export const rule = z.union([z.object({ all: conditions }).strict(), z.object({ any: conditions }).strict()]).meta({
  id: 'BacktestRule',
  description:
    '`{ all: [conditions] }` (every one true) or `{ any: [conditions] }` (at least one). A condition on a value still warming up is false.',
});

export const backtestBody = z
  .object({
    ...barWindowFields,
    indicators: z
      .array(indicatorRequest)
      .max(MAX_INDICATORS)
      .default([])
      .meta({ description: `0-${MAX_INDICATORS} indicators; their ids are rule operands` }),
    entry: rule,
    exit: rule,
    side: z.enum(['long', 'short']).meta({ description: 'Direction of every simulated position' }),
    qty: decimal('Contracts per position, > 0').refine((v) => /[1-9]/.test(v), 'qty must be positive'),
    feeBps: decimal('Fee per side in basis points of notional; default 0').default('0'),
    initialEquityUsd: decimal('Starting equity for the curve and the metrics, USD; default 100000').default('100000'),
  })
  .meta({ id: 'BacktestRequest' });

const trade = z.object({
  side: z.enum(['long', 'short']),
  qty: z.string().meta({ description: 'Contracts' }),
  entryTime: z.string().meta({ description: 'Open time of the bar after the entry signal' }),
  entryPrice: z.string().meta({ description: 'That bar’s open, USD' }),
  exitTime: z.string(),
  exitPrice: z
    .string()
    .meta({ description: 'Open of the bar after the exit signal, or the last close (end_of_data), USD' }),
  realizedPnlUsd: z.string().meta({ description: 'Before fees, USD' }),
  feesUsd: z.string().meta({ description: 'Entry + exit fees, USD' }),
  netPnlUsd: z.string(),
  exitReason: z.enum(['signal', 'end_of_data']),
});

export const backtestView = z
  .object({
    ...barSeriesFields,
    trades: z.array(trade),
    equityCurve: z
      .array(z.object({ at: z.string(), equityUsd: z.string(), pnlUsd: z.string() }))
      .meta({ description: 'The start (at the first bar) then one point per trade exit' }),
    metrics: z.record(z.string(), z.unknown()).meta({
      description:
        'The RiskMetrics shape of GET /api/v1/analytics/risk-metrics, over the simulated trades and initialEquityUsd',
    }),
  })
  .meta({ id: 'BacktestResult' });

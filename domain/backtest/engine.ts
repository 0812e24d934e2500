/**
 * The backtest engine behind `POST /api/v1/backtests/run` (docs/api.md §4.7), pure.
 *
 * Semantics:
 * - Indicators (the catalogue of domain/indicators/registry.ts) are computed over the bars, oldest
 *   first; their outputs are decimal strings (analytics), compared exactly as decimals.
 * - Rules are evaluated **on bar close**. A signal at the close of bar `i` fills at the **open of
 *   bar `i + 1`**; a signal on the last bar has no next bar and is dropped.
 * - One position at a time, of `qty` contracts on `side`. Flat: only the entry rule is evaluated;
 *   in a position: only the exit rule (an exit and a new entry never share a bar).
 * - A position still open after the last bar is closed at the last bar's close, at its close time,
 *   with `exitReason: 'end_of_data'`.
 * - PnL (USD, exact decimals): long `(exit − entry) × qty`, short `(entry − exit) × qty`. Fees
 *   `feeBps / 10 000 × price × qty` on the entry and on the exit, both on the trade.
 * - Equity starts at `initialEquity` (USD) and moves by each trade's net PnL at its exit.
 * - A time budget (`budgetMs`, wall clock, indicators included) bounds the work:
 *   `422 backtest_too_large` when exceeded.
 */
import { Decimal, ZERO, fmt } from '../decimal.js';
import { ApiError } from '../errors.js';
import { equityCurve, riskMetrics, type EquityPoint, type RiskMetrics, type TradeInput } from '../analytics/metrics.js';
import {
  BAR_FIELDS,
  computeSeries,
  type Bar,
  type BarField,
  type Issue,
  type ResolvedIndicator,
} from '../indicators/registry.js';

/** Comparison operators of a condition. `crosses_*` compare this bar and the previous one. */
export const OPS = ['gt', 'gte', 'lt', 'lte', 'crosses_above', 'crosses_below'] as const;
export type Op = (typeof OPS)[number];

/**
 * One condition: `left op right`. An operand is a bar field (`open`, `high`, `low`, `close`,
 * `volume`), an indicator output (`<id>` for a single-output indicator, `<id>.<output>` e.g.
 * `m.signal`, `bb.upper`), or a decimal literal string (`"70"`, `"-0.5"`).
 * `crosses_above`: `left[i−1] ≤ right[i−1]` and `left[i] > right[i]`; `crosses_below` mirrored.
 * A condition on a missing value (an indicator warming up) is false.
 */
export interface Condition {
  left: string;
  op: Op;
  right: string;
}

/** A rule: every condition (`all`) or at least one (`any`). */
export type Rule = { all: Condition[] } | { any: Condition[] };

/** Default wall-clock budget of one backtest, ms. */
export const DEFAULT_BUDGET_MS = 2000;

const LITERAL = /^-?\d+(\.\d+)?$/;

type Series = (Decimal | null)[];

/** The value series of an operand, or an issue message. */
function operandSeries(
  operand: string,
  bars: Bar[],
  indicators: ResolvedIndicator[],
  computed?: Map<string, Record<string, (string | null)[]>>,
): Series | string {
  if (LITERAL.test(operand)) {
    const v = new Decimal(operand);
    return bars.map(() => v);
  }
  if ((BAR_FIELDS as readonly string[]).includes(operand)) return bars.map((b) => new Decimal(b[operand as BarField]));
  const [id, output, ...rest] = operand.split('.');
  const ind = indicators.find((x) => x.id === id);
  if (!ind || rest.length)
    return `unknown operand ${operand}: a bar field (${BAR_FIELDS.join(', ')}), an indicator id (${indicators.map((x) => x.id).join(', ') || 'none given'}) or a decimal string`;
  const outputs = ind.def.outputs;
  const out = output ?? (outputs.length === 1 ? outputs[0] : undefined);
  if (!out || !outputs.includes(out))
    return `operand ${operand}: ${ind.def.name} outputs ${outputs.map((o) => `${id}.${o}`).join(', ')}`;
  if (!computed) return [];
  return computed.get(id)![out].map((v) => (v === null ? null : new Decimal(v)));
}

const conditionsOf = (r: Rule): Condition[] => ('all' in r ? r.all : r.any);

/**
 * Checks the operands of the entry and exit rules against the bar fields and the indicators.
 * Issues: `unknown_operand` at `<at>.<entry|exit>.<all|any>.<i>.<left|right>`. Operands naming one
 * of `invalidIds` (requested indicators that failed their own checks) are not reported again.
 */
export function checkRules(
  rules: { entry: Rule; exit: Rule },
  indicators: ResolvedIndicator[],
  at = 'body',
  invalidIds: string[] = [],
): Issue[] {
  const issues: Issue[] = [];
  for (const which of ['entry', 'exit'] as const) {
    const rule = rules[which];
    const key = 'all' in rule ? 'all' : 'any';
    conditionsOf(rule).forEach((c, i) => {
      for (const side of ['left', 'right'] as const) {
        const s = operandSeries(c[side], [], indicators);
        if (typeof s === 'string' && !invalidIds.includes(c[side].split('.')[0]))
          issues.push({ path: `${at}.${which}.${key}.${i}.${side}`, message: s, code: 'unknown_operand' });
      }
    });
  }
  return issues;
}

/** A simulated round trip. Prices USD, `qty` contracts, times ISO 8601. */
export interface BacktestTrade {
  side: 'long' | 'short';
  qty: string;
  entryTime: string;
  entryPrice: string;
  exitTime: string;
  exitPrice: string;
  /** Before fees, USD. */
  realizedPnlUsd: string;
  /** Entry + exit fees, USD. */
  feesUsd: string;
  /** `realizedPnlUsd − feesUsd`, USD. */
  netPnlUsd: string;
  exitReason: 'signal' | 'end_of_data';
}

/** What the engine needs. `qty` contracts, `feeBps` basis points, `initialEquity` USD. */
export interface BacktestInput {
  bars: Bar[];
  /** Bar length, ms (the close time of the last bar is `openTime + intervalMs − 1`). */
  intervalMs: number;
  indicators: ResolvedIndicator[];
  entry: Rule;
  exit: Rule;
  side: 'long' | 'short';
  qty: Decimal;
  feeBps: Decimal;
  initialEquity: Decimal;
  budgetMs?: number;
  /** Clock for the budget (tests). */
  now?: () => number;
}

/** A backtest's outcome: trades, the per-trade equity curve (start first) and risk metrics. */
export interface BacktestResult {
  trades: BacktestTrade[];
  equityCurve: EquityPoint[];
  metrics: RiskMetrics;
  bars: number;
}

/**
 * Runs a backtest (semantics in the module doc). Rules must have passed {@link checkRules}.
 * @throws ApiError `422 backtest_too_large` when the budget runs out.
 */
export function runBacktest(input: BacktestInput): BacktestResult {
  const now = input.now ?? Date.now;
  const budget = input.budgetMs ?? DEFAULT_BUDGET_MS;
  const start = now();
  const guard = (i: number) => {
    if (now() - start > budget)
      throw new ApiError(
        'backtest_too_large',
        `evaluation exceeded its ${budget} ms budget after ${i + 1} of ${input.bars.length} bars; use fewer bars or indicators`,
      );
  };
  const { bars } = input;
  const computed = new Map(computeSeries(bars, input.indicators, guard).map((s) => [s.id, s.values]));
  const compile = (rule: Rule) => {
    const conds = conditionsOf(rule).map((c) => ({
      op: c.op,
      l: operandSeries(c.left, bars, input.indicators, computed) as Series,
      r: operandSeries(c.right, bars, input.indicators, computed) as Series,
    }));
    const test = (c: (typeof conds)[number], i: number): boolean => {
      const l = c.l[i];
      const r = c.r[i];
      if (!l || !r) return false;
      switch (c.op) {
        case 'gt':
          return l.gt(r);
        case 'gte':
          return l.gte(r);
        case 'lt':
          return l.lt(r);
        case 'lte':
          return l.lte(r);
        case 'crosses_above':
        case 'crosses_below': {
          if (i === 0) return false;
          const pl = c.l[i - 1];
          const pr = c.r[i - 1];
          if (!pl || !pr) return false;
          return c.op === 'crosses_above' ? pl.lte(pr) && l.gt(r) : pl.gte(pr) && l.lt(r);
        }
      }
    };
    return 'all' in rule ? (i: number) => conds.every((c) => test(c, i)) : (i: number) => conds.some((c) => test(c, i));
  };
  const entry = compile(input.entry);
  const exit = compile(input.exit);

  const bps = input.feeBps.div(10_000);
  const trades: BacktestTrade[] = [];
  const closed: TradeInput[] = [];
  let pos: { price: Decimal; time: number } | null = null;
  let pending: 'entry' | 'exit' | null = null;
  const close = (price: Decimal, time: number, reason: BacktestTrade['exitReason']) => {
    const p = pos!;
    const move = input.side === 'long' ? price.minus(p.price) : p.price.minus(price);
    const pnl = move.times(input.qty);
    const fees = p.price.times(input.qty).times(bps).plus(price.times(input.qty).times(bps));
    trades.push({
      side: input.side,
      qty: fmt(input.qty),
      entryTime: new Date(p.time).toISOString(),
      entryPrice: fmt(p.price),
      exitTime: new Date(time).toISOString(),
      exitPrice: fmt(price),
      realizedPnlUsd: fmt(pnl),
      feesUsd: fmt(fees),
      netPnlUsd: fmt(pnl.minus(fees)),
      exitReason: reason,
    });
    closed.push({
      venue: 'backtest',
      symbol: 'backtest',
      side: input.side,
      qty: fmt(input.qty),
      realizedPnlUsd: fmt(pnl),
      feesUsd: fmt(fees),
      closedAt: time,
    });
    pos = null;
  };

  for (let i = 0; i < bars.length; i++) {
    const bar = bars[i];
    if (pending === 'entry') pos = { price: new Decimal(bar.open), time: bar.openTime };
    else if (pending === 'exit') close(new Decimal(bar.open), bar.openTime, 'signal');
    pending = null;
    if (i < bars.length - 1) {
      if (!pos && entry(i)) pending = 'entry';
      else if (pos && exit(i)) pending = 'exit';
    }
    guard(i);
  }
  if (pos) {
    const last = bars.at(-1)!;
    close(new Decimal(last.close), last.openTime + input.intervalMs - 1, 'end_of_data');
  }
  return {
    trades,
    equityCurve: bars.length ? equityCurve(input.initialEquity, closed, bars[0].openTime) : [],
    metrics: riskMetrics(input.initialEquity, closed),
    bars: bars.length,
  };
}

/** Σ net PnL of backtest trades, USD (a convenience for callers and tests). */
export function totalNetPnl(trades: BacktestTrade[]): Decimal {
  return trades.reduce((s, t) => s.plus(t.netPnlUsd), ZERO);
}

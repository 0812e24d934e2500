/**
 * Performance analytics over fills and round trips (docs/api.md §4.7), pure and exact (decimal.js only).
 *
 * Spec §2.8: **volume** is computed from fills (USD notional `qty × price`), **PnL** from trades
 * (round trips). A manual (imported) trade has no fill: it counts in PnL and not in volume.
 *
 * Units: USD amounts and prices are decimal strings; quantities are contracts; times are ms since
 * the epoch in the inputs and ISO 8601 in the outputs. Ratios are fractions (0.5 = 50 %), rounded
 * half-even to {@link RATIO_DP} decimal places; percentages are rounded to {@link PCT_DP} places;
 * USD sums are exact, USD averages rounded to {@link AVG_DP} places.
 */
import { Decimal, ZERO, fmt } from '../decimal.js';

/** Decimal places of ratio outputs (win rate, profit factor, Sharpe, Sortino). */
export const RATIO_DP = 8;
/** Decimal places of derived USD averages (average win, average loss, expectancy). */
export const AVG_DP = 8;
/** Decimal places of percentage outputs (drawdown %). */
export const PCT_DP = 4;
/** Decimal places of daily returns (fractions). */
export const RETURN_DP = 12;
/** Days per year used to annualise Sharpe and Sortino (crypto trades every day). */
export const DAYS_PER_YEAR = 365;
/** Upper bound of calendar days a daily series spans (10 years): beyond it the series is cut. */
export const MAX_DAYS = 3660;

const DAY_MS = 86_400_000;

/** A fill as analytics needs it (docs/api.md §2.8). `qty` contracts, `price` and `feeUsd` USD. */
export interface FillInput {
  venue: string;
  symbol: string;
  qty: string;
  price: string;
  feeUsd: string;
  /** ms since the epoch. */
  executedAt: number;
}

/**
 * A closed round trip (docs/api.md §2.8). `realizedPnlUsd` before fees, `feesUsd` the fees attributed to
 * the trade (both USD); `source` `platform` or `manual`.
 */
export interface TradeInput {
  id?: string;
  venue: string;
  symbol: string;
  side: string;
  qty: string;
  realizedPnlUsd: string;
  feesUsd: string;
  /** ms since the epoch. */
  closedAt: number;
  source?: string;
}

/** Net PnL of a trade (USD): realised PnL minus its fees. */
export function netPnl(t: Pick<TradeInput, 'realizedPnlUsd' | 'feesUsd'>): Decimal {
  return new Decimal(t.realizedPnlUsd).minus(t.feesUsd);
}

const ratio = (v: Decimal) => fmt(v.toDecimalPlaces(RATIO_DP));
const avg = (v: Decimal) => fmt(v.toDecimalPlaces(AVG_DP));

/** Win/loss statistics of a set of trades; every amount is net of the trade's fees (USD). */
export interface TradeStats {
  trades: number;
  /** Trades with net PnL > 0. */
  wins: number;
  /** Trades with net PnL < 0 (a trade at exactly 0 is neither). */
  losses: number;
  /** `wins / trades`, fraction; null without trades. */
  winRate: string | null;
  /** Sum of the net PnL of winning trades, USD (≥ 0). */
  grossProfitUsd: string;
  /** Sum of the net PnL of losing trades, USD (≤ 0). */
  grossLossUsd: string;
  /** `grossProfit / |grossLoss|`; null when there is no losing trade. */
  profitFactor: string | null;
  /** `grossProfit / wins`, USD (rounded to {@link AVG_DP} places, as the loss and expectancy); null without wins. */
  avgWinUsd: string | null;
  /** `grossLoss / losses`, USD (negative); null without losses. */
  avgLossUsd: string | null;
  /** Mean net PnL per trade, `Σ net / trades` (= winRate·avgWin + lossRate·avgLoss), USD; null without trades. */
  expectancyUsd: string | null;
}

/** Win rate, profit factor, average win and loss, expectancy of `trades` (definitions on {@link TradeStats}). */
export function tradeStats(trades: Pick<TradeInput, 'realizedPnlUsd' | 'feesUsd'>[]): TradeStats {
  let wins = 0;
  let losses = 0;
  let profit = ZERO;
  let loss = ZERO;
  for (const t of trades) {
    const n = netPnl(t);
    if (n.gt(0)) {
      wins++;
      profit = profit.plus(n);
    } else if (n.lt(0)) {
      losses++;
      loss = loss.plus(n);
    }
  }
  const count = trades.length;
  return {
    trades: count,
    wins,
    losses,
    winRate: count ? ratio(new Decimal(wins).div(count)) : null,
    grossProfitUsd: fmt(profit),
    grossLossUsd: fmt(loss),
    profitFactor: losses ? ratio(profit.div(loss.abs())) : null,
    avgWinUsd: wins ? avg(profit.div(wins)) : null,
    avgLossUsd: losses ? avg(loss.div(losses)) : null,
    expectancyUsd: count ? avg(profit.plus(loss).div(count)) : null,
  };
}

/** Totals of a set of fills and trades (the `performance` read). */
export interface PerformanceSummary {
  /** Number of fills. */
  fills: number;
  /** Σ `qty × price` over fills, USD notional. Manual trades add nothing (no fill). */
  volumeUsd: string;
  /** Σ fill fees, USD: every execution's fee, entries included. */
  fillFeesUsd: string;
  /** Round trips (platform + manual). */
  trades: number;
  /** Round trips imported by hand (`source: manual`). */
  manualTrades: number;
  /** Σ realised PnL of trades before fees, USD. */
  realizedPnlUsd: string;
  /** Σ fees attributed to trades, USD. */
  tradeFeesUsd: string;
  /** `realizedPnlUsd − tradeFeesUsd`, USD. */
  netPnlUsd: string;
  /** Best and worst net trade, USD; null without trades. */
  bestTradeUsd: string | null;
  worstTradeUsd: string | null;
  wins: number;
  losses: number;
  winRate: string | null;
}

/** Sums fills (volume, fees) and trades (PnL) into a {@link PerformanceSummary}. */
export function performance(fills: FillInput[], trades: TradeInput[]): PerformanceSummary {
  let volume = ZERO;
  let fillFees = ZERO;
  for (const f of fills) {
    volume = volume.plus(new Decimal(f.qty).times(f.price));
    fillFees = fillFees.plus(f.feeUsd);
  }
  let realized = ZERO;
  let fees = ZERO;
  let best: Decimal | null = null;
  let worst: Decimal | null = null;
  for (const t of trades) {
    realized = realized.plus(t.realizedPnlUsd);
    fees = fees.plus(t.feesUsd);
    const n = netPnl(t);
    if (!best || n.gt(best)) best = n;
    if (!worst || n.lt(worst)) worst = n;
  }
  const stats = tradeStats(trades);
  return {
    fills: fills.length,
    volumeUsd: fmt(volume),
    fillFeesUsd: fmt(fillFees),
    trades: trades.length,
    manualTrades: trades.filter((t) => t.source === 'manual').length,
    realizedPnlUsd: fmt(realized),
    tradeFeesUsd: fmt(fees),
    netPnlUsd: fmt(realized.minus(fees)),
    bestTradeUsd: best ? fmt(best) : null,
    worstTradeUsd: worst ? fmt(worst) : null,
    wins: stats.wins,
    losses: stats.losses,
    winRate: stats.winRate,
  };
}

/** {@link PerformanceSummary} of one venue symbol. */
export interface SymbolPerformance extends PerformanceSummary {
  venue: string;
  symbol: string;
}

/** {@link performance} per `(venue, symbol)`, sorted by venue then symbol. */
export function perSymbol(fills: FillInput[], trades: TradeInput[]): SymbolPerformance[] {
  const keys = new Map<string, { venue: string; symbol: string }>();
  for (const x of [...fills, ...trades]) keys.set(`${x.venue}\u0000${x.symbol}`, { venue: x.venue, symbol: x.symbol });
  return [...keys.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, k]) => ({
      venue: k.venue,
      symbol: k.symbol,
      ...performance(
        fills.filter((f) => f.venue === k.venue && f.symbol === k.symbol),
        trades.filter((t) => t.venue === k.venue && t.symbol === k.symbol),
      ),
    }));
}

/** One point of an equity curve: equity (USD) at `at` (ISO 8601). */
export interface EquityPoint {
  at: string;
  equityUsd: string;
  /** Net PnL of the trade closed at this point (per-trade curve) or of the day (daily curve), USD. */
  pnlUsd: string;
  /** The trade closed at this point (per-trade curve only). */
  tradeId?: string;
}

/**
 * Equity after each trade close, oldest first: `startEquity + Σ net PnL` of the trades closed so far
 * (USD). The first point is the start itself, stamped at `startAt` (ms; default the first close).
 * Trades are taken in `closedAt` order (stable for ties).
 */
export function equityCurve(startEquity: Decimal, trades: TradeInput[], startAt?: number): EquityPoint[] {
  const sorted = [...trades].sort((a, b) => a.closedAt - b.closedAt);
  const first = startAt ?? sorted[0]?.closedAt;
  const points: EquityPoint[] =
    first === undefined ? [] : [{ at: new Date(first).toISOString(), equityUsd: fmt(startEquity), pnlUsd: '0' }];
  let equity = startEquity;
  for (const t of sorted) {
    const n = netPnl(t);
    equity = equity.plus(n);
    points.push({
      at: new Date(t.closedAt).toISOString(),
      equityUsd: fmt(equity),
      pnlUsd: fmt(n),
      ...(t.id ? { tradeId: t.id } : {}),
    });
  }
  return points;
}

/** One UTC day of a daily equity curve: equity at the end of the day and that day's net PnL. */
export interface DailyEquityPoint {
  /** UTC day, YYYY-MM-DD. */
  date: string;
  equityUsd: string;
  pnlUsd: string;
  trades: number;
}

/**
 * Equity at the end of every UTC day from the first trade close to the last one, days without a
 * trade included (PnL 0). Empty without trades. At most {@link MAX_DAYS} days (the newest kept).
 */
export function dailyEquity(startEquity: Decimal, trades: TradeInput[]): DailyEquityPoint[] {
  if (!trades.length) return [];
  const byDay = new Map<number, { pnl: Decimal; n: number }>();
  for (const t of trades) {
    const day = Math.floor(t.closedAt / DAY_MS);
    const d = byDay.get(day) ?? { pnl: ZERO, n: 0 };
    byDay.set(day, { pnl: d.pnl.plus(netPnl(t)), n: d.n + 1 });
  }
  const days = [...byDay.keys()];
  const last = Math.max(...days);
  const first = Math.min(...days);
  const out: DailyEquityPoint[] = [];
  let equity = startEquity;
  for (let day = first; day <= last; day++) {
    const d = byDay.get(day);
    equity = equity.plus(d?.pnl ?? ZERO);
    out.push({
      date: new Date(day * DAY_MS).toISOString().slice(0, 10),
      equityUsd: fmt(equity),
      pnlUsd: fmt(d?.pnl ?? ZERO),
      trades: d?.n ?? 0,
    });
  }
  return out.slice(-MAX_DAYS);
}

/** One daily return: `equity_d / equity_{d−1} − 1`, fraction. */
export interface DailyReturn {
  date: string;
  return: string;
}

/** Drawdown of an equity series. */
export interface Drawdown {
  /** Largest `peak − equity` seen, USD (≥ 0). */
  maxDrawdownUsd: string;
  /** Largest `(peak − equity) / peak × 100`, percent (≥ 0); null when no peak is positive. */
  maxDrawdownPct: string | null;
}

/** Max drawdown in USD and in percent of the running peak (each maximised on its own). */
export function drawdown(equities: Decimal[]): Drawdown {
  let peak: Decimal | null = null;
  let ddUsd = ZERO;
  let ddPct: Decimal | null = null;
  for (const e of equities) {
    if (!peak || e.gt(peak)) peak = e;
    const dd = peak.minus(e);
    if (dd.gt(ddUsd)) ddUsd = dd;
    if (peak.gt(0)) {
      const pct = dd.div(peak).times(100);
      if (!ddPct || pct.gt(ddPct)) ddPct = pct;
    }
  }
  return { maxDrawdownUsd: fmt(ddUsd), maxDrawdownPct: ddPct ? fmt(ddPct.toDecimalPlaces(PCT_DP)) : null };
}

/** The risk-metrics read (docs/api.md §4.7); definitions in the field docs. */
export interface RiskMetrics extends TradeStats, Drawdown {
  /** Equity before the first day, USD. */
  startEquityUsd: string;
  /** Equity after the last trade, USD. */
  endEquityUsd: string;
  /** Daily returns from the daily equity curve (the day before the first is the start equity). */
  returns: DailyReturn[];
  /** Mean of the daily returns, fraction; null without returns. */
  meanDailyReturn: string | null;
  /** Sample standard deviation (n − 1) of the daily returns; null with fewer than 2 returns. */
  stdevDailyReturn: string | null;
  /** `mean / stdev × √365`, risk-free rate 0; null with fewer than 2 returns or stdev 0. */
  sharpe: string | null;
  /** `mean / downsideDeviation × √365`, downside deviation `√(Σ min(r, 0)² / n)`; null when no return is negative. */
  sortino: string | null;
}

/**
 * Risk metrics of round trips over a starting equity (USD): daily returns of the
 * {@link dailyEquity} curve, Sharpe and Sortino annualised with √{@link DAYS_PER_YEAR} (risk-free 0),
 * max drawdown over the per-trade {@link equityCurve} (start included), and {@link tradeStats}.
 */
export function riskMetrics(startEquity: Decimal, trades: TradeInput[]): RiskMetrics {
  const days = dailyEquity(startEquity, trades);
  const returns: { date: string; r: Decimal }[] = [];
  let prev = startEquity;
  for (const d of days) {
    const e = new Decimal(d.equityUsd);
    if (!prev.isZero()) returns.push({ date: d.date, r: e.div(prev).minus(1) });
    prev = e;
  }
  const n = returns.length;
  const mean = n ? returns.reduce((s, x) => s.plus(x.r), ZERO).div(n) : null;
  const stdev =
    mean && n >= 2
      ? returns
          .reduce((s, x) => s.plus(x.r.minus(mean).pow(2)), ZERO)
          .div(n - 1)
          .sqrt()
      : null;
  const downside = n
    ? returns
        .reduce((s, x) => (x.r.lt(0) ? s.plus(x.r.pow(2)) : s), ZERO)
        .div(n)
        .sqrt()
    : null;
  const annual = new Decimal(DAYS_PER_YEAR).sqrt();
  const curve = equityCurve(startEquity, trades);
  const equities = curve.length ? curve.map((p) => new Decimal(p.equityUsd)) : [startEquity];
  return {
    startEquityUsd: fmt(startEquity),
    endEquityUsd: fmt(equities.at(-1)!),
    returns: returns.map((x) => ({ date: x.date, return: fmt(x.r.toDecimalPlaces(RETURN_DP)) })),
    meanDailyReturn: mean ? fmt(mean.toDecimalPlaces(RETURN_DP)) : null,
    stdevDailyReturn: stdev ? fmt(stdev.toDecimalPlaces(RETURN_DP)) : null,
    sharpe: mean && stdev && !stdev.isZero() ? ratio(mean.div(stdev).times(annual)) : null,
    sortino: mean && downside && !downside.isZero() ? ratio(mean.div(downside).times(annual)) : null,
    ...drawdown(equities),
    ...tradeStats(trades),
  };
}

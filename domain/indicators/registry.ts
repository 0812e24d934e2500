/**
 * The indicator catalogue (docs/api.md §4.7 `GET /api/v1/indicators`): a table of declarative specs, each
 * `name → { params, inputs, outputs, description, create }`, computed by the `trading-signals`
 * library (v8, number-based).
 *
 * Indicator values are **analytics, not money**: bar decimal strings are converted with `Number()`
 * at the library boundary only, and every output is returned as a decimal string rounded (half-even)
 * to {@link SIGNIFICANT_DIGITS} significant digits, `null` while the indicator warms up. Money (PnL,
 * fees, fills) never goes through a float.
 */
import { ATR, BollingerBands, EMA, MACD, RSI, SMA, VWAP, WMA } from 'trading-signals';
import { Decimal, fmt } from '../decimal.js';

/** Significant digits of every indicator output. */
export const SIGNIFICANT_DIGITS = 8;
/** Most indicators one request may compute (docs/api.md §8-style bound; a 400 above it). */
export const MAX_INDICATORS = 10;
/** Most bars one compute or backtest request may cover. */
export const MAX_BARS = 5000;

/** A bar field an indicator reads. */
export type BarField = 'open' | 'high' | 'low' | 'close' | 'volume';
/** The bar fields, in order. */
export const BAR_FIELDS: readonly BarField[] = ['open', 'high', 'low', 'close', 'volume'];

/** One OHLCV bar as stored: prices USD and volume contracts as decimal strings, `openTime` ms. */
export interface Bar {
  openTime: number;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
}

/** A bar converted to numbers, for the library only. */
type NumBar = Record<BarField, number>;

/** One parameter of an indicator: a number (`integer` or `number`) within `[min, max]`. */
export interface ParamSpec {
  name: string;
  type: 'integer' | 'number';
  default: number;
  min: number;
  max: number;
  description: string;
}

/** Feeds one bar, answers one value per output (in `outputs` order) or null while warming up. */
export type Stepper = (bar: NumBar) => (number | null)[] | null;

/** A catalogue entry. `create` is not part of the wire spec. */
export interface IndicatorDef {
  name: string;
  description: string;
  /** Bar fields read, e.g. `['close']` or `['high', 'low', 'close', 'volume']`. */
  inputs: BarField[];
  /** Output names; a single-output indicator has `['value']`. */
  outputs: string[];
  params: ParamSpec[];
  /** A cross-parameter rule: an error message, or null when the params fit together. */
  check?: (p: Record<string, number>) => string | null;
  create: (p: Record<string, number>) => Stepper;
}

const period = (def: number, description = 'Look-back in bars'): ParamSpec => ({
  name: 'period',
  type: 'integer',
  default: def,
  min: 1,
  max: 1000,
  description,
});
const one = (v: number | null | undefined) => [v ?? null];

/** The catalogue: name → definition. Add an indicator by adding a row. */
export const INDICATORS: Record<string, IndicatorDef> = {
  sma: {
    name: 'sma',
    description: 'Simple moving average of the close over `period` bars.',
    inputs: ['close'],
    outputs: ['value'],
    params: [period(20)],
    create: (p) => {
      const x = new SMA(p.period);
      return (b) => one(x.add(b.close));
    },
  },
  ema: {
    name: 'ema',
    description:
      'Exponential moving average of the close, weight 2/(period+1), seeded with the first close; null for the first `period − 1` bars.',
    inputs: ['close'],
    outputs: ['value'],
    params: [period(20)],
    create: (p) => {
      const x = new EMA(p.period);
      return (b) => {
        x.add(b.close);
        return one(x.isStable ? x.getResult() : null);
      };
    },
  },
  wma: {
    name: 'wma',
    description: 'Linearly weighted moving average of the close over `period` bars.',
    inputs: ['close'],
    outputs: ['value'],
    params: [period(20)],
    create: (p) => {
      const x = new WMA(p.period);
      return (b) => one(x.add(b.close));
    },
  },
  rsi: {
    name: 'rsi',
    description:
      "Relative strength index (Wilder's smoothing) of the close, 0-100; first value after `period + 1` bars.",
    inputs: ['close'],
    outputs: ['value'],
    params: [period(14)],
    create: (p) => {
      const x = new RSI(p.period);
      return (b) => one(x.add(b.close));
    },
  },
  macd: {
    name: 'macd',
    description:
      'MACD of the close: `macd = EMA(fast) − EMA(slow)`, `signal = EMA(signal) of macd`, `histogram = macd − signal`; values once the signal EMA has `signal` inputs.',
    inputs: ['close'],
    outputs: ['macd', 'signal', 'histogram'],
    params: [
      { name: 'fast', type: 'integer', default: 12, min: 1, max: 1000, description: 'Fast EMA period' },
      { name: 'slow', type: 'integer', default: 26, min: 2, max: 1000, description: 'Slow EMA period (> fast)' },
      { name: 'signal', type: 'integer', default: 9, min: 1, max: 1000, description: 'Signal EMA period' },
    ],
    check: (p) => (p.fast < p.slow ? null : 'fast must be less than slow'),
    create: (p) => {
      const x = new MACD(new EMA(p.fast), new EMA(p.slow), new EMA(p.signal));
      return (b) => {
        const r = x.add(b.close);
        return r && x.signal.isStable ? [r.macd, r.signal, r.histogram] : null;
      };
    },
  },
  bollinger: {
    name: 'bollinger',
    description:
      'Bollinger bands of the close: `middle = SMA(period)`, `upper/lower = middle ± stddev × population standard deviation` over `period` bars.',
    inputs: ['close'],
    outputs: ['upper', 'middle', 'lower'],
    params: [
      period(20),
      {
        name: 'stddev',
        type: 'number',
        default: 2,
        min: 0.1,
        max: 10,
        description: 'Band width in standard deviations',
      },
    ],
    create: (p) => {
      const x = new BollingerBands(p.period, p.stddev);
      return (b) => {
        const r = x.add(b.close);
        return r ? [r.upper, r.middle, r.lower] : null;
      };
    },
  },
  atr: {
    name: 'atr',
    description: "Average true range (Wilder's smoothing) over `period` bars, in price units (USD).",
    inputs: ['high', 'low', 'close'],
    outputs: ['value'],
    params: [period(14)],
    create: (p) => {
      const x = new ATR(p.period);
      return (b) => one(x.add({ high: b.high, low: b.low, close: b.close }));
    },
  },
  vwap: {
    name: 'vwap',
    description:
      'Volume-weighted average of the typical price (high+low+close)/3, anchored at the first bar of the request; null on a bar with zero volume.',
    inputs: ['high', 'low', 'close', 'volume'],
    outputs: ['value'],
    params: [],
    create: () => {
      const x = new VWAP();
      return (b) => one(x.add({ high: b.high, low: b.low, close: b.close, volume: b.volume }));
    },
  },
};

/** The wire form of a catalogue entry (everything but `create`/`check`). */
export interface IndicatorSpecView {
  name: string;
  description: string;
  inputs: BarField[];
  outputs: string[];
  params: ParamSpec[];
}

/** The catalogue as `GET /api/v1/indicators` shows it, in table order. */
export function catalogue(): IndicatorSpecView[] {
  return Object.values(INDICATORS).map(({ name, description, inputs, outputs, params }) => ({
    name,
    description,
    inputs,
    outputs,
    params,
  }));
}

/** A field issue (the shape of `detail` entries of `400 validation_failed`). */
export interface Issue {
  path: string;
  message: string;
  code: string;
}

/** An indicator the caller asked for: `id` names its series, `params` by name (defaults fill the rest). */
export interface IndicatorRequest {
  id: string;
  name: string;
  params?: Record<string, unknown>;
}

/** A request checked against the catalogue, every param resolved. */
export interface ResolvedIndicator {
  id: string;
  name: string;
  params: Record<string, number>;
  def: IndicatorDef;
}

const ID_RE = /^[A-Za-z_][A-Za-z0-9_]{0,39}$/;

/**
 * Checks requests against the catalogue: unknown name, unknown or out-of-range param, a malformed
 * or duplicate id (ids cannot be a bar field), more than {@link MAX_INDICATORS}. Issues carry
 * `path` `<at>.<index>.<field>`; codes `too_many_indicators`, `unknown_indicator`, `invalid_id`,
 * `duplicate_id`, `unknown_param`, `invalid_param`.
 */
export function resolveIndicators(
  reqs: IndicatorRequest[],
  at = 'body.indicators',
): { resolved: ResolvedIndicator[]; issues: Issue[] } {
  const issues: Issue[] = [];
  const resolved: ResolvedIndicator[] = [];
  if (reqs.length > MAX_INDICATORS)
    issues.push({
      path: at,
      message: `at most ${MAX_INDICATORS} indicators, got ${reqs.length}`,
      code: 'too_many_indicators',
    });
  const seen = new Set<string>();
  reqs.forEach((r, i) => {
    const p = `${at}.${i}`;
    if (!ID_RE.test(r.id) || (BAR_FIELDS as readonly string[]).includes(r.id))
      issues.push({
        path: `${p}.id`,
        message: 'id: a letter or _, then letters, digits or _ (at most 40), not a bar field',
        code: 'invalid_id',
      });
    else if (seen.has(r.id)) issues.push({ path: `${p}.id`, message: `duplicate id ${r.id}`, code: 'duplicate_id' });
    seen.add(r.id);
    const def = Object.hasOwn(INDICATORS, r.name) ? INDICATORS[r.name] : undefined;
    if (!def) {
      issues.push({
        path: `${p}.name`,
        message: `unknown indicator ${r.name}; one of ${Object.keys(INDICATORS).join(', ')}`,
        code: 'unknown_indicator',
      });
      return;
    }
    const given = r.params ?? {};
    const params: Record<string, number> = {};
    for (const k of Object.keys(given)) {
      if (!def.params.some((s) => s.name === k))
        issues.push({
          path: `${p}.params.${k}`,
          message: `${def.name} has no param ${k}; params: ${def.params.map((s) => s.name).join(', ') || 'none'}`,
          code: 'unknown_param',
        });
    }
    let ok = true;
    for (const s of def.params) {
      const v = given[s.name] ?? s.default;
      if (
        typeof v !== 'number' ||
        !Number.isFinite(v) ||
        (s.type === 'integer' && !Number.isInteger(v)) ||
        v < s.min ||
        v > s.max
      ) {
        issues.push({
          path: `${p}.params.${s.name}`,
          message: `${s.name}: ${s.type === 'integer' ? 'an integer' : 'a number'} from ${s.min} to ${s.max}`,
          code: 'invalid_param',
        });
        ok = false;
      } else params[s.name] = v;
    }
    const bad = ok && def.check ? def.check(params) : null;
    if (bad) issues.push({ path: `${p}.params`, message: bad, code: 'invalid_param' });
    if (ok && !bad) resolved.push({ id: r.id, name: def.name, params, def });
  });
  return { resolved, issues };
}

/** A computed indicator: one array per output, aligned with the bars (null while warming up). */
export interface IndicatorSeries {
  id: string;
  name: string;
  params: Record<string, number>;
  values: Record<string, (string | null)[]>;
}

/** A library number as a wire decimal string: 8 significant digits, null when not finite. */
export function toWire(v: number | null): string | null {
  if (v === null || !Number.isFinite(v)) return null;
  return fmt(new Decimal(String(v)).toSignificantDigits(SIGNIFICANT_DIGITS, Decimal.ROUND_HALF_EVEN));
}

/**
 * Runs resolved indicators over `bars` (oldest first). `onBar` (optional) is called after every
 * bar, e.g. to enforce a time budget by throwing.
 */
export function computeSeries(
  bars: Bar[],
  indicators: ResolvedIndicator[],
  onBar?: (i: number) => void,
): IndicatorSeries[] {
  const runs = indicators.map((r) => ({
    r,
    step: r.def.create(r.params),
    values: Object.fromEntries(r.def.outputs.map((o) => [o, [] as (string | null)[]])),
  }));
  bars.forEach((bar, i) => {
    const nb: NumBar = {
      open: Number(bar.open),
      high: Number(bar.high),
      low: Number(bar.low),
      close: Number(bar.close),
      volume: Number(bar.volume),
    };
    for (const run of runs) {
      const out = run.step(nb);
      run.r.def.outputs.forEach((o, k) => run.values[o].push(toWire(out ? out[k] : null)));
    }
    onBar?.(i);
  });
  return runs.map(({ r, values }) => ({ id: r.id, name: r.name, params: r.params, values }));
}

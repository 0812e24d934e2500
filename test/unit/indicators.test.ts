/** The indicator catalogue and its computation (docs/api.md §4.7): known values, warm-up nulls, validation. */
import { describe, expect, it } from 'vitest';
import {
  INDICATORS,
  MAX_INDICATORS,
  catalogue,
  computeSeries,
  resolveIndicators,
  toWire,
  type Bar,
} from '../../domain/indicators/registry.js';

const closes = (...cs: number[]): Bar[] =>
  cs.map((c, i) => ({
    openTime: i * 60_000,
    open: String(c),
    high: String(c),
    low: String(c),
    close: String(c),
    volume: '1',
  }));

function compute(bars: Bar[], name: string, params: Record<string, number> = {}) {
  const { resolved, issues } = resolveIndicators([{ id: 'x', name, params }]);
  expect(issues).toEqual([]);
  return computeSeries(bars, resolved)[0];
}

describe('indicator catalogue', () => {
  it('lists declarative specs with params, inputs and outputs', () => {
    const cat = catalogue();
    expect(cat.map((c) => c.name)).toEqual(
      expect.arrayContaining(['sma', 'ema', 'rsi', 'macd', 'bollinger', 'atr', 'vwap']),
    );
    expect(cat.find((c) => c.name === 'rsi')).toMatchObject({
      inputs: ['close'],
      outputs: ['value'],
      params: [{ name: 'period', type: 'integer', default: 14, min: 1, max: 1000 }],
    });
    expect(cat.find((c) => c.name === 'atr')!.inputs).toEqual(['high', 'low', 'close']);
    expect(cat.find((c) => c.name === 'vwap')!.inputs).toEqual(['high', 'low', 'close', 'volume']);
    expect(cat.find((c) => c.name === 'macd')!.outputs).toEqual(['macd', 'signal', 'histogram']);
    expect(cat.every((c) => !('create' in c) && c.description.length > 10)).toBe(true);
  });
});

describe('indicator values (decimal strings, 8 significant digits)', () => {
  it('SMA(3) of 1..5, null while warming up', () => {
    expect(compute(closes(1, 2, 3, 4, 5), 'sma', { period: 3 }).values.value).toEqual([null, null, '2', '3', '4']);
    expect(compute(closes(1, 2, 2), 'sma', { period: 3 }).values.value).toEqual([null, null, '1.6666667']);
  });

  it('EMA(3): weight 2/(3+1) = 0.5 seeded with the first close: 1, 1.5, 2.25, 3.125, 4.0625', () => {
    expect(compute(closes(1, 2, 3, 4, 5), 'ema', { period: 3 }).values.value).toEqual([
      null,
      null,
      '2.25',
      '3.125',
      '4.0625',
    ]);
  });

  it("RSI(2) with Wilder's smoothing on 10, 11, 12, 11, 13, 12", () => {
    // gains/losses: +1 +1 −1 +2 −1 → avg gain/loss: (1, 0) → 100; (0.5, 0.5) → 50; (1.25, 0.25) → 100 − 100/6; (0.625, 0.625) → 50
    expect(compute(closes(10, 11, 12, 11, 13, 12), 'rsi', { period: 2 }).values.value).toEqual([
      null,
      null,
      '100',
      '50',
      '83.333333',
      '50',
    ]);
  });

  it('Bollinger bands of a constant series collapse on the mean; MACD waits for its signal EMA', () => {
    const bb = compute(closes(5, 5, 5), 'bollinger', { period: 2 }).values;
    expect([bb.upper, bb.middle, bb.lower]).toEqual([
      [null, '5', '5'],
      [null, '5', '5'],
      [null, '5', '5'],
    ]);
    const m = compute(closes(1, 2, 3, 4, 5, 6, 7), 'macd', { fast: 2, slow: 3, signal: 2 }).values;
    expect(m.macd.findIndex((v) => v !== null)).toBe(3); // slow − 1 + signal − 1
    expect(m.macd.slice(3).every((v, i) => v !== null && m.signal[3 + i] !== null && m.histogram[3 + i] !== null)).toBe(
      true,
    );
  });

  it('ATR(2) of bars with a true range of 2, VWAP weighted by volume and null on zero volume', () => {
    const hlc = [
      [10, 8, 9],
      [11, 9, 10],
      [12, 10, 11],
    ].map(([h, l, c], i) => ({
      openTime: i,
      open: String(c),
      high: String(h),
      low: String(l),
      close: String(c),
      volume: '1',
    }));
    expect(compute(hlc, 'atr', { period: 2 }).values.value).toEqual([null, '2', '2']);
    const v: Bar[] = [
      { openTime: 0, open: '2', high: '3', low: '1', close: '2', volume: '1' }, // typical 2
      { openTime: 1, open: '3', high: '6', low: '3', close: '3', volume: '3' }, // typical 4
      { openTime: 2, open: '3', high: '6', low: '3', close: '3', volume: '0' },
    ];
    expect(compute(v, 'vwap').values.value).toEqual(['2', '3.5', null]); // (2·1 + 4·3) / 4
  });

  it('rounds library floats to 8 significant digits, half-even, and drops non-finite values', () => {
    expect(toWire(0.1 + 0.2)).toBe('0.3');
    expect(toWire(123456.789)).toBe('123456.79');
    expect(toWire(0.000012345678912)).toBe('0.000012345679');
    expect(toWire(Number.NaN)).toBeNull();
  });
});

describe('indicator requests', () => {
  it('fills defaults and reports every issue with its path', () => {
    expect(resolveIndicators([{ id: 'r', name: 'rsi' }]).resolved[0].params).toEqual({ period: 14 });
    const { issues } = resolveIndicators([
      { id: 'a', name: 'nope' },
      { id: 'b', name: 'sma', params: { period: 0 } },
      { id: 'c', name: 'ema', params: { period: 2.5, width: 3 } },
      { id: 'b', name: 'macd', params: { fast: 26, slow: 12 } },
      { id: 'close', name: 'sma' },
    ]);
    expect(issues.map((i) => [i.path, i.code])).toEqual([
      ['body.indicators.0.name', 'unknown_indicator'],
      ['body.indicators.1.params.period', 'invalid_param'],
      ['body.indicators.2.params.width', 'unknown_param'],
      ['body.indicators.2.params.period', 'invalid_param'],
      ['body.indicators.3.id', 'duplicate_id'],
      ['body.indicators.3.params', 'invalid_param'],
      ['body.indicators.4.id', 'invalid_id'],
    ]);
  });

  it(`refuses more than ${MAX_INDICATORS} indicators`, () => {
    const many = Array.from({ length: MAX_INDICATORS + 1 }, (_, i) => ({ id: `s${i}`, name: 'sma' }));
    expect(resolveIndicators(many).issues).toEqual([
      expect.objectContaining({ code: 'too_many_indicators', path: 'body.indicators' }),
    ]);
    expect(Object.keys(INDICATORS).length).toBeGreaterThanOrEqual(7);
  });
});

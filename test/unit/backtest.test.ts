/** The backtest engine (docs/api.md §4.7): rules on bar close, fills at the next open, exact PnL and fees. */
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../domain/decimal.js';
import { checkRules, runBacktest, totalNetPnl, type Rule } from '../../domain/backtest/engine.js';
import { resolveIndicators, type Bar } from '../../domain/indicators/registry.js';

const H = 3_600_000;
const T0 = Date.parse('2025-07-21T00:00:00Z');
/** Bars with open = previous close + 0.5 (so fills at the open are distinguishable from closes). */
function bars(...cs: number[]): Bar[] {
  return cs.map((c, i) => {
    const open = i === 0 ? c : cs[i - 1] + 0.5;
    return {
      openTime: T0 + i * H,
      open: String(open),
      high: String(Math.max(open, c)),
      low: String(Math.min(open, c)),
      close: String(c),
      volume: '10',
    };
  });
}
const iso = (i: number) => new Date(T0 + i * H).toISOString();
const ind = (reqs: { id: string; name: string; params?: Record<string, number> }[]) => resolveIndicators(reqs).resolved;
const cross = (left: string, op: 'crosses_above' | 'crosses_below', right: string): Rule => ({
  all: [{ left, op, right }],
});

describe('backtest engine', () => {
  // closes 10 10 10 12 14 13 11 9 9 12 13: close crosses above SMA(3) at bar 3 (12 > 10.67, 10 ≤ 10),
  // below at bar 6 (11 < 12.67), above again at bar 9 (12 > 10) and stays above to the end.
  const series = bars(10, 10, 10, 12, 14, 13, 11, 9, 9, 12, 13);
  const indicators = ind([{ id: 'ma', name: 'sma', params: { period: 3 } }]);
  /**
   * A backtest of `series` (hourly bars) with the SMA(3) `indicators`: long on the close crossing above the
   * SMA and out on it crossing below, 1 contract, no fees, 1 USD of equity, unless `o` says otherwise.
   */
  const backtest = (o: Partial<Parameters<typeof runBacktest>[0]> = {}) =>
    runBacktest({
      bars: series,
      intervalMs: H,
      indicators,
      entry: cross('close', 'crosses_above', 'ma'),
      exit: cross('close', 'crosses_below', 'ma'),
      side: 'long',
      qty: new Decimal(1),
      feeBps: new Decimal(0),
      initialEquity: new Decimal(1),
      ...o,
    });

  it('a price/SMA crossover long: enters and exits at the next bar’s open, exact PnL and fees', () => {
    const r = backtest({ qty: new Decimal('2'), feeBps: new Decimal('10'), initialEquity: new Decimal('1000') });
    expect(r.bars).toBe(11);
    expect(r.trades).toEqual([
      // signal at bar 3 close → entry at bar 4 open 12.5; signal at bar 6 close → exit at bar 7 open 11.5
      {
        side: 'long',
        qty: '2',
        entryTime: iso(4),
        entryPrice: '12.5',
        exitTime: iso(7),
        exitPrice: '11.5',
        realizedPnlUsd: '-2',
        feesUsd: '0.048',
        netPnlUsd: '-2.048',
        exitReason: 'signal',
      },
      // signal at bar 9 close → entry at bar 10 open 12.5; still open at the end → last close 13
      {
        side: 'long',
        qty: '2',
        entryTime: iso(10),
        entryPrice: '12.5',
        exitTime: new Date(T0 + 11 * H - 1).toISOString(),
        exitPrice: '13',
        realizedPnlUsd: '1',
        feesUsd: '0.051',
        netPnlUsd: '0.949',
        exitReason: 'end_of_data',
      },
    ]);
    expect(totalNetPnl(r.trades).toFixed()).toBe('-1.099');
    expect(r.equityCurve.map((p) => p.equityUsd)).toEqual(['1000', '997.952', '998.901']);
    expect(r.equityCurve[0].at).toBe(iso(0));
    expect(r.metrics).toMatchObject({
      trades: 2,
      wins: 1,
      losses: 1,
      winRate: '0.5',
      maxDrawdownUsd: '2.048',
      endEquityUsd: '998.901',
      profitFactor: '0.46337891',
    }); // 0.949 / 2.048
  });

  it('a short profits from the same crossovers reversed, with no fees', () => {
    const r = backtest({
      entry: cross('close', 'crosses_below', 'ma'),
      exit: cross('close', 'crosses_above', 'ma'),
      side: 'short',
      initialEquity: new Decimal('1000'),
    });
    // signal bar 6 → short at bar 7 open 11.5; cover signal bar 9 → bar 10 open 12.5: −1
    expect(r.trades.map((t) => [t.entryPrice, t.exitPrice, t.netPnlUsd, t.exitReason])).toEqual([
      ['11.5', '12.5', '-1', 'signal'],
    ]);
  });

  it('combines conditions with all/any and decimal literals; a signal on the last bar is dropped', () => {
    const base = { initialEquity: new Decimal(100) };
    const all = backtest({
      ...base,
      entry: {
        all: [
          { left: 'close', op: 'gt', right: 'ma' },
          { left: 'close', op: 'gte', right: '14' },
        ],
      },
      exit: {
        any: [
          { left: 'close', op: 'lt', right: '10' },
          { left: 'close', op: 'lte', right: '9' },
        ],
      },
    });
    // close > ma and close ≥ 14 first at bar 4 → in at bar 5 open 14.5; close < 10 at bar 7 → out at bar 8 open 9.5
    expect(all.trades.map((t) => [t.entryTime, t.entryPrice, t.exitTime, t.exitPrice, t.netPnlUsd])).toEqual([
      [iso(5), '14.5', iso(8), '9.5', '-5'],
    ]);
    const last = backtest({
      ...base,
      entry: {
        all: [
          { left: 'close', op: 'gte', right: '13' },
          { left: 'open', op: 'gt', right: '12' },
        ],
      },
      exit: { all: [{ left: 'close', op: 'lt', right: '0' }] },
    });
    // bar 4 (close 14 ≥ 13, open 12.5 > 12) enters at bar 5; the exit never matches: closed at the end
    expect(last.trades).toHaveLength(1);
    expect(last.trades[0]).toMatchObject({
      entryTime: iso(5),
      entryPrice: '14.5',
      exitPrice: '13',
      netPnlUsd: '-1.5',
      exitReason: 'end_of_data',
    });
    const onlyLast = backtest({
      ...base,
      entry: {
        all: [
          { left: 'close', op: 'gte', right: '13' },
          { left: 'close', op: 'lt', right: '14' },
          { left: 'open', op: 'lt', right: '13' },
        ],
      },
      exit: { all: [{ left: 'close', op: 'lt', right: '0' }] },
    });
    expect(onlyLast.trades).toEqual([]); // only bar 10 matches: no next bar to fill on
    expect(onlyLast.equityCurve).toEqual([{ at: iso(0), equityUsd: '100', pnlUsd: '0' }]);
  });

  it('names unknown operands and wrong outputs of multi-output indicators', () => {
    const macd = ind([
      { id: 'm', name: 'macd' },
      { id: 'fast', name: 'ema', params: { period: 5 } },
    ]);
    const issues = checkRules(
      {
        entry: {
          all: [
            { left: 'm', op: 'gt', right: 'm.signal' },
            { left: 'fast.value', op: 'gt', right: '1e5' },
          ],
        },
        exit: { any: [{ left: 'slow', op: 'lt', right: 'close' }] },
      },
      macd,
    );
    expect(issues.map((i) => [i.path, i.code])).toEqual([
      ['body.entry.all.0.left', 'unknown_operand'], // m has three outputs: m.macd, m.signal, m.histogram
      ['body.entry.all.1.right', 'unknown_operand'], // not a plain decimal
      ['body.exit.any.0.left', 'unknown_operand'],
    ]);
    expect(issues[0].message).toContain('m.histogram');
  });

  it('stops with 422 backtest_too_large when the time budget runs out', () => {
    let t = 0;
    const run = () => backtest({ budgetMs: 5, now: () => (t += 1) });
    expect(run).toThrow(expect.objectContaining({ code: 'backtest_too_large', status: 422 }));
  });
});

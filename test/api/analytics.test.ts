/**
 * Analytics, indicators and backtests over the real stack (docs/api.md §4.7, §2.8): a trader makes paper
 * round trips and imports one, and every derived read agrees with /fills and /trades.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../domain/decimal.js';
import { startStack, type Stack } from '../support/stack.js';
import { importManualShort, stackWithRoundTrips } from '../support/trading.js';
import { recordedTick } from '../support/marks.js';
import { recordLiveBars } from '../../modules/market/feeds/live-candles.js';
import pg from 'pg';

const sum = (xs: string[]) => xs.reduce((s, x) => s.plus(x), new Decimal(0));

describe('analytics over paper round trips and an imported trade', () => {
  let s: Stack;
  let t: Awaited<ReturnType<Stack['trader']>>;
  let fills: { qty: string; price: string; feeUsd: string; symbol: string }[];
  let trades: {
    tradeId: string;
    realizedPnlUsd: string;
    feesUsd: string;
    source: string;
    symbol: string;
    closedAt: string;
  }[];
  beforeAll(async () => {
    ({ s, t } = await stackWithRoundTrips()); // buy 3, sell 1, sell 2: three fills, two round trips
    await importManualShort(s, t);
    fills = (await s.call('GET', `/api/v1/accounts/${t.accountId}/fills`, { token: t.token })).body.fills;
    trades = (await s.call('GET', `/api/v1/accounts/${t.accountId}/trades`, { token: t.token })).body.trades;
    expect([fills.length, trades.length]).toEqual([3, 3]);
  });
  afterAll(async () => s?.stop());

  const net = (x: { realizedPnlUsd: string; feesUsd: string }) => new Decimal(x.realizedPnlUsd).minus(x.feesUsd);

  it('performance: volume and fill fees from fills, PnL from trades (the import counts in PnL only)', async () => {
    const res = await s.call('GET', '/api/v1/analytics/performance', { token: t.token });
    expect(res.status).toBe(200);
    const volume = fills.reduce((v, f) => v.plus(new Decimal(f.qty).times(f.price)), new Decimal(0));
    expect(res.body).toMatchObject({
      accountIds: [t.accountId],
      window: { from: null, to: null },
      fills: 3,
      volumeUsd: volume.toFixed(),
      fillFeesUsd: sum(fills.map((f) => f.feeUsd)).toFixed(),
      trades: 3,
      manualTrades: 1,
      realizedPnlUsd: sum(trades.map((x) => x.realizedPnlUsd)).toFixed(),
      tradeFeesUsd: sum(trades.map((x) => x.feesUsd)).toFixed(),
      netPnlUsd: trades.reduce((a, x) => a.plus(net(x)), new Decimal(0)).toFixed(),
    });
    const same = await s.call('GET', `/api/v1/analytics/performance?accountId=${t.accountId}`, { token: t.token });
    expect(same.body).toEqual(res.body);
  });

  it('per-symbol: the SOL round trips carry all the volume, the imported BTC trade none', async () => {
    const res = await s.call('GET', '/api/v1/analytics/per-symbol', { token: t.token });
    const by = Object.fromEntries(res.body.symbols.map((x: { symbol: string }) => [x.symbol, x]));
    expect(Object.keys(by)).toEqual(['BTC.PAPER', 'SOL.PAPER']);
    expect(by['BTC.PAPER']).toMatchObject({
      venue: 'paper',
      fills: 0,
      volumeUsd: '0',
      trades: 1,
      manualTrades: 1,
      realizedPnlUsd: '105.75',
      netPnlUsd: '103.25',
      wins: 1,
    });
    const sol = trades.filter((x) => x.symbol === 'SOL.PAPER');
    expect(by['SOL.PAPER']).toMatchObject({
      fills: 3,
      trades: 2,
      realizedPnlUsd: sum(sol.map((x) => x.realizedPnlUsd)).toFixed(),
    });
  });

  it('equity curve: deposit plus cumulative net PnL, per trade and per day, and windowed', async () => {
    const res = await s.call('GET', '/api/v1/analytics/equity-curve', { token: t.token });
    expect(res.body).toMatchObject({ bucket: 'trade', startEquityUsd: '100000' });
    const ordered = [...trades].sort(
      (a, b) => Date.parse(a.closedAt) - Date.parse(b.closedAt) || (a.tradeId < b.tradeId ? -1 : 1),
    );
    let e = new Decimal(100000);
    const expected = ['100000', ...ordered.map((x) => (e = e.plus(net(x))).toFixed())];
    expect(res.body.points.map((p: { equityUsd: string }) => p.equityUsd)).toEqual(expected);
    expect(res.body.points.slice(1).map((p: { tradeId: string }) => p.tradeId)).toEqual(ordered.map((x) => x.tradeId));
    expect(res.body.endEquityUsd).toBe(expected.at(-1));

    const daily = await s.call('GET', '/api/v1/analytics/equity-curve?bucket=day', { token: t.token });
    expect(daily.body.points[0]).toEqual({ date: '2025-07-21', equityUsd: '100103.25', pnlUsd: '103.25', trades: 1 });
    const lastDay = ordered.at(-1)!.closedAt.slice(0, 10);
    expect(daily.body.points.at(-1)).toMatchObject({
      date: lastDay,
      equityUsd: expected.at(-1),
      trades: ordered.filter((x) => x.closedAt.startsWith(lastDay)).length,
    });
    const days = (Date.parse(daily.body.points.at(-1).date) - Date.parse('2025-07-21')) / 86_400_000 + 1;
    expect(daily.body.points).toHaveLength(days);

    const from = '2025-08-01T00:00:00.000Z';
    const windowed = await s.call('GET', `/api/v1/analytics/equity-curve?from=${from}`, { token: t.token });
    expect(windowed.body).toMatchObject({
      window: { from, to: null },
      startEquityUsd: '100103.25',
      endEquityUsd: expected.at(-1),
    });
    expect(windowed.body.points).toHaveLength(3);
  });

  it('risk metrics agree with the trades', async () => {
    const res = await s.call('GET', '/api/v1/analytics/risk-metrics', { token: t.token });
    expect(res.status).toBe(200);
    const nets = trades.map(net);
    const wins = nets.filter((n) => n.gt(0)).length;
    const losses = nets.filter((n) => n.lt(0)).length;
    expect(res.body).toMatchObject({
      trades: 3,
      wins,
      losses,
      winRate: new Decimal(wins).div(3).toDecimalPlaces(8).toFixed(),
      startEquityUsd: '100000',
    });
    expect(res.body.expectancyUsd).toBe(
      nets
        .reduce((a, n) => a.plus(n), new Decimal(0))
        .div(3)
        .toDecimalPlaces(8)
        .toFixed(),
    );
    expect(res.body.returns.length).toBeGreaterThan(1);
    expect(res.body.returns[0]).toEqual({ date: '2025-07-21', return: '0.0010325' }); // 103.25 / 100000
    expect(typeof res.body.sharpe).toBe('string');
    // the SOL round trips lose the spread and the fees: the drawdown is measured from the post-import peak
    expect(new Decimal(res.body.maxDrawdownUsd).toFixed()).toBe(
      new Decimal('100103.25').minus(res.body.endEquityUsd).toFixed(),
    );
  });

  it('scopes to the caller: another trader sees nothing and cannot name this account', async () => {
    const other = await s.trader();
    const perf = await s.call('GET', '/api/v1/analytics/performance', { token: other.token });
    expect(perf.body).toMatchObject({ fills: 0, trades: 0, volumeUsd: '0' });
    expect(
      await s.call('GET', `/api/v1/analytics/risk-metrics?accountId=${t.accountId}`, { token: other.token }),
    ).toMatchObject({ status: 403, body: { error: 'forbidden' } });
    expect(
      await s.call('GET', '/api/v1/analytics/per-symbol?accountId=acc_nope', { token: other.token }),
    ).toMatchObject({ status: 404, body: { error: 'account_not_found' } });
    const bad = await s.call('GET', '/api/v1/analytics/equity-curve?from=yesterday&bucket=week', {
      token: other.token,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('validation_failed');
    expect(bad.body.detail.map((d: { path: string }) => d.path).sort()).toEqual(['query.bucket', 'query.from']);
    expect((await s.call('GET', '/api/v1/analytics/performance')).status).toBe(401);
  });
});

describe('indicators and backtests over the candle series', () => {
  let s: Stack;
  let token: string;
  /** Where ETH.PAPER's rebased history meets its first live bar, per interval (docs/api.md §2.9). */
  const seam = { '1m': '', '1h': '' };
  /** Just before an instant: the newest bar an `endTime` ending there selects opens before it. */
  const before = (iso: string) => new Date(Date.parse(iso) - 1).toISOString();
  beforeAll(async () => {
    s = await startStack({ worker: false });
    token = (await s.trader('readonly')).token;
    const { loadRecordedCandles } = await import('../../modules/market/feeds/candles.js');
    await loadRecordedCandles(s.config.databaseUrl);
    // A live bar fixes where the history ends (other test files move the mark; the windows below end at the seam).
    const db = new pg.Client({ connectionString: s.config.databaseUrl });
    await db.connect();
    await recordLiveBars(db, { ...(await recordedTick('ETH.PAPER', 0.5)), ts: Date.now() }, []);
    await db.end();
    for (const interval of ['1m', '1h'] as const)
      seam[interval] = (
        await s.call('GET', `/api/v1/market/candles/paper/ETH.PAPER?interval=${interval}&limit=1000`, { token })
      ).body.rebase.seamTime;
  });
  afterAll(async () => s?.stop());

  it('lists the catalogue', async () => {
    const res = await s.call('GET', '/api/v1/indicators', { token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ significantDigits: 8, maxIndicators: 10, maxBars: 5000 });
    expect(res.body.indicators.find((x: { name: string }) => x.name === 'bollinger')).toMatchObject({
      inputs: ['close'],
      outputs: ['upper', 'middle', 'lower'],
    });
    const doc = await s.call('GET', '/api/v1/openapi.json');
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/indicators',
        '/api/v1/indicators/compute',
        '/api/v1/backtests/run',
        '/api/v1/analytics/risk-metrics',
      ]),
    );
  });

  it('computes series aligned with the bars: SMA(20) is the mean of the last 20 closes', async () => {
    const res = await s.call('POST', '/api/v1/indicators/compute', {
      token,
      body: {
        venue: 'paper',
        symbol: 'ETH.PAPER',
        interval: '1h',
        limit: 50,
        to: seam['1h'],
        indicators: [
          { id: 'ma', name: 'sma', params: { period: 20 } },
          { id: 'm', name: 'macd' },
        ],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // the same bars as the chart: the recorded history on the replay clock (docs/api.md §2.9)
    expect(res.body).toMatchObject({ bars: 50, source: 'recorded:hyperliquid:rebased' });
    const candles = await s.call(
      'GET',
      `/api/v1/market/candles/paper/ETH.PAPER?interval=1h&limit=50&endTime=${before(seam['1h'])}`,
      { token },
    );
    expect(candles.body.source).toBe(res.body.source);
    expect(res.body.openTime).toEqual(candles.body.bars.map((b: { openTime: string }) => b.openTime));
    const ma = res.body.indicators[0].values.value as (string | null)[];
    expect(ma.slice(0, 19).every((v) => v === null)).toBe(true);
    const closes = candles.body.bars.map((b: { close: string }) => b.close) as string[];
    for (const i of [19, 49])
      expect(ma[i]).toBe(
        sum(closes.slice(i - 19, i + 1))
          .div(20)
          .toSignificantDigits(8)
          .toFixed(),
      );
    expect(Object.keys(res.body.indicators[1].values)).toEqual(['macd', 'signal', 'histogram']);
    expect(res.body.indicators[1].params).toEqual({ fast: 12, slow: 26, signal: 9 });
  });

  const run = (body: Record<string, unknown>) =>
    s.call('POST', '/api/v1/backtests/run', {
      token,
      body: {
        venue: 'paper',
        symbol: 'ETH.PAPER',
        interval: '1h',
        limit: 1000,
        to: seam['1h'],
        indicators: [
          { id: 'fast', name: 'ema', params: { period: 5 } },
          { id: 'slow', name: 'ema', params: { period: 20 } },
        ],
        entry: { all: [{ left: 'fast', op: 'crosses_above', right: 'slow' }] },
        exit: { any: [{ left: 'fast', op: 'crosses_below', right: 'slow' }] },
        side: 'long',
        qty: '0.1',
        feeBps: '4.5',
        ...body,
      },
    });

  it('backtests an EMA crossover: trades on bar opens, an equity curve and metrics that add up', async () => {
    const res = await run({});
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ venue: 'paper', symbol: 'ETH.PAPER', interval: '1h', bars: 1000 });
    const { trades, equityCurve, metrics } = res.body;
    expect(trades.length).toBeGreaterThan(3);
    const opens = new Map<string, string>();
    const candles = await s.call(
      'GET',
      `/api/v1/market/candles/paper/ETH.PAPER?interval=1h&limit=1000&endTime=${before(seam['1h'])}`,
      { token },
    );
    for (const b of candles.body.bars) opens.set(b.openTime, b.open);
    for (const tr of trades.filter((x: { exitReason: string }) => x.exitReason === 'signal')) {
      expect(tr.entryPrice).toBe(opens.get(tr.entryTime));
      expect(tr.exitPrice).toBe(opens.get(tr.exitTime));
      expect(tr.realizedPnlUsd).toBe(new Decimal(tr.exitPrice).minus(tr.entryPrice).times('0.1').toFixed());
      expect(tr.feesUsd).toBe(new Decimal(tr.entryPrice).plus(tr.exitPrice).times('0.1').times('0.00045').toFixed());
    }
    expect(equityCurve).toHaveLength(trades.length + 1);
    expect(equityCurve.at(-1).equityUsd).toBe(
      sum(trades.map((x: { netPnlUsd: string }) => x.netPnlUsd))
        .plus(100000)
        .toFixed(),
    );
    expect(metrics).toMatchObject({
      trades: trades.length,
      startEquityUsd: '100000',
      endEquityUsd: equityCurve.at(-1).equityUsd,
    });
    expect(res.body.window.from).toBe(candles.body.bars[0].openTime);
  });

  it('refuses too many bars or indicators, unknown indicators and operands, with every issue in detail', async () => {
    const many = Array.from({ length: 11 }, (_, i) => ({ id: `e${i}`, name: 'ema' }));
    const tooMany = await run({ indicators: many });
    expect(tooMany).toMatchObject({ status: 400, body: { error: 'validation_failed' } });
    expect(tooMany.body.detail.map((d: { path: string }) => d.path)).toContain('body.indicators');
    expect((await run({ limit: 5001 })).body.detail.map((d: { path: string }) => d.path)).toEqual(['body.limit']);
    const window = await run({
      interval: '1m',
      limit: undefined,
      from: new Date(Date.parse(seam['1m']) - 7 * 86_400_000).toISOString(), // the 6,806 recorded 1m bars
      to: seam['1m'],
    });
    expect(window).toMatchObject({
      status: 400,
      body: { error: 'validation_failed', detail: [{ code: 'too_many_bars' }] },
    });
    const unknown = await run({
      indicators: [
        { id: 'fast', name: 'hull' },
        { id: 'slow', name: 'ema', params: { period: 0 } },
      ],
      exit: { any: [{ left: 'fast', op: 'crosses_below', right: 'slower' }] },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail.map((d: { path: string; code: string }) => `${d.path} ${d.code}`)).toEqual([
      'body.indicators.0.name unknown_indicator',
      'body.indicators.1.params.period invalid_param',
      'body.exit.any.0.right unknown_operand', // `fast` and `slow` were asked for: only their own issues are listed
    ]);
    const badOp = await run({ entry: { all: [{ left: 'fast', op: 'above', right: 'slow' }] } });
    expect(badOp.body.detail[0].path).toBe('body.entry');
    expect(await run({ symbol: 'DOGE.PAPER' })).toMatchObject({ status: 400, body: { error: 'symbol_unknown' } });
    expect((await run({ qty: '0' })).body.detail.map((d: { path: string }) => d.path)).toEqual(['body.qty']);
  });
});

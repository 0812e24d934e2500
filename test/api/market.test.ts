/**
 * Quotes and depth over REST and `/ws/quotes` (docs/api.md §4.6, §6.1), from the canonical marks; candles and
 * 24 h stats of every listed symbol: one continuous series ending at the mark (§2.9).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Mark } from '../../db/entities.js';
import { platformEm } from '../../db/orm.js';
import { startStack, type Stack } from '../support/stack.js';
import { publish, recordedTick } from '../support/marks.js';
import { openRisk } from '../support/ws.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { startStreamProducer, type StreamProducer } from '../../modules/market/feeds/streams.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { Decimal } from '../../domain/decimal.js';
import { findSymbol } from '../../domain/market/symbols.js';
import { publishMark } from '../../modules/market/feeds/marks.js';
import { recordLiveBars } from '../../modules/market/feeds/live-candles.js';
import { predictionTick } from '../../modules/market/feeds/prediction-marks.js';

/** A stack without a worker, a read-only trader's bearer, and a market stream producer on its database. */
async function startMarketStack() {
  const s = await startStack({ worker: false });
  const token = (await s.trader('readonly')).token;
  const producer = await startStreamProducer({ databaseUrl: s.config.databaseUrl, logger: pino({ level: 'silent' }) });
  return { s, token, producer };
}

describe('market data from the canonical marks', () => {
  let s: Stack;
  let token: string;
  let producer: StreamProducer;
  beforeAll(async () => ({ s, token, producer } = await startMarketStack()));
  afterAll(async () => (await producer?.stop(), await s?.stop()));

  it('answers 503 cold_cache before the first mark, then the quote and the depth', async () => {
    await platformEm(s.orm).nativeDelete(Mark, { venue: 'paper', symbol: 'SOL.PAPER' });
    const cold = await s.call('GET', '/api/v1/market/quotes/paper/SOL.PAPER', { token });
    expect(cold).toMatchObject({ status: 503, body: { error: 'cold_cache' } });
    expect(cold.headers.get('retry-after')).toBe('1');
    const tick = await recordedTick('SOL.PAPER', 0.5);
    await publish(s.orm, tick);
    const q = await s.call('GET', '/api/v1/market/quotes/paper/SOL.PAPER', { token });
    expect(q.body).toMatchObject({
      venue: 'paper',
      symbol: 'SOL.PAPER',
      mark: tick.mark.toFixed(),
      bid: tick.bid.toFixed(),
      ask: tick.ask.toFixed(),
      source: 'replay:hyperliquid',
    });
    await s.call('GET', '/api/v1/market/depth/paper/SOL.PAPER?levels=5', { token }); // opens the stream if nobody streams SOL yet
    await sleep(500);
    const d = await s.call('GET', '/api/v1/market/depth/paper/SOL.PAPER?levels=5', { token });
    expect(d.body.bids).toHaveLength(5);
    expect(d.body.asks[0]).toEqual([tick.book.asks[0].price.toFixed(), tick.book.asks[0].size.toFixed()]);
    expect((await s.call('GET', '/api/v1/market/depth/paper/DOGE.PAPER', { token })).body.error).toBe('symbol_unknown');
    expect((await s.call('GET', '/api/v1/market/depth', { token })).status).toBe(404);
  });

  it('labels each quote with the recording it replays: prediction symbols Polymarket, perps Hyperliquid', async () => {
    const { VENUE_SYMBOLS } = await import('../../domain/market/symbols.js');
    const { predictionTickAt } = await import('../../modules/market/feeds/prediction-marks.js');
    for (const venue of ['polymarket', 'kalshi'] as const) {
      const spec = VENUE_SYMBOLS[venue][0];
      await publishMark(s.orm, predictionTickAt(spec, '0.5', Date.now()));
      const q = await s.call('GET', `/api/v1/market/quotes/${venue}/${encodeURIComponent(spec.symbol)}`, { token });
      expect(q.status, JSON.stringify(q.body)).toBe(200);
      expect(q.body).toMatchObject({ venue, symbol: spec.symbol, mark: '0.5', source: 'replay:polymarket' });
    }
    const hl = VENUE_SYMBOLS.hyperliquid.find((x) => x.base === 'ETH')!;
    await publish(s.orm, await recordedTick(hl.symbol, 0.5, 'hyperliquid'));
    const q = await s.call('GET', `/api/v1/market/quotes/hyperliquid/${hl.symbol}`, { token });
    expect(q.body).toMatchObject({ venue: 'hyperliquid', symbol: hl.symbol, source: 'replay:hyperliquid' });
  });

  it('/ws/quotes pushes the current mark on subscribe, then every change; every socket gets the same quote and seq', async () => {
    const first = await recordedTick('BTC.PAPER', 0.1);
    await publish(s.orm, first);
    const url = `${s.api.baseUrl.replace('http', 'ws')}/ws/quotes`;
    const ws = await openRisk(url, {});
    ws.send({ type: 'Subscribe', topics: ['paper:NOPE'] });
    expect(await ws.next((f) => f.type === 'Result')).toMatchObject({ ok: false, error: 'unknown_topic' });
    ws.send({ type: 'Subscribe', topics: ['paper:BTC.PAPER'] });
    const q1 = await ws.next((f) => f.type === 'Quote');
    expect(q1).toMatchObject({ venue: 'paper', symbol: 'BTC.PAPER', mark: first.mark.toFixed() });
    expect(q1.seq).toEqual(expect.any(Number));
    // A socket subscribing later gets the same current quote (same seq), after its Result.
    const other = await openRisk(url, {});
    other.send({ type: 'Subscribe', topics: ['paper:BTC.PAPER'] });
    expect(await other.next((f) => f.type === 'Quote')).toEqual(q1);
    const types = other.frames.map((f) => f.type);
    expect(types.indexOf('Result')).toBeLessThan(types.indexOf('Quote'));
    const second = await recordedTick('BTC.PAPER', 0.9);
    await publish(s.orm, second);
    const [a, b] = await Promise.all([ws, other].map((w) => w.next((f) => f.type === 'Quote' && f.seq === q1.seq + 1)));
    expect(a.mark).toBe(second.mark.toFixed());
    expect(b).toEqual(a);
    ws.close();
    other.close();
  });
});

/** A bar as the api answers it (docs/api.md §2.9). */
interface ApiBar {
  openTime: string;
  closeTime: string;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
}

/** Where consecutive bars do not open one interval apart. */
function gaps(bars: ApiBar[], intervalMs: number): string[] {
  return bars
    .slice(1)
    .filter((b, i) => Date.parse(b.openTime) - Date.parse(bars[i].openTime) !== intervalMs)
    .map((b) => `gap before ${b.openTime}`);
}

/** Where a bar opens more than 0.5 % off the previous close. */
function cliffs(bars: ApiBar[]): string[] {
  return bars
    .slice(1)
    .flatMap((b, i) =>
      new Decimal(b.open).minus(bars[i].close).abs().div(bars[i].close).gt('0.005')
        ? [`cliff ${bars[i].close} → ${b.open} at ${b.openTime}`]
        : [],
    );
}

/** The newest 1440 1m bars of a pair (24 h), read as two pages of `GET /market/candles` (limit ≤ 1000), and their source. */
async function lastDay(s: Stack, token: string, pair: string) {
  const newer = (await s.call('GET', `/api/v1/market/candles/${pair}?interval=1m&limit=1000`, { token })).body;
  const before = new Date(Date.parse(newer.bars[0].openTime) - 60_000).toISOString();
  const older = (
    await s.call('GET', `/api/v1/market/candles/${pair}?interval=1m&limit=440&endTime=${before}`, { token })
  ).body;
  return { bars: [...older.bars, ...newer.bars] as ApiBar[], source: newer.source as string };
}

/** The recorded Hyperliquid bars of a coin, by open time (Unix ms): [open, high, low, close, volume] as their CSV text. */
function recordedBars(coin: string, interval: '1m' | '1h'): Map<number, string[]> {
  const file = path.resolve(
    import.meta.dirname,
    `../../data/recorded/hyperliquid_candles/${coin}_perp_${interval}-futures.csv`,
  );
  const rows = readFileSync(file, 'utf8').trim().split(/\r?\n/).slice(1);
  return new Map(rows.map((l) => l.split(',')).map((r) => [Number(r[0]), r.slice(2, 7)]));
}

/**
 * The recorded bars of a candles answer are the CSV's, moved by `rebase` exactly as documented: open time
 * + shiftMs, prices × seamPrice ÷ recordedClose rounded to `decimals`, volume as recorded; the history
 * closes at the seam price, where the next bar opens. Returns how many recorded bars the answer holds.
 */
function expectRebasedRecord(body: { bars: ApiBar[]; rebase: Record<string, any> }, csv: Map<number, string[]>) {
  const { shiftMs, recordedClose, seamPrice, seamTime, decimals } = body.rebase;
  const newest = [...csv.keys()].at(-1)!;
  expect(recordedClose).toBe(csv.get(newest)![3]);
  const move = (p: string) =>
    new Decimal(p).times(seamPrice).div(recordedClose).toDecimalPlaces(decimals, Decimal.ROUND_HALF_EVEN).toFixed();
  const history = body.bars.filter((b) => Date.parse(b.openTime) < Date.parse(seamTime));
  for (const b of history) {
    const rec = csv.get(Date.parse(b.openTime) - shiftMs);
    expect(rec, b.openTime).toBeDefined();
    expect([b.open, b.high, b.low, b.close, b.volume]).toEqual([...rec!.slice(0, 4).map(move), rec![4]]);
  }
  const seam = body.bars.findIndex((b) => b.openTime === seamTime);
  if (history.length) {
    expect(Date.parse(history.at(-1)!.openTime) - shiftMs).toBe(newest);
    expect(history.at(-1)!.close).toBe(seamPrice);
  }
  if (seam > 0) expect(body.bars[seam].open).toBe(seamPrice);
  return history.length;
}

describe('candles (docs/api.md §2.9): one continuous series per listed symbol', () => {
  let s: Stack;
  let token: string;
  let db: pg.Pool;
  beforeAll(async () => {
    s = await startStack({ worker: false });
    token = (await s.trader('readonly')).token;
    db = new pg.Pool({ connectionString: s.config.databaseUrl, max: 2 });
    const { loadRecordedCandles } = await import('../../modules/market/feeds/candles.js');
    await loadRecordedCandles(s.config.databaseUrl);
    expect(await loadRecordedCandles(s.config.databaseUrl)).toBe(0); // loading twice adds nothing
  });
  afterAll(async () => (await db?.end(), await s?.stop()));

  /**
   * `read()` between two identical quotes of the pair (other test files publish marks to the same
   * database: while the mark moves, read again), with that quote.
   */
  async function atOneMark<T>(venue: string, symbol: string, read: () => Promise<T>) {
    const quote = async () => (await s.call('GET', `/api/v1/market/quotes/${venue}/${symbol}`, { token })).body;
    for (let attempt = 1; ; attempt++) {
      const before = await quote();
      const value = await read();
      const after = await quote();
      if ((before.mark === after.mark && before.ts === after.ts) || attempt === 5) return { quote: after, value };
    }
  }

  it('BTC.PAPER: the recorded 1m bars on the replay clock, rebased to meet the mark; no gap, no cliff, the last close is the mark', async () => {
    await publish(s.orm, await recordedTick('BTC.PAPER', 0.3));
    const { quote, value: res } = await atOneMark('paper', 'BTC.PAPER', () =>
      s.call('GET', '/api/v1/market/candles/paper/BTC.PAPER?interval=1m&limit=1000', { token }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ venue: 'paper', symbol: 'BTC.PAPER', interval: '1m' });
    expect(res.body.source).toBe('recorded:hyperliquid:rebased+live:replay');
    const bars: ApiBar[] = res.body.bars;
    expect(bars).toHaveLength(1000);
    expect([...gaps(bars, 60_000), ...cliffs(bars)]).toEqual([]);
    expect(bars.at(-1)!.close).toBe(quote.mark);
    // the series ends now, not where the recording ended (2025-07-26T04:55Z)
    expect(Date.parse(bars.at(-1)!.openTime)).toBeGreaterThan(Date.now() - 3_600_000);
    expect(expectRebasedRecord(res.body, recordedBars('BTC', '1m'))).toBeGreaterThan(990);
    expect(res.body.window).toEqual({ from: bars[0].openTime, to: bars.at(-1)!.closeTime });
  });

  it('ETH.PAPER 1h: each recorded bar moved by shiftMs and scaled by seamPrice ÷ recordedClose', async () => {
    await publish(s.orm, await recordedTick('ETH.PAPER', 0.2));
    const res = await s.call('GET', '/api/v1/market/candles/paper/ETH.PAPER?interval=1h&limit=200', { token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.source).toMatch(/^recorded:hyperliquid:rebased\+live:replay$/);
    expect(expectRebasedRecord(res.body, recordedBars('ETH', '1h'))).toBeGreaterThan(190);
    const newest = res.body.bars.at(-1);
    expect(Date.parse(newest.closeTime) - Date.parse(newest.openTime)).toBe(3_600_000 - 1);
  });

  it('a perp with live bars: the history meets the first live bar, live bars follow, the newest closes at the mark', async () => {
    // the test run shares one database: a VENUE_FEEDS=live stack of another file may have aggregated bars of the pair
    await db.query(`delete from candles where venue = 'hyperliquid' and symbol = 'SOL.HL' and live`);
    const now = Date.now();
    const ticks = [];
    for (const [i, fraction] of [0.2, 0.25, 0.3].entries()) {
      const tick = { ...(await recordedTick('SOL.HL', fraction, 'hyperliquid')), ts: now - (2 - i) * 60_000 };
      await publishMark(s.orm, tick); // as the worker's feed does on each tick: the mark, then its live bars
      await recordLiveBars(db, tick, []);
      ticks.push(tick);
    }
    const { quote, value: res } = await atOneMark('hyperliquid', 'SOL.HL', () =>
      s.call('GET', '/api/v1/market/candles/hyperliquid/SOL.HL?interval=1m&limit=500', { token }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.source).toBe('recorded:hyperliquid:rebased+live:replay');
    const bars: ApiBar[] = res.body.bars;
    const live = bars.slice(-3);
    expect(live.map((b) => Date.parse(b.openTime))).toEqual(ticks.map((t) => Math.floor(t.ts / 60_000) * 60_000));
    expect(live.map((b) => b.open)).toEqual(ticks.map((t) => t.mark.toFixed()));
    expect(res.body.rebase).toMatchObject({ seamTime: live[0].openTime, seamPrice: ticks[0].mark.toFixed() });
    expect(bars.at(-4)!.close).toBe(ticks[0].mark.toFixed());
    expect([...gaps(bars, 60_000), ...cliffs(bars)]).toEqual([]);
    expect(quote.mark).toBe(ticks[2].mark.toFixed());
    expect(bars.at(-1)!.close).toBe(quote.mark);
    expect(expectRebasedRecord(res.body, recordedBars('SOL', '1m'))).toBe(497);

    const hourly = await s.call('GET', '/api/v1/market/candles/hyperliquid/SOL.HL?interval=1h&limit=100', { token });
    expect([...gaps(hourly.body.bars, 3_600_000), ...cliffs(hourly.body.bars)]).toEqual([]);
    expect(hourly.body.bars.at(-1).close).toBe(quote.mark);

    // 24 h stats are the newest 1440 bars of the same series
    const stats = await s.call('GET', '/api/v1/market/stats/SOL.HL', { token });
    expect(stats.status, JSON.stringify(stats.body)).toBe(200);
    const { bars: day } = await lastDay(s, token, 'hyperliquid/SOL.HL');
    expect(day).toHaveLength(1440);
    expect(stats.body).toEqual({
      ticker: 'SOL.HL',
      venue: 'hyperliquid',
      markPrice: quote.mark,
      open24h: day[0].open,
      high24h: Decimal.max(...day.map((b) => b.high)).toFixed(),
      low24h: Decimal.min(...day.map((b) => b.low)).toFixed(),
      volume24h: day.reduce((v, b) => v.plus(b.volume), new Decimal(0)).toFixed(),
      change24h: new Decimal(quote.mark).minus(day[0].open).toFixed(),
      changePct24h: new Decimal(quote.mark).minus(day[0].open).div(day[0].open).times(100).toDecimalPlaces(4).toFixed(),
      window: { from: day[0].openTime, to: day.at(-1)!.closeTime },
      source: { mark: 'replay:hyperliquid', bars: 'recorded:hyperliquid:rebased+live:replay' },
    });
  });

  it('pages back along the same series with endTime, and refuses a missing interval', async () => {
    const { value } = await atOneMark('paper', 'BTC.PAPER', async () => [
      (await s.call('GET', '/api/v1/market/candles/paper/BTC.PAPER?interval=1m&limit=5', { token })).body.bars,
      (await s.call('GET', '/api/v1/market/candles/paper/BTC.PAPER?interval=1m&limit=5', { token })).body.bars.slice(
        1,
        3,
      ),
    ]);
    const [five] = value;
    const page = await s.call(
      'GET',
      `/api/v1/market/candles/paper/BTC.PAPER?interval=1m&limit=2&endTime=${five[2].openTime}`,
      { token },
    );
    expect(page.body.bars.map((b: ApiBar) => b.openTime)).toEqual([five[1].openTime, five[2].openTime]);
    expect((await s.call('GET', '/api/v1/market/candles/paper/BTC.PAPER', { token })).status).toBe(400);
    expect((await s.call('GET', '/api/v1/market/candles/paper', { token })).status).toBe(404);
  });

  it('every listed symbol has stats and candles: BTC.HL, ETH.ASTER, a Polymarket and a Kalshi symbol', async () => {
    for (const [venue, symbol] of [
      ['hyperliquid', 'BTC.HL'],
      ['aster', 'ETH.ASTER'],
    ]) {
      await publish(s.orm, await recordedTick(symbol, 0.5, venue));
      const c = await s.call('GET', `/api/v1/market/candles/${venue}/${symbol}?interval=1m&limit=100`, { token });
      expect(c.status, JSON.stringify(c.body)).toBe(200);
      expect(c.body.bars).toHaveLength(100);
      expect(c.body.source).toContain('recorded:hyperliquid:rebased');
      const st = await s.call('GET', `/api/v1/market/stats/${symbol}`, { token });
      expect(st.status, JSON.stringify(st.body)).toBe(200);
      expect(st.body).toMatchObject({ ticker: symbol, venue, source: { mark: 'replay:hyperliquid' } });
      for (const k of ['open24h', 'high24h', 'low24h', 'volume24h', 'change24h'])
        expect(st.body[k], k).toMatch(/^-?\d+(\.\d+)?$/);
      expect(new Decimal(st.body.low24h).lte(st.body.high24h)).toBe(true);
    }

    for (const spec of [
      findSymbol('polymarket', 'HARRIS-INAUGURATED-YES.PM')!,
      findSymbol('kalshi', 'PRES-2024-KH-YES.KX')!,
    ]) {
      const pair = `${spec.venue}/${spec.symbol}`;
      // replayed bars only: live bars of the pair (a VENUE_FEEDS=live stack of another file in this run) go first
      await db.query('delete from candles where venue = $1 and symbol = $2 and live', [spec.venue, spec.symbol]);
      let checked = false;
      for (let attempt = 0; attempt < 3 && !checked; attempt++) {
        await publishMark(s.orm, await predictionTick(spec, Date.now())); // the feed's mark of now
        const c = await s.call('GET', `/api/v1/market/candles/${pair}?interval=1m&limit=30`, { token });
        expect(c.status, JSON.stringify(c.body)).toBe(200);
        expect(c.body.source).toBe('replay:polymarket');
        const bars: ApiBar[] = c.body.bars;
        expect(bars).toHaveLength(30);
        expect(gaps(bars, 60_000)).toEqual([]);
        // each bar opens at the replayed mark of its first instant; prices stay in the CLOB's range; no volume
        for (const b of bars) {
          expect(b.open).toBe((await predictionTick(spec, Date.parse(b.openTime))).mark.toFixed());
          expect(new Decimal(b.low).gte('0.01') && new Decimal(b.high).lte('0.99')).toBe(true);
          expect(b.volume).toBe('0');
        }
        const q = (await s.call('GET', `/api/v1/market/quotes/${pair}`, { token })).body;
        // the mark folds into its bar (unless the minute turned between the publish and the read: again)
        if (Math.floor(Date.parse(q.ts) / 60_000) * 60_000 !== Date.parse(bars.at(-1)!.openTime)) continue;
        expect(bars.at(-1)!.close).toBe(q.mark);
        checked = true;
      }
      expect(checked).toBe(true);
      const st = await s.call('GET', `/api/v1/market/stats/${spec.symbol}`, { token });
      expect(st.status, JSON.stringify(st.body)).toBe(200);
      expect(st.body).toMatchObject({
        ticker: spec.symbol,
        venue: spec.venue,
        volume24h: '0',
        source: { mark: 'replay:polymarket', bars: 'replay:polymarket' },
      });
      expect(new Date(st.body.window.to).getTime() - new Date(st.body.window.from).getTime()).toBe(1440 * 60_000 - 1);
      expect(new Decimal(st.body.low24h).gte('0.01') && new Decimal(st.body.high24h).lte('0.99')).toBe(true);
      // an hour covers more steps than the recording has days: every hourly bar spans the whole loop
      const hourly: ApiBar[] = (await s.call('GET', `/api/v1/market/candles/${pair}?interval=1h&limit=5`, { token }))
        .body.bars;
      expect(gaps(hourly, 3_600_000)).toEqual([]);
      expect(new Set(hourly.slice(0, -1).map((b) => `${b.high} ${b.low}`)).size).toBe(1);
      const daily = await s.call('GET', `/api/v1/market/candles/${pair}?interval=1d`, { token });
      expect(daily.body).toMatchObject({ error: 'validation_failed', detail: [{ code: 'interval_unavailable' }] });
    }

    for (const ticker of ['DOGE.HL', 'BTC', 'constructor'])
      expect((await s.call('GET', `/api/v1/market/stats/${ticker}`, { token })).body.error, ticker).toBe(
        'symbol_unknown',
      );
  });
});

describe('grouped depth and 24 h stats', () => {
  let s: Stack;
  let token: string;
  let producer: StreamProducer;
  beforeAll(async () => {
    ({ s, token, producer } = await startMarketStack());
    const { loadRecordedCandles } = await import('../../modules/market/feeds/candles.js');
    await loadRecordedCandles(s.config.databaseUrl);
    await publish(s.orm, await recordedTick('BTC.PAPER', 0.3));
    await s.call('GET', '/api/v1/market/depth/paper/BTC.PAPER', { token }); // opens the stream
    await sleep(500);
  });
  afterAll(async () => (await producer?.stop(), await s?.stop()));

  it('groups the book into buckets without losing size: bids round down, asks up', async () => {
    const raw = (await s.call('GET', '/api/v1/market/depth/paper/BTC.PAPER', { token })).body;
    const g = await s.call('GET', '/api/v1/market/depth/paper/BTC.PAPER/grouped?step=5', { token });
    expect(g.status, JSON.stringify(g.body)).toBe(200);
    expect(g.body.step).toBe('5');
    const total = (levels: [string, string][]) =>
      levels.reduce((acc, [, sz]) => acc.plus(sz), new Decimal(0)).toFixed();
    expect(total(g.body.bids)).toBe(total(raw.bids));
    expect(total(g.body.asks)).toBe(total(raw.asks));
    expect(g.body.bids.every(([p]: [string]) => new Decimal(p).mod(5).isZero())).toBe(true);
    expect(new Decimal(g.body.bids[0][0]).lte(raw.bids[0][0])).toBe(true);
    expect(new Decimal(g.body.asks[0][0]).gte(raw.asks[0][0])).toBe(true);
    expect((await s.call('GET', '/api/v1/market/depth/paper/BTC.PAPER/grouped?step=0.5', { token })).body.error).toBe(
      'validation_failed',
    );
  });

  it('24 h stats: the mark, and open/high/low/volume of the newest 24 h of the 1m series', async () => {
    const read = async () => ({
      stats: await s.call('GET', '/api/v1/market/stats/BTC.PAPER', { token }),
      day: await lastDay(s, token, 'paper/BTC.PAPER'),
    });
    let { stats: res, day } = await read();
    // another test file may move the BTC.PAPER mark between the reads: read again until all saw one mark
    for (let i = 0; i < 4 && day.bars.at(-1)!.close !== res.body.markPrice; i++) ({ stats: res, day } = await read());
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { bars } = day;
    expect(bars).toHaveLength(1440);
    expect(gaps(bars, 60_000)).toEqual([]);
    expect(res.body).toMatchObject({
      ticker: 'BTC.PAPER',
      venue: 'paper',
      open24h: bars[0].open,
      high24h: bars.reduce((m, r) => Decimal.max(m, r.high), new Decimal(0)).toFixed(),
      low24h: bars.reduce((m, r) => Decimal.min(m, r.low), new Decimal(Infinity)).toFixed(),
      volume24h: bars.reduce((acc, r) => acc.plus(r.volume), new Decimal(0)).toFixed(),
      source: { mark: 'replay:hyperliquid', bars: day.source },
    });
    expect(res.body.change24h).toBe(new Decimal(res.body.markPrice).minus(bars[0].open).toFixed());
    expect((await s.call('GET', '/api/v1/market/stats/DOGE.PAPER', { token })).body.error).toBe('symbol_unknown');
  });
});

/** Quotes and depth over REST and `/ws/quotes` (docs/api.md §4.6, §6.1), from the canonical marks. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Mark } from '../../db/entities.js';
import { platformEm } from '../../db/orm.js';
import { startStack, type Stack } from '../support/stack.js';
import { publish, recordedTick } from '../support/marks.js';
import { openRisk } from '../support/ws.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { startStreamProducer, type StreamProducer } from '../../modules/market/feeds/streams.js';

describe('market data from the canonical marks', () => {
  let s: Stack;
  let token: string;
  let producer: StreamProducer;
  beforeAll(async () => {
    s = await startStack({ worker: false });
    token = (await s.trader('readonly')).token;
    producer = await startStreamProducer({ databaseUrl: s.config.databaseUrl, logger: pino({ level: 'silent' }) });
  });
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
    const { publishMark } = await import('../../modules/market/feeds/marks.js');
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

describe('candles (docs/api.md §2.9) from the recorded Hyperliquid bars', () => {
  let s: Stack;
  let token: string;
  beforeAll(async () => {
    s = await startStack({ worker: false });
    token = (await s.trader('readonly')).token;
    const { loadRecordedCandles } = await import('../../modules/market/feeds/candles.js');
    await loadRecordedCandles(s.config.databaseUrl);
    expect(await loadRecordedCandles(s.config.databaseUrl)).toBe(0); // loading twice adds nothing
  });
  afterAll(async () => s?.stop());

  it('serves the newest recorded 1h bars exactly as recorded', async () => {
    const { readFileSync } = await import('node:fs');
    const path = await import('node:path');
    const csv = readFileSync(
      path.resolve(import.meta.dirname, '../../data/recorded/hyperliquid_candles/ETH_perp_1h-futures.csv'),
      'utf8',
    )
      .trim()
      .split(/\r?\n/);
    const last = csv.at(-1)!.split(',');
    // endTime pins the recorded history: live bars (other test files aggregate some) come after it
    const res = await s.call('GET', `/api/v1/market/candles/paper/ETH.PAPER?interval=1h&limit=3&endTime=${last[1]}`, {
      token,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      venue: 'paper',
      symbol: 'ETH.PAPER',
      interval: '1h',
      source: 'recorded:hyperliquid',
    });
    expect(res.body.bars).toHaveLength(3);
    const newest = res.body.bars[2];
    expect(newest.openTime).toBe(last[1]);
    expect([newest.open, newest.high, newest.low, newest.close, newest.volume]).toEqual(last.slice(2, 7));
    expect(Date.parse(newest.closeTime) - Date.parse(newest.openTime)).toBe(3_600_000 - 1);
    expect(res.body.window).toEqual({ from: res.body.bars[0].openTime, to: newest.closeTime });
  });

  it('pages back with endTime, and refuses a missing interval', async () => {
    const res = await s.call(
      'GET',
      '/api/v1/market/candles/paper/BTC.PAPER?interval=1m&limit=2&endTime=2025-07-22T00:00:00.000Z',
      { token },
    );
    expect(res.body.bars.map((b: { openTime: string }) => b.openTime)).toEqual([
      '2025-07-21T23:59:00.000Z',
      '2025-07-22T00:00:00.000Z',
    ]);
    expect((await s.call('GET', '/api/v1/market/candles/paper/BTC.PAPER', { token })).status).toBe(400);
    expect((await s.call('GET', '/api/v1/market/candles/paper', { token })).status).toBe(404);
  });
});

describe('grouped depth and 24 h stats', () => {
  let s: Stack;
  let token: string;
  let producer: StreamProducer;
  beforeAll(async () => {
    s = await startStack({ worker: false });
    token = (await s.trader('readonly')).token;
    producer = await startStreamProducer({ databaseUrl: s.config.databaseUrl, logger: pino({ level: 'silent' }) });
    const { loadRecordedCandles } = await import('../../modules/market/feeds/candles.js');
    await loadRecordedCandles(s.config.databaseUrl);
    await publish(s.orm, await recordedTick('BTC.PAPER', 0.3));
    await s.call('GET', '/api/v1/market/depth/paper/BTC.PAPER', { token }); // opens the stream
    await sleep(500);
  });
  afterAll(async () => (await producer?.stop(), await s?.stop()));

  it('groups the book into buckets without losing size: bids round down, asks up', async () => {
    const { Decimal } = await import('../../domain/decimal.js');
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

  it('24 h stats: the mark, and open/high/low/volume of the newest 24 h of recorded 1m bars', async () => {
    const { Decimal } = await import('../../domain/decimal.js');
    const { readFileSync } = await import('node:fs');
    const path = await import('node:path');
    const rows = readFileSync(
      path.resolve(import.meta.dirname, '../../data/recorded/hyperliquid_candles/BTC_perp_1m-futures.csv'),
      'utf8',
    )
      .trim()
      .split(/\r?\n/)
      .slice(1)
      .map((l) => l.split(','));
    const lastMs = Number(rows.at(-1)![0]);
    const day = rows.filter((r) => Number(r[0]) > lastMs - 24 * 3600_000);
    const res = await s.call('GET', '/api/v1/market/stats/BTC.PAPER', { token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      ticker: 'BTC.PAPER',
      venue: 'paper',
      open24h: day[0][2],
      high24h: day.reduce((m, r) => Decimal.max(m, r[3]), new Decimal(0)).toFixed(),
      low24h: day.reduce((m, r) => Decimal.min(m, r[4]), new Decimal(Infinity)).toFixed(),
      volume24h: day.reduce((acc, r) => acc.plus(r[6]), new Decimal(0)).toFixed(),
    });
    expect(res.body.change24h).toBe(new Decimal(res.body.markPrice).minus(day[0][2]).toFixed());
    expect((await s.call('GET', '/api/v1/market/stats/DOGE.PAPER', { token })).body.error).toBe('symbol_unknown');
  });
});

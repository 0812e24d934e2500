/**
 * On-demand market streams (docs/api.md §4.6 cold cache, §6.1 `/ws/market`, §6.3): depth and tape open
 * the subscription and answer 503 cold_cache, then succeed; `/ws/market` pushes books, deltas that
 * rebuild the book, the inside quote, the replayed tape and live candles; frames are rate-limited.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { pino } from 'pino';
import { startStack, type Stack } from '../support/stack.js';
import { publish, recordedTick } from '../support/marks.js';
import { openRisk } from '../support/ws.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { startStreamProducer, type StreamProducer } from '../../modules/market/feeds/streams.js';
import { recordLiveBars } from '../../modules/market/feeds/live-candles.js';
import { applyBookDelta } from '../../domain/market/book-delta.js';
import { Decimal } from '../../domain/decimal.js';
import { loadRecordedMarket } from '../../modules/market/feeds/recorded.js';
import { tradesBetween } from '../../domain/market/replay.js';

describe('market streams', () => {
  let s: Stack;
  let token: string;
  let producer: StreamProducer;
  let db: pg.Pool;
  beforeAll(async () => {
    s = await startStack({ worker: false });
    token = (await s.trader('readonly')).token;
    producer = await startStreamProducer({ databaseUrl: s.config.databaseUrl, logger: pino({ level: 'silent' }) });
    db = new pg.Pool({ connectionString: s.config.databaseUrl, max: 2 });
    for (const sym of ['BTC.PAPER', 'ETH.PAPER']) await publish(s.orm, await recordedTick(sym, 0.4));
  });
  afterAll(async () => {
    await producer?.stop();
    await db?.end();
    await s?.stop();
  });

  /** Forgets every demand for a pair, so the next read finds no producer streaming it. */
  const forget = (symbol: string) =>
    db.query(`delete from market_streams where venue = 'paper' and symbol = $1`, [symbol]);

  it('depth on a pair nobody streams answers 503 cold_cache, and succeeds about 500 ms later', async () => {
    await forget('ETH.PAPER');
    const cold = await s.call('GET', '/api/v1/market/depth/paper/ETH.PAPER?levels=3', { token });
    expect(cold).toMatchObject({ status: 503, body: { error: 'cold_cache' } });
    expect(cold.headers.get('retry-after')).toBe('1');
    await sleep(500);
    const warm = await s.call('GET', '/api/v1/market/depth/paper/ETH.PAPER?levels=3', { token });
    expect(warm.status, JSON.stringify(warm.body)).toBe(200);
    expect(warm.body.bids).toHaveLength(3);
    expect(warm.body.bookSeq).toBeGreaterThan(0);
    expect(new Decimal(warm.body.bids[0][0]).lt(warm.body.asks[0][0])).toBe(true);
    expect((await s.call('GET', '/api/v1/market/tape', { token })).status).toBe(404);
  });

  it('tape: cold first, then the replayed Hyperliquid prints, newest first, limit 1-200', async () => {
    await forget('BTC.PAPER');
    expect((await s.call('GET', '/api/v1/market/tape/paper/BTC.PAPER', { token })).body.error).toBe('cold_cache');
    await sleep(500);
    const tape = await s.call('GET', '/api/v1/market/tape/paper/BTC.PAPER?limit=20', { token });
    expect(tape.status, JSON.stringify(tape.body)).toBe(200);
    expect(tape.body.trades.length).toBeGreaterThan(0);
    expect(tape.body.trades.length).toBeLessThanOrEqual(20);
    const times = tape.body.trades.map((t: { ts: string }) => Date.parse(t.ts));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const recorded = await loadRecordedMarket('BTC');
    const prices = new Set(recorded.trades!.map((t) => t.price.toFixed()));
    for (const t of tape.body.trades) {
      expect(prices.has(t.price)).toBe(true);
      expect(['buy', 'sell']).toContain(t.side);
    }
    expect((await s.call('GET', '/api/v1/market/tape/paper/BTC.PAPER?limit=201', { token })).status).toBe(400);
    expect((await s.call('GET', '/api/v1/market/tape/paper/BTC.PAPER?limit=0', { token })).status).toBe(400);
    expect((await s.call('GET', '/api/v1/market/tape/paper/DOGE.PAPER', { token })).body.error).toBe('symbol_unknown');
  });

  it('/ws/market: a book snapshot, deltas that rebuild the next book, the inside quote and the tape', async () => {
    const ws = await openRisk(`${s.api.baseUrl.replace('http', 'ws')}/ws/market`, {});
    ws.send({ type: 'Subscribe', topics: ['l2Book:paper:DOGE.PAPER'] });
    expect(await ws.next((f) => f.type === 'Result')).toMatchObject({ ok: false, error: 'unknown_topic' });
    const topics = [
      'l2Book:paper:BTC.PAPER',
      'l2Delta:paper:BTC.PAPER',
      'bbo:paper:BTC.PAPER',
      'trades:paper:BTC.PAPER',
    ];
    ws.send({ type: 'Subscribe', topics });
    expect(await ws.next((f) => f.type === 'Result' && f.ok)).toMatchObject({ topics });
    const snap = await ws.next((f) => f.type === 'L2-Book');
    const next = await recordedTick('BTC.PAPER', 0.8);
    await publish(s.orm, next);
    const delta = await ws.next((f) => f.type === 'L2-Delta' && f.prevBookSeq >= snap.bookSeq);
    const book = await ws.next((f) => f.type === 'L2-Book' && f.bookSeq === delta.bookSeq);
    // rebuild from the snapshot the delta follows (a later snapshot may have replaced ours)
    const base = ws.frames.find((f) => f.type === 'L2-Book' && f.bookSeq === delta.prevBookSeq) ?? snap;
    if (base.bookSeq === delta.prevBookSeq)
      expect(applyBookDelta(base, delta)).toEqual({ bids: book.bids, asks: book.asks });
    expect(book.asks[0]).toEqual([next.book.asks[0].price.toFixed(), next.book.asks[0].size.toFixed()]);
    const bbo = await ws.next((f) => f.type === 'Bbo' && f.mark === next.mark.toFixed());
    expect(bbo).toMatchObject({ topic: 'bbo:paper:BTC.PAPER', bid: next.bid.toFixed(), ask: next.ask.toFixed() });
    // the tape replays the recording on the wall clock: every print it passes over in the next 3 s arrives
    const t0 = Date.now();
    const upcoming = tradesBetween(await loadRecordedMarket('BTC'), t0, t0 + 3_000, 0).map(
      (p) => p.tradeId.split('-')[1],
    );
    await sleep(3_600);
    const seen = ws.frames.filter((f) => f.type === 'Trades').flatMap((f) => f.prints);
    for (const p of seen)
      expect(p).toMatchObject({
        side: expect.stringMatching(/^(buy|sell)$/),
        price: expect.stringMatching(/^\d+(\.\d+)?$/),
      });
    const seenIds = new Set(seen.map((p: { tradeId: string }) => p.tradeId.split('-')[1]));
    for (const id of upcoming) expect(seenIds.has(id)).toBe(true);
    const seqs = ws.frames.filter((f) => typeof f.seq === 'number').map((f) => f.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    ws.close();
  });

  it('/ws/market candles: live bars aggregate marks and prints, shown as not closed by REST', async () => {
    const ws = await openRisk(`${s.api.baseUrl.replace('http', 'ws')}/ws/market`, {});
    ws.send({ type: 'Subscribe', topics: ['candle:paper:ETH.PAPER:1m'] });
    await ws.next((f) => f.type === 'Result' && f.ok);
    const a = await recordedTick('ETH.PAPER', 0.1);
    const b = await recordedTick('ETH.PAPER', 0.9);
    const now = Date.now();
    const print = { tradeId: 't', ts: now, price: a.mark, size: new Decimal('0.5'), side: 'buy' as const };
    await recordLiveBars(db, { ...a, ts: now }, [print]);
    await recordLiveBars(db, { ...b, ts: now + 1 }, [print]);
    const frame = await ws.next((f) => f.type === 'Candle' && f.bar.close === b.mark.toFixed());
    expect(frame).toMatchObject({ topic: 'candle:paper:ETH.PAPER:1m', interval: '1m', bar: { closed: false } });
    const res = await s.call('GET', '/api/v1/market/candles/paper/ETH.PAPER?interval=1m&limit=2', { token });
    const bar = res.body.bars.at(-1);
    expect(res.body.source).toContain('live:replay');
    expect(bar.closed).toBe(false);
    expect(new Decimal(bar.volume).gte(1)).toBe(true);
    expect(new Decimal(bar.high).gte(Decimal.max(a.mark, b.mark))).toBe(true);
    expect(new Decimal(bar.low).lte(Decimal.min(a.mark, b.mark))).toBe(true);
    ws.close();
  });

  it('rate-limits client frames except Ping and Alive, and answers Ping with Pong', async () => {
    const ws = await openRisk(`${s.api.baseUrl.replace('http', 'ws')}/ws/market`, {});
    for (let i = 0; i < 31; i++) ws.send({ type: 'Unsubscribe', topics: ['bbo:paper:BTC.PAPER'] });
    expect(await ws.next((f) => f.type === 'Result' && f.error === 'rate_limited')).toBeTruthy();
    ws.send({ type: 'Ping' });
    expect(await ws.next((f) => f.type === 'Pong')).toHaveProperty('serverTime');
    ws.close();
  });
});

describe('fx and Polymarket markets', () => {
  let s: Stack;
  let token: string;
  beforeAll(async () => {
    s = await startStack({ worker: false });
    token = (await s.trader('readonly')).token;
  });
  afterAll(async () => s?.stop());

  it('fx: stablecoins at their peg with source and time; nothing invented', async () => {
    const res = await s.call('GET', '/api/v1/market/fx', { token });
    expect(res.status).toBe(200);
    expect(res.body.base).toBe('USD');
    expect(res.body.rates.map((r: { currency: string }) => r.currency)).toEqual(['USDC', 'USDT']);
    expect(res.body.rates[0]).toMatchObject({ rate: '1', source: 'peg' });
  });

  it('lists the recorded election markets and charts an outcome in probability units', async () => {
    const list = await s.call('GET', '/api/v1/market/polymarket/markets', { token });
    expect(list.body.markets).toHaveLength(20);
    const trump = list.body.markets.find((m: { marketId: string }) => m.marketId === '511754');
    expect(trump).toMatchObject({ question: 'Will Donald Trump be inaugurated?', winningOutcome: 'Yes' });
    expect(trump.outcomes.map((o: { symbol: string }) => o.symbol)).toEqual(['511754-YES.PM', '511754-NO.PM']);
    const m507 = list.body.markets.find((m: { marketId: string }) => m.marketId === '507237');
    const yes = m507.outcomes[0];
    const c = await s.call('GET', `/api/v1/market/candles/polymarket/${yes.symbol}?interval=1d&limit=5`, { token });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    expect(c.body).toMatchObject({ venue: 'polymarket', interval: '1d', source: 'recorded:polymarket' });
    expect(c.body.bars).toHaveLength(5);
    const last = c.body.bars.at(-1);
    expect(last.close).toBe(yes.lastPrice);
    expect(last.openTime.slice(0, 10)).toBe(yes.lastDate);
    expect(new Decimal(last.close).gte(0) && new Decimal(last.close).lte(1)).toBe(true);
    const all = await s.call('GET', `/api/v1/market/candles/polymarket/${yes.symbol}?interval=1d&limit=1000`, {
      token,
    });
    expect(all.body.bars).toHaveLength(yes.points);
    // the first recorded point of market 507237's first token, as its source text
    expect(all.body.bars[0]).toMatchObject({ openTime: '2024-09-18T00:00:00.000Z', close: '0.115', open: '0.115' });
    expect(
      (await s.call('GET', `/api/v1/market/candles/polymarket/${yes.symbol}?interval=1m`, { token })).body.error,
    ).toBe('validation_failed');
    expect(
      (await s.call('GET', '/api/v1/market/candles/polymarket/999-YES.PM?interval=1d', { token })).body.error,
    ).toBe('symbol_unknown');
  });
});

describe('channel documentation', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ worker: false });
  });
  afterAll(async () => s?.stop());

  it('publishes every /ws/market topic and frame in the AsyncAPI document and lists the channels in discovery', async () => {
    const doc: any = await (await fetch(`${s.api.baseUrl}/api/v1/asyncapi.json`)).json();
    expect(doc.asyncapi).toBe('3.0.0');
    const market = doc.channels.ws_market;
    expect(market.address).toBe('/ws/market');
    for (const frame of ['L2-Book', 'L2-Delta', 'Bbo', 'Trades', 'Volume-At-Price', 'Candle', 'Resync-Required'])
      expect(Object.keys(market.messages)).toContain(frame);
    expect(market.description).toContain('l2Delta:<venue>:<symbol>');
    const discovery: any = await (await fetch(`${s.api.baseUrl}/api/v1/discovery`)).json();
    expect(discovery.streams.map((c: { channel: string }) => c.channel)).toEqual([
      '/ws/market',
      '/ws/quotes',
      '/ws/risk',
    ]);
  });
});

describe('one producer per pair, fan-out to every api process', () => {
  let s: Stack;
  let second: Awaited<ReturnType<typeof import('../../api/server.js').startApi>>;
  let producers: StreamProducer[];
  beforeAll(async () => {
    s = await startStack({ worker: false });
    const { startApi } = await import('../../api/server.js');
    second = await startApi({ config: s.config, orm: s.orm, logger: pino({ level: 'silent' }) });
    producers = await Promise.all(
      [0, 1].map(() => startStreamProducer({ databaseUrl: s.config.databaseUrl, logger: pino({ level: 'silent' }) })),
    );
    await publish(s.orm, await recordedTick('SOL.PAPER', 0.2));
  });
  afterAll(async () => {
    for (const p of producers ?? []) await p.stop();
    await second?.stop();
    await s?.stop();
  });

  it('two producers never stream the same pair; sockets on two api processes get the same book', async () => {
    const a = await openRisk(`${s.api.baseUrl.replace('http', 'ws')}/ws/market`, {});
    const b = await openRisk(`${second.baseUrl.replace('http', 'ws')}/ws/market`, {});
    for (const ws of [a, b]) ws.send({ type: 'Subscribe', topics: ['l2Book:paper:SOL.PAPER'] });
    await Promise.all([a, b].map((ws) => ws.next((f) => f.type === 'Result' && f.ok)));
    await new Promise((r) => setTimeout(r, 300));
    const next = await recordedTick('SOL.PAPER', 0.7);
    await publish(s.orm, next);
    const [fa, fb] = await Promise.all(
      [a, b].map((ws) => ws.next((f) => f.type === 'L2-Book' && f.asks[0][0] === next.book.asks[0].price.toFixed())),
    );
    expect(fa.bookSeq).toBe(fb.bookSeq);
    expect(fa.bids).toEqual(fb.bids);
    const leading = producers.map((p) => p.leading().filter((k) => k === 'paper SOL.PAPER'));
    // the pair may be led by a producer of another test file; ours never both lead it
    expect(leading.flat().length).toBeLessThanOrEqual(1);
    a.close();
    b.close();
  });
});

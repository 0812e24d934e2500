/**
 * The offline canonical-mark feed over the real recorded Hyperliquid data: the seamless ping-pong
 * replay clock, marks and re-centred books, the paper symbol table, the loader and the feed loop.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Decimal, fmt } from '../../domain/decimal.js';
import { replayTime, tickAt, type RecordedMarket } from '../../domain/market/replay.js';
import { PAPER_SYMBOLS, VENUE_SUFFIX, findSymbol } from '../../domain/market/symbols.js';
import type { MarkTick } from '../../domain/market/types.js';
import { loadRecordedMarket, marketDataDir } from '../../modules/market/feeds/recorded.js';
import { ReplayMarkFeed } from '../../modules/market/feeds/mark-feed.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const spec = (symbol: string) => findSymbol('paper', symbol)!;
/** The raw CSV rows (header dropped) of one recorded file, as text. */
const rawRows = (file: string) =>
  readFileSync(path.join(marketDataDir(), 'hyperliquid_ticks', file), 'utf8')
    .trim()
    .split(/\r?\n/)
    .slice(1)
    .map((l) => l.split(','));
const strings = (levels: { price: Decimal; size: Decimal }[]) => levels.map((l) => [fmt(l.price), fmt(l.size)]);

describe('replay clock over the recorded BTC span', () => {
  const ANCHOR = 1_756_900_000_000;

  it('plays forward from the anchor, turns around at the end without a jump, and comes back to the start', async () => {
    const m = await loadRecordedMarket('BTC');
    const span = m.endMs - m.startMs;
    const at = (dt: number) => replayTime(ANCHOR + dt, ANCHOR, m.startMs, m.endMs);
    expect(at(0)).toBe(m.startMs);
    expect(at(1_234)).toBe(m.startMs + 1_234);
    // the turnaround at the end of the recording: the recorded time moves by exactly the elapsed ms
    for (const dt of [-3, -2, -1, 0, 1, 2, 3]) expect(at(span + dt)).toBe(m.endMs - Math.abs(dt));
    // and back at the start
    for (const dt of [-3, -2, -1, 0, 1, 2, 3]) expect(at(2 * span + dt)).toBe(m.startMs + Math.abs(dt));
    // before the anchor the loop runs the same way
    expect(at(-1)).toBe(m.startMs + 1);
  });

  it('never jumps: over two whole loops each 250 ms of wall time moves the recording by at most 250 ms', async () => {
    const m = await loadRecordedMarket('BTC');
    const span = m.endMs - m.startMs;
    let prev = replayTime(ANCHOR, ANCHOR, m.startMs, m.endMs);
    for (let t = ANCHOR + 250; t <= ANCHOR + 4 * span; t += 250) {
      const r = replayTime(t, ANCHOR, m.startMs, m.endMs);
      expect(Math.abs(r - prev)).toBeLessThanOrEqual(250);
      expect(r).toBeGreaterThanOrEqual(m.startMs);
      expect(r).toBeLessThanOrEqual(m.endMs);
      prev = r;
    }
  });

  it('repeats every 2 × span, and the mark is continuous at the seam', async () => {
    const m = await loadRecordedMarket('BTC');
    const span = m.endMs - m.startMs;
    for (const dt of [0, 1, 777, span - 1, span, span + 1, 2 * span - 1]) {
      const t = ANCHOR + dt;
      expect(replayTime(t + 2 * span, ANCHOR, m.startMs, m.endMs)).toBe(replayTime(t, ANCHOR, m.startMs, m.endMs));
      expect(replayTime(t + 10 * span, ANCHOR, m.startMs, m.endMs)).toBe(replayTime(t, ANCHOR, m.startMs, m.endMs));
    }
    const markAt = (wall: number) =>
      fmt(tickAt(m, replayTime(wall, ANCHOR, m.startMs, m.endMs), 'paper', 'BTC.PAPER', wall, new Decimal(1)).mark);
    expect(markAt(ANCHOR + span - 1)).toBe(markAt(ANCHOR + span + 1));
    expect(markAt(ANCHOR + span + 1)).toBe(fmt(m.bbo.at(-2)!.bid.plus(m.bbo.at(-2)!.ask).div(2)));
  });
});

describe('tickAt: canonical mark and re-centred book', () => {
  it('the first BTC mark is the exact mid of the first recorded best bid and offer', async () => {
    const m = await loadRecordedMarket('BTC');
    const [first, second] = rawRows('prices_BTC.csv');
    expect([first[1], first[3], second[1], second[3]]).toEqual(['111038.0', 'bid', '111039.0', 'ask']);
    const expected = fmt(new Decimal(first[1]).plus(second[1]).div(2));
    const t = tickAt(m, m.startMs, 'paper', 'BTC.PAPER', 1_800_000_000_123, new Decimal(spec('BTC.PAPER').tickSize));
    expect(expected).toBe('111038.5');
    expect({ venue: t.venue, symbol: t.symbol, ts: t.ts, bid: fmt(t.bid), ask: fmt(t.ask), mark: fmt(t.mark) }).toEqual(
      {
        venue: 'paper',
        symbol: 'BTC.PAPER',
        ts: 1_800_000_000_123,
        bid: '111038',
        ask: '111039',
        mark: expected,
      },
    );
  });

  it('the first BTC book is the recorded one: same prices (already centred) and the recorded sizes', async () => {
    const m = await loadRecordedMarket('BTC');
    const row = rawRows('orderbooks_BTC.csv')[0];
    const t = tickAt(m, m.startMs, 'paper', 'BTC.PAPER', 0, new Decimal(1));
    expect(strings(t.book.bids.slice(0, 2))).toEqual([
      ['111038', '8.84885'],
      ['111037', '0.38041'],
    ]);
    expect(strings(t.book.asks.slice(0, 2))).toEqual([
      ['111039', '0.0036'],
      ['111040', '0.00011'],
    ]);
    const recorded = (side: 'bid' | 'ask') =>
      Array.from({ length: 20 }, (_, i) => [
        fmt(new Decimal(row[3 + i * 4 + (side === 'bid' ? 0 : 2)])),
        fmt(new Decimal(row[4 + i * 4 + (side === 'bid' ? 0 : 2)])),
      ]);
    expect(strings(t.book.bids)).toEqual(recorded('bid'));
    expect(strings(t.book.asks)).toEqual(recorded('ask'));
  });

  it('at every recorded instant of every symbol: best bid < mark < best ask, prices on the tick, sizes as recorded', async () => {
    for (const s of PAPER_SYMBOLS) {
      const m = await loadRecordedMarket(s.sourceCoin);
      const tick = new Decimal(s.tickSize);
      const instants = [
        ...new Set([...m.books.map((b) => b.ts), ...m.bbo.filter((_, i) => i % 7 === 0).map((q) => q.ts)]),
      ].filter((ts) => ts >= m.startMs && ts <= m.endMs);
      expect(instants.length).toBeGreaterThan(400);
      for (const at of instants) {
        const t = tickAt(m, at, 'paper', s.symbol, 0, tick);
        const where = `${s.symbol} at ${at}`;
        expect(
          t.book.bids[0].price.lt(t.mark),
          `${where}: best bid ${fmt(t.book.bids[0].price)} < mark ${fmt(t.mark)}`,
        ).toBe(true);
        expect(
          t.book.asks[0].price.gt(t.mark),
          `${where}: best ask ${fmt(t.book.asks[0].price)} > mark ${fmt(t.mark)}`,
        ).toBe(true);
        expect(t.bid.lt(t.ask), where).toBe(true);
        const prices = [...t.book.bids, ...t.book.asks].map((l) => l.price);
        expect(
          prices.every((p) => p.mod(tick).isZero()),
          `${where}: prices on the ${s.tickSize} tick`,
        ).toBe(true);
        expect(
          t.book.bids.every((l, i) => i === 0 || l.price.lt(t.book.bids[i - 1].price)),
          `${where}: bids descend`,
        ).toBe(true);
        expect(
          t.book.asks.every((l, i) => i === 0 || l.price.gt(t.book.asks[i - 1].price)),
          `${where}: asks ascend`,
        ).toBe(true);
        const recorded = m.books.findLast((b) => b.ts <= at)!.book;
        expect(
          t.book.bids.map((l) => fmt(l.size)),
          where,
        ).toEqual(recorded.bids.map((l) => fmt(l.size)));
        expect(
          t.book.asks.map((l) => fmt(l.size)),
          where,
        ).toEqual(recorded.asks.map((l) => fmt(l.size)));
        // the book moves as a whole: gaps between levels are the recorded ones
        expect(fmt(t.book.bids[0].price.minus(t.book.bids[19].price))).toBe(
          fmt(recorded.bids[0].price.minus(recorded.bids[19].price)),
        );
      }
    }
  });

  it('re-centres a stale book on the newer mark: a whole-tick move keeps the spread, a half-tick move rounds outward', () => {
    const d = (s: string) => new Decimal(s);
    const book = {
      bids: [
        { price: d('50'), size: d('1.5') },
        { price: d('49'), size: d('2') },
      ],
      asks: [
        { price: d('51'), size: d('0.25') },
        { price: d('53'), size: d('3') },
      ],
    };
    const market = (bid: string, ask: string): RecordedMarket => ({
      coin: 'X',
      startMs: 0,
      endMs: 10,
      bbo: [{ ts: 0, bid: d(bid), ask: d(ask) }],
      books: [{ ts: 0, book }],
    });
    const view = (t: MarkTick) => ({ mark: fmt(t.mark), bids: strings(t.book.bids), asks: strings(t.book.asks) });
    // mark 100.5, book mid 50.5: shift 50 → spread of 1 kept
    expect(view(tickAt(market('100', '101'), 5, 'paper', 'X.PAPER', 0, d('1')))).toEqual({
      mark: '100.5',
      bids: [
        ['100', '1.5'],
        ['99', '2'],
      ],
      asks: [
        ['101', '0.25'],
        ['103', '3'],
      ],
    });
    // mark 101, book mid 50.5: shift 50.5 → bids round down, asks up, never touching the mark
    expect(view(tickAt(market('100', '102'), 5, 'paper', 'X.PAPER', 0, d('1')))).toEqual({
      mark: '101',
      bids: [
        ['100', '1.5'],
        ['99', '2'],
      ],
      asks: [
        ['102', '0.25'],
        ['104', '3'],
      ],
    });
  });
});

describe('paper symbol table', () => {
  it('lists BTC, ETH and SOL perps as <BASE>.PAPER with Hyperliquid size decimals and leverage caps', () => {
    expect(
      PAPER_SYMBOLS.map((s) => [
        s.symbol,
        s.base,
        s.venue,
        s.quote,
        s.sourceCoin,
        s.assetClass,
        s.szDecimals,
        s.tickSize,
        s.maxLeverage,
      ]),
    ).toEqual([
      ['BTC.PAPER', 'BTC', 'paper', 'USD', 'BTC', 'perp', 5, '1', 40],
      ['ETH.PAPER', 'ETH', 'paper', 'USD', 'ETH', 'perp', 4, '0.1', 25],
      ['SOL.PAPER', 'SOL', 'paper', 'USD', 'SOL', 'perp', 2, '0.01', 20],
    ]);
    for (const s of PAPER_SYMBOLS) expect(s.symbol).toBe(`${s.base}.${VENUE_SUFFIX.paper}`);
    expect(VENUE_SUFFIX).toMatchObject({
      paper: 'PAPER',
      hyperliquid: 'HL',
      aster: 'ASTER',
      polymarket: 'PM',
      kalshi: 'KX',
    });
  });

  it('findSymbol finds a paper symbol and answers undefined for an unknown one', () => {
    expect(findSymbol('paper', 'ETH.PAPER')?.maxLeverage).toBe(25);
    expect(findSymbol('paper', 'DOGE.PAPER')).toBeUndefined();
    expect(findSymbol('hyperliquid', 'BTC.PAPER')).toBeUndefined();
    expect(findSymbol('paper', 'btc.paper')).toBeUndefined();
  });

  it('tick sizes are the recorded price increments: every price is on the tick and the finest level gap is one tick', async () => {
    for (const s of PAPER_SYMBOLS) {
      const m = await loadRecordedMarket(s.sourceCoin);
      const prices = [
        ...m.bbo.flatMap((q) => [q.bid, q.ask]),
        ...m.books.flatMap((b) => [...b.book.bids, ...b.book.asks].map((l) => l.price)),
      ];
      const off = prices.filter((p) => !p.mod(s.tickSize).isZero());
      expect(off.map(fmt), `${s.symbol} prices off the ${s.tickSize} tick`).toEqual([]);
      const gaps = m.books.flatMap((b) => b.book.bids.slice(1).map((l, i) => b.book.bids[i].price.minus(l.price)));
      expect(fmt(Decimal.min(...gaps)), s.symbol).toBe(s.tickSize);
    }
  });

  it('recorded sizes fit the size decimals', async () => {
    for (const s of PAPER_SYMBOLS) {
      const m = await loadRecordedMarket(s.sourceCoin);
      const sizes = m.books.flatMap((b) => [...b.book.bids, ...b.book.asks].map((l) => l.size));
      expect(Math.max(...sizes.map((z) => z.decimalPlaces())), s.symbol).toBeLessThanOrEqual(s.szDecimals);
    }
  });
});

describe('recorded data loader', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('reads data/recorded by default and MARKET_DATA_DIR when set', () => {
    vi.stubEnv('MARKET_DATA_DIR', '');
    expect(marketDataDir()).toBe(path.resolve(REPO_ROOT, 'data/recorded'));
    vi.stubEnv('MARKET_DATA_DIR', '/srv/market');
    expect(marketDataDir()).toBe('/srv/market');
  });

  it('a missing data directory fails with the path and how to fix it', async () => {
    await expect(loadRecordedMarket('BTC', '/nonexistent/market-data')).rejects.toThrow(
      /\/nonexistent\/market-data\/hyperliquid_ticks\/(prices|orderbooks|trades)_BTC\.csv.*MARKET_DATA_DIR/,
    );
  });

  it('pairs bid and ask rows into one quote per exchange timestamp over the ~9.5 minute recording, memoised', async () => {
    const m = await loadRecordedMarket('BTC');
    expect(loadRecordedMarket('BTC')).toBe(loadRecordedMarket('BTC'));
    const stamps = new Set(rawRows('prices_BTC.csv').map((r) => r[4]));
    expect(m.bbo).toHaveLength(stamps.size);
    expect(m.books).toHaveLength(rawRows('orderbooks_BTC.csv').length);
    expect(m.startMs).toBe(1_756_904_112_212);
    expect(new Date(m.startMs).toISOString().slice(0, 10)).toBe('2025-09-03');
    expect((m.endMs - m.startMs) / 60_000).toBeGreaterThan(9);
    expect((m.endMs - m.startMs) / 60_000).toBeLessThan(10);
    expect(m.bbo.every((q, i) => i === 0 || q.ts > m.bbo[i - 1].ts)).toBe(true);
  });
});

describe('ReplayMarkFeed', () => {
  const WALL = 1_800_000_000_000;

  it('ticks every symbol at once with the mark of the wall time, the same in every process, and stops cleanly', async () => {
    const seen: MarkTick[] = [];
    const now = () => WALL;
    const feed = new ReplayMarkFeed({
      symbols: PAPER_SYMBOLS,
      intervalMs: 60_000,
      now,
      onTick: (t) => void seen.push(t),
    });
    await feed.start();
    await feed.stop();
    expect(seen.map((t) => [t.venue, t.symbol, t.ts])).toEqual(PAPER_SYMBOLS.map((s) => ['paper', s.symbol, WALL]));
    for (const t of seen) {
      const m = await loadRecordedMarket(spec(t.symbol).sourceCoin);
      const expected = tickAt(
        m,
        replayTime(WALL, 0, m.startMs, m.endMs),
        'paper',
        t.symbol,
        WALL,
        new Decimal(spec(t.symbol).tickSize),
      );
      expect([fmt(t.mark), fmt(t.book.bids[0].price), fmt(t.book.asks[0].price)]).toEqual([
        fmt(expected.mark),
        fmt(expected.book.bids[0].price),
        fmt(expected.book.asks[0].price),
      ]);
    }
    // another process, another feed: same wall time, same mark
    const twin = new ReplayMarkFeed({ symbols: PAPER_SYMBOLS, now, onTick: () => undefined });
    await twin.start();
    await twin.stop();
    for (const t of seen) expect(fmt(twin.tickNow(t.symbol).mark)).toBe(fmt(t.mark));
    // nothing ticks after stop
    await sleep(30);
    expect(seen).toHaveLength(3);
  });

  it('follows the clock every interval', async () => {
    let wall = WALL;
    const marks: string[] = [];
    const feed = new ReplayMarkFeed({
      symbols: [spec('BTC.PAPER')],
      intervalMs: 5,
      now: () => (wall += 1_000),
      onTick: (t) => void marks.push(`${t.ts} ${fmt(t.mark)}`),
    });
    await feed.start();
    await vi.waitFor(() => expect(marks.length).toBeGreaterThanOrEqual(4));
    await feed.stop();
    const m = await loadRecordedMarket('BTC');
    for (const line of marks) {
      const [ts, mark] = line.split(' ');
      const t = tickAt(
        m,
        replayTime(Number(ts), 0, m.startMs, m.endMs),
        'paper',
        'BTC.PAPER',
        Number(ts),
        new Decimal(1),
      );
      expect(mark).toBe(fmt(t.mark));
    }
    expect(new Set(marks.map((l) => l.split(' ')[0])).size).toBe(marks.length);
  });

  it('skips the ticks of a symbol whose previous tick is still being handled, and stop() waits for it', async () => {
    const calls: Record<string, number> = {};
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const feed = new ReplayMarkFeed({
      symbols: PAPER_SYMBOLS,
      intervalMs: 5,
      now: () => WALL,
      onTick: async (t) => {
        calls[t.symbol] = (calls[t.symbol] ?? 0) + 1;
        if (t.symbol === 'BTC.PAPER') await gate;
      },
    });
    await feed.start();
    await vi.waitFor(() => expect(calls['ETH.PAPER']).toBeGreaterThanOrEqual(5));
    expect(calls['BTC.PAPER']).toBe(1);
    let stopped = false;
    const stopping = feed.stop().then(() => (stopped = true));
    await sleep(20);
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(stopped).toBe(true);
    expect(calls['BTC.PAPER']).toBe(1);
  });

  it('reports a failing onTick through onError and keeps ticking', async () => {
    const errors: string[] = [];
    let ethTicks = 0;
    let solTries = 0;
    const feed = new ReplayMarkFeed({
      symbols: PAPER_SYMBOLS,
      intervalMs: 5,
      now: () => WALL,
      onTick: (t) => {
        if (t.symbol === 'SOL.PAPER') {
          solTries++;
          throw new Error('mark store down');
        }
        if (t.symbol === 'ETH.PAPER') ethTicks++;
      },
      onError: (err) => errors.push((err as Error).message),
    });
    await feed.start();
    await vi.waitFor(() => expect(solTries).toBeGreaterThanOrEqual(3));
    await feed.stop();
    expect(errors.length).toBe(solTries);
    expect(new Set(errors)).toEqual(new Set(['mark store down']));
    expect(ethTicks).toBeGreaterThanOrEqual(3);
  });

  it('tickNow refuses a symbol it does not replay', async () => {
    const feed = new ReplayMarkFeed({ symbols: [spec('BTC.PAPER')], now: () => WALL, onTick: () => undefined });
    expect(() => feed.tickNow('BTC.PAPER')).toThrow(/start\(\)/);
    await feed.start();
    await feed.stop();
    expect(fmt(feed.tickNow('BTC.PAPER').mark)).toMatch(/^1110\d\d(\.5)?$/);
    expect(() => feed.tickNow('ETH.PAPER')).toThrow(/does not replay ETH\.PAPER/);
  });
});

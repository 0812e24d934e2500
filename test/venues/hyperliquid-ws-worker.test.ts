/**
 * `VENUE_FEEDS=live` (config.ts, worker/worker.ts): the worker publishes the Hyperliquid symbols'
 * marks from the venue's WebSocket (here the simulator's `/ws`) under the feed locks, paper keeps the
 * replay; the api labels each pair's quote, tape and stats with where its data comes from (`live:hyperliquid`,
 * paper's `replay:hyperliquid`); and the simulator `npm run dev` starts for it prices from its own replay of the
 * recorded ticks (no `markOf`), so it never echoes the marks the live feed publishes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fmt, Decimal } from '../../domain/decimal.js';
import { platformEm } from '../../db/orm.js';
import { readMark } from '../../db/marks.js';
import { replayTime, tickAt } from '../../domain/market/replay.js';
import { findSymbol } from '../../domain/market/symbols.js';
import { loadRecordedMarket } from '../../modules/market/feeds/recorded.js';
import { startHyperliquidSimulator, type HyperliquidSimulator } from '../../simulators/hyperliquid.js';
import { startSimulators } from '../../simulators/index.js';
import { startStack, type Stack } from '../support/stack.js';

/** Polls `ok` every 20 ms until it answers a value (rejects after `ms`). */
async function until<T>(ok: () => Promise<T | null | undefined | false>, ms = 15_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const v = await ok();
    if (v) return v;
    if (Date.now() - started > ms) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('VENUE_FEEDS=live: the worker follows the Hyperliquid WebSocket', () => {
  // A mark no replay produces: what lands in the store came through the socket.
  const marks = new Map([
    ['BTC.HL', '12345.5'],
    ['ETH.HL', '1234.55'],
    ['SOL.HL', '123'],
  ]);
  let sim: HyperliquidSimulator;
  let s: Stack;

  beforeAll(async () => {
    sim = await startHyperliquidSimulator({ markOf: async (x) => marks.get(x) ?? null, wsIntervalMs: 50 });
    s = await startStack({
      env: {
        MARK_FEED: 'replay',
        VENUE_FEEDS: 'live',
        MARKET_STREAMS: 'on', // the tape route
        HYPERLIQUID_API_URL: sim.url,
        // the other live venues' feeds reach nothing (they only retry)
        ASTER_API_URL: 'http://127.0.0.1:9',
        POLYMARKET_API_URL: 'http://127.0.0.1:9',
        KALSHI_API_URL: 'http://127.0.0.1:9',
      },
    });
  });
  afterAll(async () => {
    await s?.stop();
    await sim?.close();
  });

  it('publishes *.HL marks and books from the socket and keeps replaying paper', async () => {
    const em = () => platformEm(s.orm);
    const btc = await until(async () => {
      const t = await readMark(em(), 'hyperliquid', 'BTC.HL', 5_000);
      return t && fmt(t.mark) === '12345.5' ? t : null;
    });
    const book = (await (
      await fetch(`${sim.url}/info`, { method: 'POST', body: JSON.stringify({ type: 'l2Book', coin: 'BTC' }) })
    ).json()) as { levels: { px: string; sz: string }[][] };
    expect([btc.book.bids, btc.book.asks].map((side) => side.map((l) => [fmt(l.price), fmt(l.size)]))).toStrictEqual(
      book.levels.map((side) => side.map((l) => [l.px, l.sz])),
    );
    expect(sim.wsConnections()).toBe(1);

    marks.set('ETH.HL', '1300.05');
    await until(async () => {
      const t = await readMark(em(), 'hyperliquid', 'ETH.HL', 5_000);
      return t && fmt(t.mark) === '1300.05';
    });
    // Paper is still replayed: a fresh mark, not one of the simulator's.
    const paper = await until(() => readMark(em(), 'paper', 'BTC.PAPER', 5_000));
    expect(fmt(paper.mark)).not.toBe('12345.5');
  });

  it('labels a live pair’s quote, tape and stats `live:hyperliquid`, a replayed one’s with its recording', async () => {
    const token = (await s.trader('readonly')).token;
    /** The answer of a market read once the pair has a mark and a live stream (retrying `503 cold_cache`). */
    const read = (path: string) =>
      until(async () => {
        const r = await s.call('GET', `/api/v1/market/${path}`, { token });
        return r.status === 200 ? (r.body as Record<string, any>) : null;
      });
    await until(async () => {
      const t = await readMark(platformEm(s.orm), 'hyperliquid', 'BTC.HL', 5_000);
      return t && fmt(t.mark) === '12345.5';
    });
    expect(await read('quotes/hyperliquid/BTC.HL')).toMatchObject({ mark: '12345.5', source: 'live:hyperliquid' });
    expect((await read('tape/hyperliquid/BTC.HL')).source).toBe('live:hyperliquid');
    expect((await read('stats/BTC.HL')).source.mark).toBe('live:hyperliquid');

    expect((await read('quotes/paper/BTC.PAPER')).source).toBe('replay:hyperliquid');
    expect((await read('tape/paper/BTC.PAPER')).source).toBe('replay:hyperliquid');
    expect((await read('stats/BTC.PAPER')).source.mark).toBe('replay:hyperliquid');
    // No Kalshi read key (KALSHI_FEED_*): its marks replay the matching Polymarket outcome.
    const kx = 'PRES-2024-DJT-YES.KX';
    expect((await read(`quotes/kalshi/${kx}`)).source).toBe('replay:polymarket');
  });

  it('the dev simulators under VENUE_FEEDS=live price Hyperliquid from their own replay, not from the store', async () => {
    const sims = await startSimulators(() => async () => '1', { ownPrices: true });
    try {
      const spec = findSymbol('hyperliquid', 'SOL.HL')!;
      const m = await loadRecordedMarket(spec.sourceCoin);
      const mids = (await (
        await fetch(`${sims.hyperliquid.url}/info`, { method: 'POST', body: JSON.stringify({ type: 'allMids' }) })
      ).json()) as Record<string, string>;
      const now = Date.now();
      // The replay moves slowly: the mid is the replayed mark of a moment within this second.
      const replayed = [now - 1_000, now].map((t) =>
        fmt(
          tickAt(m, replayTime(t, 0, m.startMs, m.endMs), 'hyperliquid', spec.symbol, t, new Decimal(spec.tickSize))
            .mark,
        ),
      );
      expect(mids.SOL).not.toBe('1');
      expect(replayed.some((r) => new Decimal(r).sub(mids.SOL).abs().lte('0.01'))).toBe(true);
    } finally {
      await sims.stop();
    }
  });
});

/**
 * `VENUE_FEEDS=live` (config.ts, worker/worker.ts): the worker publishes the Hyperliquid symbols'
 * marks from the venue's WebSocket (here the simulator's `/ws`) under the feed locks, paper keeps the
 * replay; and the simulator `npm run dev` starts for it prices from its own replay of the recorded
 * ticks (no `markOf`), so it never echoes the marks the live feed publishes.
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
    s = await startStack({ env: { MARK_FEED: 'replay', VENUE_FEEDS: 'live', HYPERLIQUID_API_URL: sim.url } });
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

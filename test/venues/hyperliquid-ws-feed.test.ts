/**
 * The live Hyperliquid mark feed (modules/market/feeds/venue-feed-hyperliquid.ts) against the
 * simulator's WebSocket: its ticks carry the book the simulator streams and matches against (mark =
 * the touch's mid, Decimals from the wire strings), its prints are the simulator's fills; when the
 * simulator drops the socket the feed reconnects, resubscribes and ticks follow the new marks; a
 * symbol without book data past the threshold (the simulator gone silent) is flagged stale and no tick
 * of it is handed on until a book arrives again.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HttpTransport, InfoClient } from '@nktkas/hyperliquid';
import { fmt } from '../../domain/decimal.js';
import type { MarkTick } from '../../domain/market/types.js';
import { HYPERLIQUID_SYMBOLS } from '../../domain/market/venues/hyperliquid.js';
import {
  HyperliquidMarkFeed,
  hyperliquidWsUrl,
  type HyperliquidMarkFeedOptions,
} from '../../modules/market/feeds/venue-feed-hyperliquid.js';
import { startHyperliquidSimulator, type HyperliquidSimulator } from '../../simulators/hyperliquid.js';
import { feedUnderTest, until } from './feed-support.js';

/** Polls `ok` every 5 ms until it answers a value (rejects after `ms`). */

/** A tick's book as the venue's `{px, sz}` strings, to compare with the simulator's `l2Book` levels. */
const wireBook = (t: MarkTick) =>
  [t.book.bids, t.book.asks].map((side) => side.map((l) => ({ px: fmt(l.price), sz: fmt(l.size) })));

describe('HyperliquidMarkFeed against the Hyperliquid simulator', () => {
  const marks = new Map([
    ['BTC.HL', '97000.5'],
    ['ETH.HL', '2000.05'],
    ['SOL.HL', '150'],
  ]);
  const owner = '0x00000000000000000000000000000000000000bb';
  let sim: HyperliquidSimulator;
  let info: InfoClient;

  /** Starts a feed of every Hyperliquid symbol against the simulator, ticking every 20 ms. */
  const feeds = feedUnderTest(
    (recording, extra: Partial<HyperliquidMarkFeedOptions>) =>
      new HyperliquidMarkFeed({ url: sim.wsUrl, symbols: HYPERLIQUID_SYMBOLS, ...recording, ...extra }),
  );
  const { ticks, staleEdges, ticksOf } = feeds;
  const startFeed = (extra: Partial<HyperliquidMarkFeedOptions> = {}) => feeds.start(extra);

  beforeAll(async () => {
    sim = await startHyperliquidSimulator({
      markOf: async (s) => marks.get(s) ?? null,
      wsIntervalMs: 20,
      wsResendMs: 100,
    });
    info = new InfoClient({ transport: new HttpTransport({ apiUrl: sim.url }) });
  });
  afterEach(() => feeds.reset());
  afterAll(async () => sim?.close());

  it('derives the WebSocket URL from the API base URL', () => {
    expect(hyperliquidWsUrl('https://api.hyperliquid.xyz')).toBe('wss://api.hyperliquid.xyz/ws');
    expect(hyperliquidWsUrl(sim.url)).toBe(sim.wsUrl);
  });

  it('ticks carry the book the simulator streams: mark = mid of the touch, prints = its fills', async () => {
    startFeed();
    const btc = await until(() => ticksOf('BTC.HL')[0]);
    const book = (await info.l2Book({ coin: 'BTC' }))!;
    expect(wireBook(btc.tick)).toStrictEqual(book.levels.map((side) => side.map(({ px, sz }) => ({ px, sz }))));
    expect(btc.tick).toMatchObject({ venue: 'hyperliquid', symbol: 'BTC.HL' });
    expect(fmt(btc.tick.bid)).toBe('97000');
    expect(fmt(btc.tick.ask)).toBe('97001');
    expect(fmt(btc.tick.mark)).toBe('97000.5');
    for (const s of ['ETH.HL', 'SOL.HL']) await until(() => ticksOf(s)[0]);
    expect(fmt(ticksOf('SOL.HL')[0].tick.mark)).toBe('150');

    await sim.injectOrder(owner, { symbol: 'ETH.HL', side: 'sell', qty: '0.25', price: '1900' });
    const [fill] = await info.userFills({ user: owner });
    const withPrint = await until(() => ticksOf('ETH.HL').find((t) => t.prints.length > 0));
    expect(withPrint.prints.map((p) => ({ ...p, price: fmt(p.price), size: fmt(p.size) }))).toStrictEqual([
      { tradeId: String(fill.tid), ts: fill.time, price: '2000.05', size: '0.25', side: 'sell' },
    ]);
    // Each print is handed on once.
    await until(() => ticksOf('ETH.HL').length > ticksOf('ETH.HL').indexOf(withPrint) + 3);
    expect(ticksOf('ETH.HL').flatMap((t) => t.prints)).toHaveLength(1);
    expect(staleEdges).toStrictEqual([]);
  });

  it('reconnects and resubscribes after the simulator drops the socket; ticks follow the new mark', async () => {
    const f = startFeed();
    await until(() => ticksOf('BTC.HL')[0]);
    expect(f.connections()).toBe(1);
    expect(sim.dropWsConnections()).toBe(1);
    marks.set('BTC.HL', '97300.5');
    const after = await until(() => ticksOf('BTC.HL').find((t) => fmt(t.tick.mark) === '97300.5'));
    expect(f.connections()).toBe(2);
    expect(sim.wsConnections()).toBe(1);
    expect(wireBook(after.tick)[0][0]).toStrictEqual({ px: '97300', sz: '0.51387' });
    marks.set('BTC.HL', '97000.5');
  });

  it('stays fresh on an unchanged book the venue resends; stale past the threshold when the venue goes silent, fresh again after', async () => {
    const f = startFeed({ staleAfterMs: 400 });
    await until(() => ticksOf('SOL.HL')[0]);
    // The marks stand still: the simulator resends the unchanged books every 100 ms, so nothing turns stale.
    await new Promise((r) => setTimeout(r, 600));
    expect(staleEdges).toStrictEqual([]);

    sim.silenceWs(true);
    await until(() => f.isStale('SOL.HL'), 3_000);
    expect(staleEdges).toContainEqual(['SOL.HL', true]);
    const seen = ticksOf('SOL.HL').length;
    await new Promise((r) => setTimeout(r, 150));
    expect(ticksOf('SOL.HL')).toHaveLength(seen);

    marks.set('SOL.HL', '152');
    sim.silenceWs(false);
    const fresh = await until(() => ticksOf('SOL.HL').find((t) => fmt(t.tick.mark) === '152'));
    expect(fresh.tick.ts).toBeGreaterThan(0);
    expect(staleEdges).toContainEqual(['SOL.HL', false]);
    expect(f.isStale('SOL.HL')).toBe(false);
    expect(f.connections()).toBe(1);
  });

  it('a venue that cannot be reached: every symbol turns stale, nothing is handed on', async () => {
    const f = startFeed({ url: 'ws://127.0.0.1:9/ws', staleAfterMs: 100 });
    await until(() => HYPERLIQUID_SYMBOLS.every((s) => f.isStale(s.symbol)), 2_000);
    expect(ticks).toStrictEqual([]);
  });
});

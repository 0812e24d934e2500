/**
 * A venue that answers slowly (simulators/harness.ts `lag`, the simulators' `lagWs`): the Hyperliquid
 * simulator's socket holds back every frame it sends, in order, and answers handshakes late. The lag itself
 * (what the simulator sends, seen from a plain client), then the live Hyperliquid mark feed
 * (modules/market/feeds/venue-feed-hyperliquid.ts) against it: a lag well under its stale threshold leaves
 * every symbol fresh and the ticks follow the simulator's late books; a lag past the threshold turns the
 * symbol stale (nothing of it handed on) until the lag ends; a handshake slower than the feed's reconnect
 * delay does not make the feed open more connections, and it connects once the venue answers.
 * docs/venues.md §1.8.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { fmt } from '../../domain/decimal.js';
import { HYPERLIQUID_SYMBOLS } from '../../domain/market/venues/hyperliquid.js';
import {
  HyperliquidMarkFeed,
  type HyperliquidMarkFeedOptions,
} from '../../modules/market/feeds/venue-feed-hyperliquid.js';
import { startHyperliquidSimulator, type HyperliquidSimulator } from '../../simulators/hyperliquid.js';
import { feedUnderTest, until } from './feed-support.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a venue that answers slowly: the Hyperliquid simulator’s socket under lag', () => {
  const marks = new Map([
    ['BTC.HL', '97000.5'],
    ['ETH.HL', '2000.05'],
    ['SOL.HL', '150'],
  ]);
  let sim: HyperliquidSimulator;

  const feeds = feedUnderTest(
    (recording, extra: Partial<HyperliquidMarkFeedOptions>) =>
      new HyperliquidMarkFeed({ url: sim.wsUrl, symbols: HYPERLIQUID_SYMBOLS, ...recording, ...extra }),
  );
  const { staleEdges, ticksOf } = feeds;
  /** The SOL ticks whose mark is `mark`. */
  const solAt = (mark: string) => ticksOf('SOL.HL').filter((t) => fmt(t.tick.mark) === mark);

  beforeAll(async () => {
    sim = await startHyperliquidSimulator({
      markOf: async (s) => marks.get(s) ?? null,
      wsIntervalMs: 20,
      wsResendMs: 100,
    });
  });
  afterEach(async () => {
    sim.lagWs(0);
    await feeds.reset();
    marks.set('SOL.HL', '150');
  });
  afterAll(async () => sim?.close());

  it('the lag control: the handshake and every frame come no sooner than the lag, in the order sent; lag 0 sends at once', async () => {
    sim.lagWs(300);
    const askedMs = Date.now();
    const ws = new WebSocket(sim.wsUrl);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    expect(Date.now() - askedMs).toBeGreaterThanOrEqual(300);
    const frames: string[] = [];
    ws.on('message', (data: WebSocket.RawData) => frames.push(data.toString()));
    const sentMs = Date.now();
    ws.send('{"method":"ping"}');
    ws.send('not json');
    ws.send('{"method":"ping"}');
    const three = await until(() => frames.length >= 3 && frames);
    expect(Date.now() - sentMs).toBeGreaterThanOrEqual(300);
    expect(three.map((f) => (JSON.parse(f) as { channel: string }).channel)).toStrictEqual(['pong', 'error', 'pong']);

    // Held frames are released at once when the lag ends, still in order.
    sim.lagWs(60_000);
    ws.send('{"method":"ping"}');
    ws.send('{"method":"subscribe","subscription":{"type":"l2Book","coin":"NOPE"}}');
    await sleep(100);
    expect(frames).toHaveLength(3);
    sim.lagWs(0);
    const five = await until(() => frames.length >= 5 && frames);
    expect(five.slice(3).map((f) => (JSON.parse(f) as { channel: string }).channel)).toStrictEqual(['pong', 'error']);
    ws.terminate();
    expect(() => sim.lagWs(-1)).toThrow(/non-negative/);
  });

  it('a lag well under the stale threshold: every symbol stays fresh and the ticks follow the simulator’s late books', async () => {
    sim.lagWs(100);
    const f = feeds.start({ staleAfterMs: 1_000 });
    await until(() => solAt('150')[0]);
    marks.set('SOL.HL', '151');
    const moved = await until(() => solAt('151')[0]);
    expect(moved.tick).toMatchObject({ venue: 'hyperliquid', symbol: 'SOL.HL' });
    expect(moved.tick.bid.lt(moved.tick.ask)).toBe(true);
    // Late but steady: more than the threshold's worth of 20 ms ticks, no symbol turned stale, one connection.
    const seen = ticksOf('SOL.HL').length;
    await until(() => ticksOf('SOL.HL').length >= seen + 60);
    expect(staleEdges).toStrictEqual([]);
    expect(f.connections()).toBe(1);
    expect(sim.wsConnections()).toBe(1);
  });

  it('a lag past the stale threshold: the symbol turns stale, nothing of it is handed on; fresh again when the lag ends', async () => {
    const f = feeds.start({ staleAfterMs: 300 });
    await until(() => solAt('150')[0]);
    sim.lagWs(60_000);
    await until(() => f.isStale('SOL.HL'), 5_000);
    expect(staleEdges).toContainEqual(['SOL.HL', true]);
    const handedOn = ticksOf('SOL.HL').length;
    await sleep(150);
    expect(ticksOf('SOL.HL')).toHaveLength(handedOn);

    marks.set('SOL.HL', '152');
    sim.lagWs(0);
    await until(() => solAt('152')[0]);
    expect(staleEdges).toContainEqual(['SOL.HL', false]);
    expect(f.isStale('SOL.HL')).toBe(false);
    // The late venue was waited for, not dropped: still the first connection.
    expect(f.connections()).toBe(1);
  });

  it('a handshake slower than the reconnect delay: no pile-up of connections; the feed connects once the venue answers', async () => {
    await until(() => sim.wsConnections() === 0); // the earlier tests' feeds have gone
    sim.lagWs(1_000); // 50 × the feed's 20 ms reconnect delay
    const f = feeds.start({ staleAfterMs: 5_000 });
    expect(f.connections()).toBe(0);
    expect(sim.wsConnections()).toBe(0);
    let most = 0;
    const first = await until(() => {
      most = Math.max(most, sim.wsConnections());
      return ticksOf('SOL.HL')[0];
    }, 6_000);
    expect(fmt(first.tick.mark)).toBe('150');
    await sleep(200);
    most = Math.max(most, sim.wsConnections());
    expect(most).toBe(1);
    expect(sim.wsConnections()).toBe(1);
    expect(f.connections()).toBe(1);
  });
});

/**
 * The live Aster mark feed (modules/market/feeds/venue-feed-aster.ts over the shared venue-feed.ts)
 * against the Aster simulator's market streams: its ticks carry the book the simulator streams and
 * `GET /fapi/v3/depth` answers (mark = the touch's mid, Decimals from the wire strings), its prints are
 * the simulator's fills (side = the taker's); when the simulator drops the socket the feed reconnects,
 * resubscribes and ticks follow the new marks; a silenced venue turns its symbols stale, and they are
 * fresh again once books flow.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Decimal, fmt } from '../../domain/decimal.js';
import { ASTER_SYMBOLS } from '../../domain/market/venues/aster.js';
import { AsterMarkFeed, asterWsUrl, type AsterMarkFeedOptions } from '../../modules/market/feeds/venue-feed-aster.js';
import { startAsterSimulator, type AsterSimulator } from '../../simulators/aster.js';
import { feedUnderTest, until, wireBook } from './feed-support.js';

/** Polls `ok` every 5 ms until it answers a value (rejects after `ms`). */

/** A tick's book as the venue's `[price, qty]` strings, to compare with `GET /fapi/v3/depth`. */

describe('AsterMarkFeed against the Aster simulator', () => {
  const marks = new Map([
    ['BTC.ASTER', '97000.55'],
    ['ETH.ASTER', '2000.05'],
    ['SOL.ASTER', '150'],
  ]);
  const owner = '0x00000000000000000000000000000000000000dd';
  let sim: AsterSimulator;

  const feeds = feedUnderTest(
    (recording, extra: Partial<AsterMarkFeedOptions>) =>
      new AsterMarkFeed({ url: sim.wsUrl, symbols: ASTER_SYMBOLS, ...recording, ...extra }),
  );
  const { staleEdges, ticksOf } = feeds;
  const startFeed = (extra: Partial<AsterMarkFeedOptions> = {}) => feeds.start(extra);
  /** `GET /fapi/v3/depth` at the depth stream's 20 levels, with decimals as `fmt` prints them. */
  const restBook = async (symbol: string) => {
    const d = (await (await fetch(`${sim.url}/fapi/v3/depth?symbol=${symbol}&limit=20`)).json()) as {
      bids: string[][];
      asks: string[][];
    };
    const norm = (side: string[][]) => side.map(([p, q]) => [fmt(new Decimal(p)), fmt(new Decimal(q))]);
    return { bids: norm(d.bids), asks: norm(d.asks) };
  };

  beforeAll(async () => {
    sim = await startAsterSimulator({ markOf: async (s) => marks.get(s) ?? null, wsIntervalMs: 20 });
  });
  afterEach(() => feeds.reset());
  afterAll(async () => sim?.close());

  it('derives the stream URL from the REST base URL', () => {
    expect(asterWsUrl('https://fapi.asterdex.com')).toBe('wss://fstream.asterdex.com/ws');
    expect(asterWsUrl(sim.url)).toBe(sim.wsUrl);
  });

  it('ticks carry the book the simulator streams: mark = mid of the touch, prints = its fills', async () => {
    startFeed();
    const btc = await until(() => ticksOf('BTC.ASTER')[0]);
    expect(wireBook(btc.tick)).toStrictEqual(await restBook('BTCUSDT'));
    expect(btc.tick).toMatchObject({ venue: 'aster', symbol: 'BTC.ASTER' });
    expect(fmt(btc.tick.bid)).toBe('97000.5');
    expect(fmt(btc.tick.ask)).toBe('97000.6');
    expect(fmt(btc.tick.mark)).toBe('97000.55');
    for (const s of ['ETH.ASTER', 'SOL.ASTER']) await until(() => ticksOf(s)[0]);
    expect(fmt(ticksOf('SOL.ASTER')[0].tick.mark)).toBe('150');

    await sim.injectOrder(owner, { symbol: 'ETH.ASTER', side: 'buy', qty: '0.5', price: '2100' });
    const withPrint = await until(() => ticksOf('ETH.ASTER').find((t) => t.prints.length > 0));
    expect(withPrint.prints.map((p) => ({ ...p, price: fmt(p.price), size: fmt(p.size) }))).toStrictEqual([
      { tradeId: expect.stringMatching(/^\d+$/), ts: expect.any(Number), price: '2000.05', size: '0.5', side: 'buy' },
    ]);
    await until(() => ticksOf('ETH.ASTER').length > ticksOf('ETH.ASTER').indexOf(withPrint) + 3);
    expect(ticksOf('ETH.ASTER').flatMap((t) => t.prints)).toHaveLength(1);
    expect(staleEdges).toStrictEqual([]);
  });

  it('reconnects and resubscribes after the simulator drops the socket; ticks follow the new mark', async () => {
    const f = startFeed();
    await until(() => ticksOf('BTC.ASTER')[0]);
    expect(f.connections()).toBe(1);
    expect(sim.dropWsConnections()).toBe(1);
    marks.set('BTC.ASTER', '97300.55');
    const after = await until(() => ticksOf('BTC.ASTER').find((t) => fmt(t.tick.mark) === '97300.55'));
    expect(f.connections()).toBe(2);
    expect(sim.wsConnections()).toBe(1);
    expect(wireBook(after.tick).bids[0]).toStrictEqual(['97300.5', '0.513']);
    marks.set('BTC.ASTER', '97000.55');
  });

  it('a silenced venue: stale past the threshold, nothing handed on; fresh again once books flow', async () => {
    const f = startFeed({ staleAfterMs: 300 });
    await until(() => ticksOf('SOL.ASTER')[0]);
    await new Promise((r) => setTimeout(r, 400));
    expect(staleEdges).toStrictEqual([]);

    sim.silenceWs(true);
    await until(() => f.isStale('SOL.ASTER'), 3_000);
    expect(staleEdges).toContainEqual(['SOL.ASTER', true]);
    const seen = ticksOf('SOL.ASTER').length;
    await new Promise((r) => setTimeout(r, 150));
    expect(ticksOf('SOL.ASTER')).toHaveLength(seen);

    marks.set('SOL.ASTER', '152');
    sim.silenceWs(false);
    await until(() => ticksOf('SOL.ASTER').find((t) => fmt(t.tick.mark) === '152'));
    expect(staleEdges).toContainEqual(['SOL.ASTER', false]);
    expect(f.isStale('SOL.ASTER')).toBe(false);
    expect(f.connections()).toBe(1);
  });

  it('a silent connection (no frames, no pongs) is reopened after two ping periods', async () => {
    const f = startFeed({ pingMs: 100, staleAfterMs: 5_000 });
    await until(() => ticksOf('BTC.ASTER')[0]);
    sim.silenceWs(true);
    await until(() => f.connections() >= 2 && sim.wsConnections() === 1, 3_000);
    sim.silenceWs(false);
    marks.set('BTC.ASTER', '97100.55');
    await until(() => ticksOf('BTC.ASTER').find((t) => fmt(t.tick.mark) === '97100.55'));
    marks.set('BTC.ASTER', '97000.55');
  });
});

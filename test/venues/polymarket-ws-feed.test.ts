/**
 * The live Polymarket mark feed (modules/market/feeds/venue-feed-polymarket.ts over the shared venue-feed.ts)
 * against the Polymarket simulator's market channel: its ticks carry the book `GET /book` answers (best first,
 * mark = the touch's mid in probability units, Decimals from the wire strings) as it changes, its prints are the
 * simulator's fills; a dropped socket is reopened and resubscribed; a lost `price_change` is caught by the touch
 * the next change reports and a fresh snapshot is asked for; a quiet book stays fresh while the venue answers
 * `PING`, a silenced venue turns the symbol stale.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Decimal, fmt } from '../../domain/decimal.js';
import type { MarkTick } from '../../domain/market/types.js';
import { POLYMARKET_SYMBOLS } from '../../domain/market/venues/polymarket.js';
import {
  PolymarketMarkFeed,
  polymarketWsUrl,
  type PolymarketMarkFeedOptions,
} from '../../modules/market/feeds/venue-feed-polymarket.js';
import { startPolymarketSimulator, type PolymarketSimulator } from '../../simulators/polymarket.js';
import { feedUnderTest, until } from './feed-support.js';

const YES = POLYMARKET_SYMBOLS[0];
const TOKEN = YES.venueSymbol!;

/** Polls `ok` every 5 ms until it answers a value (rejects after `ms`). */

type Level = { price: string; size: string };

/** A tick's book as canonical decimal strings, best first. */
const tickBook = (t: MarkTick) => ({
  bids: t.book.bids.map((l) => ({ price: fmt(l.price), size: fmt(l.size) })),
  asks: t.book.asks.map((l) => ({ price: fmt(l.price), size: fmt(l.size) })),
});

describe('PolymarketMarkFeed against the Polymarket simulator', () => {
  const marks = new Map([[YES.symbol, '0.5']]);
  const owner = '0x00000000000000000000000000000000000000bb';
  let sim: PolymarketSimulator;

  const feeds = feedUnderTest(
    (recording, extra: Partial<PolymarketMarkFeedOptions>) =>
      new PolymarketMarkFeed({ url: polymarketWsUrl(sim.url), symbols: [YES], ...recording, ...extra }),
  );
  const { ticks, staleEdges } = feeds;
  const startFeed = (extra: Partial<PolymarketMarkFeedOptions> = {}) => feeds.start(extra);
  /** `GET /book` best first, canonical decimals. */
  const restBook = async () => {
    const b = (await (await fetch(`${sim.url}/book?token_id=${TOKEN}`)).json()) as { bids: Level[]; asks: Level[] };
    const norm = (side: Level[]) =>
      side.map((l) => ({ price: fmt(new Decimal(l.price)), size: fmt(new Decimal(l.size)) })).reverse();
    return { bids: norm(b.bids), asks: norm(b.asks) };
  };
  /** Waits for a tick whose book equals `GET /book` now (re-read each round). */
  const tickMatchingRest = async (ms = 3_000) => {
    const started = Date.now();
    for (;;) {
      const rest = await restBook();
      const last = ticks.at(-1);
      if (last && JSON.stringify(tickBook(last.tick)) === JSON.stringify(rest)) return { tick: last.tick, rest };
      if (Date.now() - started > ms) throw new Error(`no tick equal to GET /book ${JSON.stringify(rest)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const rest = (side: 'buy' | 'sell', qty: string, price: string) =>
    sim.injectOrder(owner, { symbol: YES.symbol, side, qty, price });

  beforeAll(async () => {
    sim = await startPolymarketSimulator({ markOf: async (s) => marks.get(s) ?? null, wsIntervalMs: 10 });
    await rest('buy', '10', '0.4');
    await rest('buy', '4', '0.38');
    await rest('sell', '6', '0.6');
  });
  afterEach(() => feeds.reset());
  afterAll(async () => sim?.close());

  it('maps the venue URL to its market channel', () => {
    expect(polymarketWsUrl('https://clob.polymarket.com')).toBe('wss://ws-subscriptions-clob.polymarket.com/ws/market');
    expect(polymarketWsUrl('http://127.0.0.1:4000')).toBe('ws://127.0.0.1:4000/ws/market');
  });

  it('ticks carry GET /book as it changes, mark = the touch’s mid; fills arrive as prints', async () => {
    startFeed();
    const first = await tickMatchingRest();
    expect(first.tick).toMatchObject({ venue: 'polymarket', symbol: YES.symbol });
    expect(fmt(first.tick.mark)).toBe('0.5');
    expect([fmt(first.tick.bid), fmt(first.tick.ask)]).toEqual(['0.4', '0.6']);
    await rest('buy', '3', '0.45');
    await rest('sell', '2', '0.55');
    const moved = await tickMatchingRest();
    expect(fmt(moved.tick.mark)).toBe('0.5');
    expect([fmt(moved.tick.bid), fmt(moved.tick.ask)]).toEqual(['0.45', '0.55']);
    // A taker buying through the mark fills at it; the resting 0.55 ask fills as a maker once the mark reaches it.
    marks.set(YES.symbol, '0.56');
    await sim.poke();
    const after = await tickMatchingRest();
    expect([fmt(after.tick.bid), fmt(after.tick.ask)]).toEqual(['0.45', '0.6']);
    expect(fmt(after.tick.mark)).toBe('0.525');
    const prints = await until(() => {
      const p = ticks.flatMap((t) => t.prints);
      return p.length > 0 && p;
    });
    expect(prints).toEqual([
      {
        tradeId: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        ts: expect.any(Number),
        price: new Decimal('0.55'),
        size: new Decimal(2),
        side: 'buy',
      },
    ]);
    marks.set(YES.symbol, '0.5');
  });

  it('reopens a dropped socket, resubscribes and follows the book again', async () => {
    const f = startFeed();
    await tickMatchingRest();
    expect(sim.dropWsConnections()).toBe(1);
    await rest('buy', '1', '0.47');
    await until(() => f.connections() === 2);
    const again = await tickMatchingRest();
    expect(fmt(again.tick.bid)).toBe('0.47');
    expect(sim.wsConnections()).toBe(1);
  });

  it('a lost price_change is caught by the next change’s touch and a fresh snapshot replaces the book', async () => {
    const feed = startFeed();
    await tickMatchingRest();
    sim.loseNextBookChange();
    await rest('buy', '2', '0.48'); // its price_change is lost: the feed still shows 0.47 as the best bid
    await new Promise((r) => setTimeout(r, 60));
    expect(fmt(ticks.at(-1)!.tick.bid)).toBe('0.47');
    await rest('sell', '5', '0.65'); // a change away from the touch, reporting best_bid 0.48
    const synced = await tickMatchingRest();
    expect([fmt(synced.tick.bid), fmt(synced.tick.ask)]).toEqual(['0.48', '0.6']);
    expect(synced.rest.asks.at(-1)).toEqual({ price: '0.65', size: '5' });
    expect(feed.connections()).toBe(1); // resynced on the same connection
  });

  it('a quiet book stays fresh while the venue answers PING; a silenced venue turns the symbol stale', async () => {
    const f = startFeed({ staleAfterMs: 150, pingMs: 50 });
    await tickMatchingRest();
    await new Promise((r) => setTimeout(r, 400)); // no book change at all: PONGs confirm the book
    expect(f.isStale(YES.symbol)).toBe(false);
    sim.silenceWs(true);
    await until(() => f.isStale(YES.symbol));
    const n = ticks.length;
    await new Promise((r) => setTimeout(r, 60));
    expect(ticks.length).toBe(n);
    sim.silenceWs(false);
    await until(() => !f.isStale(YES.symbol));
    expect(staleEdges).toEqual([
      [YES.symbol, true],
      [YES.symbol, false],
    ]);
    await tickMatchingRest();
  });
});

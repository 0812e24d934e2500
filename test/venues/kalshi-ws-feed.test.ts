/**
 * The live Kalshi mark feed (modules/market/feeds/venue-feed-kalshi.ts over the shared venue-feed.ts) against the
 * Kalshi simulator's WebSocket API v2: each handshake is signed with the platform's read key (an unregistered key is
 * refused and never streams); the YES symbol's ticks carry the book `GET /markets/{ticker}/orderbook` answers (bids
 * the YES bids, asks 1 − the NO bids, best first; mark = the mid of that touch) and the NO symbol's its mirror, as
 * the book changes; fills arrive as prints; a skipped seq drops the book and resubscribes on the same connection; a
 * dropped socket is reopened with a fresh signature and resubscribed; a quiet book stays fresh while the venue
 * answers pings, a silenced venue turns the symbols stale until it speaks again. Without the platform's read key
 * (config.ts `KALSHI_FEED_*`, set both or neither) Kalshi is no live venue and the worker's `startLiveFeeds` warns once.
 */
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Decimal, fmt } from '../../domain/decimal.js';
import type { MarkTick } from '../../domain/market/types.js';
import { KALSHI_SYMBOLS } from '../../domain/market/venues/kalshi.js';
import {
  KalshiMarkFeed,
  kalshiWsUrl,
  type KalshiMarkFeedOptions,
} from '../../modules/market/feeds/venue-feed-kalshi.js';
import { isLiveVenue, startLiveFeeds } from '../../modules/market/feeds/live-feeds.js';
import { loadConfig } from '../../config.js';
import { startKalshiSimulator, type KalshiSimulator } from '../../simulators/kalshi.js';
import { generateKalshiAgentKey } from '../../venues/kalshi/signing.js';
import { feedUnderTest, until, wireBook } from './feed-support.js';

const [YES, NO] = KALSHI_SYMBOLS;
const TICKER = YES.venueSymbol!.split(':')[0];

type BookFp = { yes_dollars: string[][]; no_dollars: string[][] };

/** A side symbol's book from the REST `orderbook_fp` (module doc of the feed), best first, canonical decimals. */
function expectedBook(b: BookFp, side: 'yes' | 'no') {
  const bids = (levels: string[][]) =>
    [...levels].reverse().map(([p, c]) => [fmt(new Decimal(p)), fmt(new Decimal(c))]);
  const other = side === 'yes' ? b.no_dollars : b.yes_dollars;
  return {
    bids: bids(side === 'yes' ? b.yes_dollars : b.no_dollars),
    asks: bids(other).map(([p, c]) => [fmt(new Decimal(1).minus(p)), c]),
  };
}

describe('KalshiMarkFeed against the Kalshi simulator', () => {
  const marks = new Map([
    [YES.symbol, '0.6'],
    [NO.symbol, '0.45'],
  ]);
  const key = generateKalshiAgentKey();
  let sim: KalshiSimulator;
  let keyId: string;
  const errors: unknown[] = [];

  const feeds = feedUnderTest(
    (recording, extra: Partial<KalshiMarkFeedOptions>) =>
      new KalshiMarkFeed({
        url: kalshiWsUrl(sim.url),
        symbols: [YES, NO],
        key: { keyId, privateKeyPem: key.privateKeyPem },
        ...recording,
        onError: (err) => void errors.push(err),
        ...extra,
      }),
  );
  const { ticks, staleEdges, ticksOf } = feeds;
  const startFeed = (extra: Partial<KalshiMarkFeedOptions> = {}) => feeds.start(extra);
  const restBook = async () =>
    ((await (await fetch(`${sim.url}/markets/${TICKER}/orderbook`)).json()) as { orderbook_fp: BookFp }).orderbook_fp;
  /** Waits for the latest ticks of both sides to equal the REST book now (re-read each round). */
  const ticksMatchingRest = async (ms = 3_000) => {
    const started = Date.now();
    for (;;) {
      const rest = await restBook();
      const yes = ticksOf(YES.symbol).at(-1)?.tick;
      const no = ticksOf(NO.symbol).at(-1)?.tick;
      const same = (t: MarkTick | undefined, side: 'yes' | 'no') =>
        t && JSON.stringify(wireBook(t)) === JSON.stringify(expectedBook(rest, side));
      if (same(yes, 'yes') && same(no, 'no')) return { yes: yes!, no: no!, rest };
      if (Date.now() - started > ms) throw new Error(`no ticks equal to the REST book ${JSON.stringify(rest)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const rest = (side: 'buy' | 'sell', qty: string, price: string) =>
    sim.injectOrder('member-maker', { symbol: YES.symbol, side, qty, price });

  beforeAll(async () => {
    sim = await startKalshiSimulator({ markOf: async (s) => marks.get(s) ?? null, wsIntervalMs: 10 });
    keyId = sim.registerKey('platform-market-data', key.publicKeyPem, { scopes: ['read'] });
    await rest('buy', '10', '0.5');
    await rest('sell', '6', '0.7');
  });
  afterEach(async () => {
    await feeds.reset();
    errors.length = 0;
  });
  afterAll(async () => sim?.close());

  it('maps KALSHI_API_URL to the WebSocket API', () => {
    expect(kalshiWsUrl('https://external-api.kalshi.com/trade-api/v2')).toBe(
      'wss://external-api-ws.kalshi.com/trade-api/ws/v2',
    );
    expect(kalshiWsUrl('https://api.elections.kalshi.com/trade-api/v2')).toBe(
      'wss://api.elections.kalshi.com/trade-api/ws/v2',
    );
    expect(kalshiWsUrl('http://127.0.0.1:4000/trade-api/v2')).toBe('ws://127.0.0.1:4000/trade-api/ws/v2');
    expect(kalshiWsUrl(sim.url)).toBe(sim.wsUrl);
  });

  it('ticks carry the REST book of each side as it changes, mark = the mid of the touch; fills arrive as prints', async () => {
    startFeed();
    const first = await ticksMatchingRest();
    expect(first.yes).toMatchObject({ venue: 'kalshi', symbol: YES.symbol });
    // YES: bid 1 − 0.45 = 0.55, ask 0.60; NO: the mirror.
    expect([fmt(first.yes.bid), fmt(first.yes.ask), fmt(first.yes.mark)]).toEqual(['0.55', '0.6', '0.575']);
    expect([fmt(first.no.bid), fmt(first.no.ask), fmt(first.no.mark)]).toEqual(['0.4', '0.45', '0.425']);
    await rest('buy', '3', '0.57');
    const moved = await ticksMatchingRest();
    expect([fmt(moved.yes.bid), fmt(moved.yes.ask)]).toEqual(['0.57', '0.6']);
    expect(moved.yes.book.bids[0].size.eq(3)).toBe(true);
    // A member buys YES through the 0.60 ask: one trade, printed on both sides.
    await sim.injectOrder('member-taker', { symbol: YES.symbol, side: 'buy', qty: '2', price: '0.62' });
    const prints = await until(() => {
      const p = ticks.flatMap((t) => t.prints.map((x) => [t.tick.symbol, x] as const));
      return p.length >= 2 && p;
    });
    expect(Object.fromEntries(prints)).toEqual({
      [YES.symbol]: {
        tradeId: expect.any(String),
        ts: expect.any(Number),
        price: new Decimal('0.6'),
        size: new Decimal(2),
        side: 'buy',
      },
      [NO.symbol]: {
        tradeId: expect.any(String),
        ts: expect.any(Number),
        price: new Decimal('0.4'),
        size: new Decimal(2),
        side: 'sell',
      },
    });
    expect(errors).toEqual([]);
  });

  it('a skipped seq drops the book and resubscribes on the same connection', async () => {
    const feed = startFeed();
    await ticksMatchingRest();
    sim.loseNextDelta();
    await rest('buy', '2', '0.58'); // its delta is lost: the feed would still show 0.57 as the best bid
    await rest('buy', '1', '0.2'); // the next delta's seq is one too far
    const synced = await ticksMatchingRest();
    expect(fmt(synced.yes.bid)).toBe('0.58');
    expect(synced.rest.yes_dollars[0]).toEqual(['0.2000', '1.00']);
    expect(feed.connections()).toBe(1);
  });

  it('reopens a dropped socket with a fresh signature and resubscribes', async () => {
    const f = startFeed();
    await ticksMatchingRest();
    expect(sim.dropWsConnections()).toBe(1);
    await rest('buy', '1', '0.59');
    await until(() => f.connections() === 2);
    // The simulator refuses a replayed (key, timestamp, signature): the second handshake was signed afresh.
    const again = await ticksMatchingRest();
    expect(fmt(again.yes.bid)).toBe('0.59');
    expect(sim.wsConnections()).toBe(1);
  });

  it('a quiet book stays fresh while the venue answers pings; a silenced venue turns the symbols stale', async () => {
    const f = startFeed({ staleAfterMs: 150, pingMs: 50 });
    await ticksMatchingRest();
    await new Promise((r) => setTimeout(r, 400)); // no book change at all: pongs confirm the book
    expect(f.isStale(YES.symbol)).toBe(false);
    sim.silenceWs(true);
    await until(() => f.isStale(YES.symbol) && f.isStale(NO.symbol));
    const n = ticks.length;
    await new Promise((r) => setTimeout(r, 60));
    expect(ticks.length).toBe(n);
    sim.silenceWs(false);
    await until(() => !f.isStale(YES.symbol) && !f.isStale(NO.symbol));
    expect(staleEdges.filter(([s]) => s === YES.symbol)).toEqual([
      [YES.symbol, true],
      [YES.symbol, false],
    ]);
    await ticksMatchingRest();
  });

  it('a key the venue does not know is refused at the handshake: no ticks, the 401 reported', async () => {
    const stranger = generateKalshiAgentKey();
    const f = startFeed({
      key: { keyId: '00000000-0000-4000-8000-000000000000', privateKeyPem: stranger.privateKeyPem },
    });
    await until(() => errors.some((e) => String((e as Error).message).includes('401')));
    expect(f.connections()).toBe(0);
    expect(ticks).toEqual([]);
  });

  it('without the read key Kalshi is no live venue: startLiveFeeds starts nothing and warns once, saying why', async () => {
    const lines: { level: number; msg: string; venue?: string }[] = [];
    const logger = pino({ level: 'info' }, { write: (l: string) => void lines.push(JSON.parse(l)) });
    const apiUrls = { hyperliquid: sim.url, aster: sim.url, polymarket: sim.url, kalshi: sim.url };
    expect(isLiveVenue('kalshi')).toBe(false);
    expect(startLiveFeeds({ symbols: KALSHI_SYMBOLS, apiUrls, onTick: async () => undefined, logger })).toEqual([]);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 40,
        venue: 'kalshi',
        msg: expect.stringContaining('KALSHI_FEED_KEY_ID and KALSHI_FEED_PRIVATE_KEY'),
      }),
    ]);
    expect(sim.wsConnections()).toBe(0);

    const keys = { kalshi: { keyId, privateKeyPem: key.privateKeyPem } };
    expect(isLiveVenue('kalshi', keys)).toBe(true);
    const started = startLiveFeeds({ symbols: KALSHI_SYMBOLS, apiUrls, keys, onTick: async () => undefined, logger });
    try {
      expect(started).toHaveLength(1);
      await until(() => sim.wsConnections() === 1);
    } finally {
      for (const f of started) await f.stop();
    }
  });

  it('config: KALSHI_FEED_KEY_ID and KALSHI_FEED_PRIVATE_KEY go together and become venues.feedKeys.kalshi', () => {
    const base = { DATABASE_URL: 'postgres://u@127.0.0.1:5432/db', JWT_SECRET: 'x'.repeat(40) };
    expect(loadConfig(base).venues.feedKeys).toEqual({ kalshi: null });
    const pem = key.privateKeyPem.replace(/\n/g, '\\n'); // as a one-line deploy template holds it
    expect(loadConfig({ ...base, KALSHI_FEED_KEY_ID: keyId, KALSHI_FEED_PRIVATE_KEY: pem }).venues.feedKeys).toEqual({
      kalshi: { keyId, privateKeyPem: key.privateKeyPem },
    });
    expect(() => loadConfig({ ...base, KALSHI_FEED_KEY_ID: keyId })).toThrow(
      /KALSHI_FEED_PRIVATE_KEY: unset while KALSHI_FEED_KEY_ID is set/,
    );
    expect(() => loadConfig({ ...base, KALSHI_FEED_KEY_ID: keyId, KALSHI_FEED_PRIVATE_KEY: 'secret' })).toThrow(
      /KALSHI_FEED_PRIVATE_KEY is PEM text/,
    );
  });
});

/**
 * `VENUE_FEEDS=live` (worker/worker.ts, modules/market/feeds/streams.ts): the tape of a live venue's pair is the
 * venue's own prints. The worker follows the Hyperliquid and Polymarket simulators' sockets; the feed leader hands
 * each tick's prints to the pair's stream, which stores them in `market_trades` (`GET /api/v1/market/tape`), pushes
 * them on `/ws/market` `trades:` and counts them into volume at price, with no backfill from the recording. A
 * Polymarket print keeps the venue's id, its 66-character settlement transaction hash (migration TapeTradeIds). A
 * paper pair still gets the recorded tape; a prediction pair without a live feed (`*.KX` without the Kalshi read key)
 * streams its book with an empty tape.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import pg from 'pg';
import WebSocket from 'ws';
import { HttpTransport, InfoClient } from '@nktkas/hyperliquid';
import { Decimal, fmt } from '../../domain/decimal.js';
import { findSymbol } from '../../domain/market/symbols.js';
import { POLYMARKET_SYMBOLS } from '../../domain/market/venues/polymarket.js';
import { loadRecordedMarket } from '../../modules/market/feeds/recorded.js';
import { VAP_BUCKET_TICKS } from '../../modules/market/feeds/streams.js';
import { startHyperliquidSimulator, type HyperliquidSimulator } from '../../simulators/hyperliquid.js';
import { startPolymarketSimulator, type PolymarketSimulator } from '../../simulators/polymarket.js';
import { startStack, type Stack } from '../support/stack.js';
import { waitFor } from '../support/wait.js';
import { openRisk } from '../support/ws.js';

/** Polls `ok` every 20 ms until it answers something truthy (at most 10 s) and returns that. */
const until = <T>(ok: () => Promise<T | null | undefined | false>) => waitFor(ok, Boolean, 10_000, 20) as Promise<T>;

/**
 * A client of the Polymarket simulator's CLOB market channel (`/ws/market`) subscribed to `token`, as any reader of
 * the venue's channel: every event received, in order (a `book` array flattened), once the token's `book` came.
 */
async function venueChannel(url: string, token: string) {
  const socket = new WebSocket(url);
  const events: Record<string, string>[] = [];
  socket.on('message', (d: WebSocket.RawData) => {
    const text = d.toString();
    if (text !== 'PONG') events.push(...[JSON.parse(text)].flat());
  });
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  socket.send(JSON.stringify({ assets_ids: [token], type: 'market' }));
  await until(async () => events.some((e) => e.event_type === 'book'));
  return { events, close: () => socket.close() };
}

describe('VENUE_FEEDS=live: the tape of a live venue is its own prints', () => {
  const marks = new Map([
    ['BTC.HL', '97000.5'],
    ['ETH.HL', '2000.05'],
    ['SOL.HL', '150'],
  ]);
  const owner = '0x00000000000000000000000000000000000000cc';
  let sim: HyperliquidSimulator;
  let pm: PolymarketSimulator;
  let s: Stack;
  let db: pg.Pool;
  let token: string;
  let started: Date;
  const sockets: { close(): void }[] = [];

  beforeAll(async () => {
    // The run shares one database: clear the live pairs' kept tape and demand that other files left, so this stack's
    // producer does not start them at once with those prints in its volume at price.
    const pre = new pg.Pool({ connectionString: inject('databaseUrl'), max: 1 });
    for (const table of ['market_trades', 'market_streams'])
      await pre.query(`delete from ${table} where (venue, symbol) in (('hyperliquid', 'ETH.HL'), ('polymarket', $1))`, [
        POLYMARKET_SYMBOLS[0].symbol,
      ]);
    await pre.end();
    sim = await startHyperliquidSimulator({ markOf: async (x) => marks.get(x) ?? null, wsIntervalMs: 50 });
    // prices from its own recording, held at one instant: a book with a touch, at a price that does not move
    pm = await startPolymarketSimulator({ now: () => 86_400_000, wsIntervalMs: 50 });
    started = new Date();
    s = await startStack({
      env: {
        MARK_FEED: 'replay',
        VENUE_FEEDS: 'live',
        MARKET_STREAMS: 'on',
        HYPERLIQUID_API_URL: sim.url,
        POLYMARKET_API_URL: pm.url,
        // the other live venues' feeds reach nothing (they only retry)
        ASTER_API_URL: 'http://127.0.0.1:9',
        KALSHI_API_URL: 'http://127.0.0.1:9',
      },
    });
    db = new pg.Pool({ connectionString: s.config.databaseUrl, max: 1 });
    token = (await s.trader('readonly')).token;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    await db?.end();
    await s?.stop();
    await sim?.close();
    await pm?.close();
  });

  /** A `/ws/market` client subscribed to `topics` (closed after the file). */
  const market = async (topics: string[]) => {
    const ws = await openRisk(`${s.api.baseUrl.replace('http', 'ws')}/ws/market`, {});
    sockets.push(ws);
    ws.send({ type: 'Subscribe', topics });
    expect(await ws.next((f) => f.type === 'Result')).toMatchObject({ ok: true });
    return ws;
  };

  /** The pair's tape once its stream is live (retrying `503 cold_cache`). */
  const tape = (venue: string, symbol: string) =>
    until(async () => {
      const r = await s.call('GET', `/api/v1/market/tape/${venue}/${symbol}?limit=200`, { token });
      return r.status === 200 ? (r.body.trades as Record<string, string>[]) : null;
    });

  it('ETH.HL: an empty tape until the venue trades, then the simulator’s fill on the tape route, /ws/market and volume at price', async () => {
    await db.query(`delete from market_trades where venue = 'hyperliquid' and symbol = 'ETH.HL'`);
    const ws = await market(['trades:hyperliquid:ETH.HL', 'volumeAtPrice:hyperliquid:ETH.HL']);
    // streaming, and nothing replayed into it
    expect(await tape('hyperliquid', 'ETH.HL')).toStrictEqual([]);

    await sim.injectOrder(owner, { symbol: 'ETH.HL', side: 'sell', qty: '0.25', price: '1900' });
    const info = new InfoClient({ transport: new HttpTransport({ apiUrl: sim.url }) });
    const [fill] = await info.userFills({ user: owner });
    const print = {
      tradeId: String(fill.tid),
      ts: new Date(fill.time).toISOString(),
      price: fill.px,
      size: fill.sz,
      side: 'sell',
    };
    expect([print.price, print.size]).toStrictEqual(['2000.05', '0.25']);

    const trades = await ws.next((f) => f.type === 'Trades');
    expect(trades.prints).toStrictEqual([print]);
    expect(await until(async () => (await tape('hyperliquid', 'ETH.HL')).at(0))).toStrictEqual(print);
    expect(await tape('hyperliquid', 'ETH.HL')).toStrictEqual([print]);

    const width = new Decimal(findSymbol('hyperliquid', 'ETH.HL')!.tickSize).times(VAP_BUCKET_TICKS);
    const vap = await ws.next((f) => f.type === 'Volume-At-Price' && f.prints === 1);
    expect(vap.levels).toStrictEqual([
      { price: fmt(new Decimal(print.price).div(width).floor().times(width)), buyVolume: '0', sellVolume: '0.25' },
    ]);
    // every Trades frame so far carried the venue's one print, nothing recorded
    expect(ws.frames.filter((f) => f.type === 'Trades').flatMap((f) => f.prints)).toStrictEqual([print]);
  });

  it('a Polymarket pair: an empty tape until the venue trades, then its print, the settlement transaction hash as its id', async () => {
    const { symbol, venueSymbol } = POLYMARKET_SYMBOLS[0];
    await db.query(`delete from market_trades where venue = 'polymarket' and symbol = $1`, [symbol]);
    const ws = await market([`trades:polymarket:${symbol}`]);
    expect(await tape('polymarket', symbol)).toStrictEqual([]);
    // this stack's worker follows the simulator's channel: a mark it published (newer than any earlier file's)
    const fresh = `select 1 from marks where venue = 'polymarket' and symbol = $1 and ts >= $2`;
    await until(async () => (await db.query(fresh, [symbol, started])).rowCount);

    // a taker sells 12.5 shares at the simulator's price; the venue's channel tells every reader of the fill
    const channel = await venueChannel(pm.wsUrl, venueSymbol!);
    sockets.push(channel);
    const book = (await (await fetch(`${pm.url}/book?token_id=${venueSymbol}`)).json()) as { last_trade_price: string };
    await pm.injectOrder(owner, { symbol, side: 'sell', qty: '12.5', price: '0.01' });
    const sent = await until(async () => channel.events.find((e) => e.event_type === 'last_trade_price'));
    expect(sent).toMatchObject({ asset_id: venueSymbol, price: book.last_trade_price, size: '12.5', side: 'SELL' });
    // 0x + 64 hex: 66 characters, more than the former varchar(64) `trade_id` could store
    expect(sent.transaction_hash).toMatch(/^0x[0-9a-f]{64}$/);
    const print = {
      tradeId: sent.transaction_hash,
      ts: new Date(Number(sent.timestamp)).toISOString(),
      price: sent.price,
      size: '12.5',
      side: 'sell',
    };

    expect((await ws.next((f) => f.type === 'Trades')).prints).toStrictEqual([print]);
    expect(await until(async () => (await tape('polymarket', symbol)).at(0))).toStrictEqual(print);
    expect(await tape('polymarket', symbol)).toStrictEqual([print]);
    expect(ws.frames.filter((f) => f.type === 'Trades').flatMap((f) => f.prints)).toStrictEqual([print]);
  });

  it('a prediction pair without a live feed streams its book with an empty tape (no recorded prints to replay)', async () => {
    const symbol = 'PRES-2024-KH-YES.KX'; // no Kalshi read key: its marks are replayed
    const depth = await until(async () => {
      const r = await s.call('GET', `/api/v1/market/depth/kalshi/${symbol}?levels=1`, { token });
      return r.status === 200 ? r.body : null;
    });
    expect([depth.bids.length, depth.asks.length]).toStrictEqual([1, 1]);
    expect(await tape('kalshi', symbol)).toStrictEqual([]);
  });

  it('BTC.PAPER keeps the recorded tape', async () => {
    const trades = await until(async () => {
      const t = await tape('paper', 'BTC.PAPER');
      return t.length ? t : null;
    });
    const recorded = await loadRecordedMarket('BTC');
    const ids = new Set(recorded.trades!.map((t) => t.id));
    for (const t of trades) {
      // replayed ids are `<loop>-<recorded trade id>`
      const [loop, id] = t.tradeId.split(/-(.*)/);
      expect(loop).toMatch(/^-?\d+$/);
      expect(ids.has(id)).toBe(true);
    }
  });
});

/**
 * `VENUE_FEEDS=live` (worker/worker.ts, modules/market/feeds/streams.ts): the tape of a live venue's pair is the
 * venue's own prints. The worker follows the Hyperliquid simulator's socket; the feed leader hands each tick's
 * prints to the pair's stream, which stores them in `market_trades` (`GET /api/v1/market/tape`), pushes them on
 * `/ws/market` `trades:` and counts them into volume at price, with no backfill from the recording. A paper pair
 * still gets the recorded tape; a prediction pair (no recorded prints) streams its book with an empty tape.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { HttpTransport, InfoClient } from '@nktkas/hyperliquid';
import { Decimal, fmt } from '../../domain/decimal.js';
import { findSymbol } from '../../domain/market/symbols.js';
import { loadRecordedMarket } from '../../modules/market/feeds/recorded.js';
import { VAP_BUCKET_TICKS } from '../../modules/market/feeds/streams.js';
import { startHyperliquidSimulator, type HyperliquidSimulator } from '../../simulators/hyperliquid.js';
import { startStack, type Stack } from '../support/stack.js';
import { waitFor } from '../support/wait.js';
import { openRisk, type RiskClient } from '../support/ws.js';

/** Polls `ok` every 20 ms until it answers something truthy (at most 10 s) and returns that. */
const until = <T>(ok: () => Promise<T | null | undefined | false>) => waitFor(ok, Boolean, 10_000, 20) as Promise<T>;

describe('VENUE_FEEDS=live: the tape of a live venue is its own prints', () => {
  const marks = new Map([
    ['BTC.HL', '97000.5'],
    ['ETH.HL', '2000.05'],
    ['SOL.HL', '150'],
  ]);
  const owner = '0x00000000000000000000000000000000000000cc';
  let sim: HyperliquidSimulator;
  let s: Stack;
  let db: pg.Pool;
  let token: string;
  let ws: RiskClient | undefined;

  beforeAll(async () => {
    sim = await startHyperliquidSimulator({ markOf: async (x) => marks.get(x) ?? null, wsIntervalMs: 50 });
    s = await startStack({
      env: {
        MARK_FEED: 'replay',
        VENUE_FEEDS: 'live',
        MARKET_STREAMS: 'on',
        HYPERLIQUID_API_URL: sim.url,
        // the other live venues' feeds reach nothing (they only retry)
        ASTER_API_URL: 'http://127.0.0.1:9',
        POLYMARKET_API_URL: 'http://127.0.0.1:9',
        KALSHI_API_URL: 'http://127.0.0.1:9',
      },
    });
    db = new pg.Pool({ connectionString: s.config.databaseUrl, max: 1 });
    token = (await s.trader('readonly')).token;
  });
  afterAll(async () => {
    ws?.close();
    await db?.end();
    await s?.stop();
    await sim?.close();
  });

  /** The pair's tape once its stream is live (retrying `503 cold_cache`). */
  const tape = (venue: string, symbol: string) =>
    until(async () => {
      const r = await s.call('GET', `/api/v1/market/tape/${venue}/${symbol}?limit=200`, { token });
      return r.status === 200 ? (r.body.trades as Record<string, string>[]) : null;
    });

  it('ETH.HL: an empty tape until the venue trades, then the simulator’s fill on the tape route, /ws/market and volume at price', async () => {
    await db.query(`delete from market_trades where venue = 'hyperliquid' and symbol = 'ETH.HL'`);
    ws = await openRisk(`${s.api.baseUrl.replace('http', 'ws')}/ws/market`, {});
    ws.send({ type: 'Subscribe', topics: ['trades:hyperliquid:ETH.HL', 'volumeAtPrice:hyperliquid:ETH.HL'] });
    expect(await ws.next((f) => f.type === 'Result')).toMatchObject({ ok: true });
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

  it('a prediction pair streams its book with an empty tape (no recorded prints to replay)', async () => {
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

/**
 * `VENUE_FEEDS=live` with Kalshi (worker/worker.ts): with the platform's read key (`KALSHI_FEED_KEY_ID`,
 * `KALSHI_FEED_PRIVATE_KEY`, registered with the simulator) the worker publishes the `*.KX` marks from Kalshi's
 * WebSocket API (here the simulator's `/trade-api/ws/v2`, the simulator pricing from its own recorded prices at one
 * fixed instant): the stored YES mark is the mid of the YES touch of `GET /markets/{ticker}/orderbook`, the stored
 * book the venue's, and it follows an order resting at the touch. The dev simulators under `VENUE_FEEDS=live` price
 * Kalshi from their own data and hand the worker a registered key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal, fmt } from '../../domain/decimal.js';
import { platformEm } from '../../db/orm.js';
import { readMark } from '../../db/marks.js';
import { KALSHI_SYMBOLS } from '../../domain/market/venues/kalshi.js';
import { startKalshiSimulator, type KalshiSimulator } from '../../simulators/kalshi.js';
import { startSimulators } from '../../simulators/index.js';
import { kalshiOwnMarks } from '../../simulators/kalshi-prices.js';
import { generateKalshiAgentKey, kalshiAuthHeaders } from '../../venues/kalshi/signing.js';
import { startStack, type Stack } from '../support/stack.js';
import { waitFor } from '../support/wait.js';

const [YES, NO] = KALSHI_SYMBOLS;
const TICKER = YES.venueSymbol!.split(':')[0];

/** Polls `ok` every 20 ms until it answers a value (rejects after `ms`). */
const until = <T>(ok: () => Promise<T | null | undefined | false>, ms = 15_000) =>
  waitFor(ok, Boolean, ms, 20) as Promise<T>;

type BookFp = { yes_dollars: string[][]; no_dollars: string[][] };

describe('VENUE_FEEDS=live: the worker follows Kalshi’s WebSocket API', () => {
  const at = () => 86_400_000;
  const key = generateKalshiAgentKey();
  let kx: KalshiSimulator;
  let s: Stack;
  const getBook = async () =>
    ((await (await fetch(`${kx.url}/markets/${TICKER}/orderbook`)).json()) as { orderbook_fp: BookFp }).orderbook_fp;

  beforeAll(async () => {
    kx = await startKalshiSimulator({ now: at, wsIntervalMs: 20 });
    s = await startStack({
      env: {
        MARK_FEED: 'replay',
        VENUE_FEEDS: 'live',
        KALSHI_API_URL: kx.url,
        KALSHI_FEED_KEY_ID: kx.registerKey('platform-market-data', key.publicKeyPem, { scopes: ['read'] }),
        KALSHI_FEED_PRIVATE_KEY: key.privateKeyPem,
        HYPERLIQUID_API_URL: 'http://127.0.0.1:9',
        ASTER_API_URL: 'http://127.0.0.1:9',
        POLYMARKET_API_URL: 'http://127.0.0.1:9',
      },
    });
  });
  afterAll(async () => {
    await s?.stop();
    await kx?.close();
  });

  it('publishes *.KX marks and books from the socket and follows its changes', async () => {
    const em = () => platformEm(s.orm);
    const book = await getBook();
    const bid = new Decimal(book.yes_dollars.at(-1)![0]);
    const ask = new Decimal(1).minus(book.no_dollars.at(-1)![0]);
    const t = await until(async () => {
      const m = await readMark(em(), 'kalshi', YES.symbol, 5_000);
      return m && m.mark.eq(bid.plus(ask).div(2)) ? m : null;
    });
    expect([fmt(t.book.bids[0].price), fmt(t.book.asks[0].price)]).toEqual([fmt(bid), fmt(ask)]);
    expect(fmt(t.book.bids[0].size)).toBe('1000');
    // The NO symbol's mark mirrors it.
    await until(async () => {
      const m = await readMark(em(), 'kalshi', NO.symbol, 5_000);
      return m && m.mark.eq(new Decimal(1).minus(t.mark)) ? m : null;
    });
    expect(kx.wsConnections()).toBe(1);

    // A YES bid resting at the touch: only the venue's book knows it, and the stored book follows.
    await kx.injectOrder('member-maker', { symbol: YES.symbol, side: 'buy', qty: '5', price: fmt(bid) });
    const moved = await until(async () => {
      const m = await readMark(em(), 'kalshi', YES.symbol, 5_000);
      return m && m.book.bids[0].size.eq(1005) ? m : null;
    });
    expect(fmt(moved.book.bids[0].price)).toBe(fmt(bid));
    expect((await getBook()).yes_dollars.at(-1)).toEqual([bid.toFixed(4), '1005.00']);
  });

  it('the dev simulators under VENUE_FEEDS=live price Kalshi from their own data and register a feed key', async () => {
    const sims = await startSimulators(() => async () => '0.01', { ownPrices: true });
    try {
      // The YES ask is the simulator's own YES mark rounded up (read again should the replay step between the reads).
      const own = kalshiOwnMarks(KALSHI_SYMBOLS);
      await until(async () => {
        const b = (
          (await (await fetch(`${sims.kalshi.url}/markets/${TICKER}/orderbook`)).json()) as { orderbook_fp: BookFp }
        ).orderbook_fp;
        const ask = new Decimal(1).minus(b.no_dollars.at(-1)![0]);
        return ask.eq(new Decimal((await own(YES.symbol))!).toDecimalPlaces(2, Decimal.ROUND_CEIL));
      });
      const { KALSHI_FEED_KEY_ID: keyId, KALSHI_FEED_PRIVATE_KEY: pem } = sims.env;
      expect(pem).toContain('-----BEGIN PRIVATE KEY-----');
      // The handed key signs for the simulator's socket (the portfolio routes accept it too: it is a registered read key).
      const path = new URL(`${sims.kalshi.url}/portfolio/balance`).pathname;
      const r = await fetch(`${sims.kalshi.url}/portfolio/balance`, {
        headers: kalshiAuthHeaders(keyId, pem, 'GET', path),
      });
      expect(r.status).toBe(200);
    } finally {
      await sims.stop();
    }
  });
});

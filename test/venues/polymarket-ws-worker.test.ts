/**
 * `VENUE_FEEDS=live` with Polymarket (worker/worker.ts): the worker publishes the `*.PM` marks from Polymarket's
 * CLOB market channel (here the simulator's `/ws/market`, the simulator pricing from its own recorded prices at
 * one fixed instant): the stored mark and book are `GET /book`'s, and follow the venue's book when an order rests
 * at the touch, while the Kalshi `*.KX` marks keep coming from the prediction replay.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal, fmt } from '../../domain/decimal.js';
import { platformEm } from '../../db/orm.js';
import { readMark } from '../../db/marks.js';
import { KALSHI_SYMBOLS } from '../../domain/market/venues/kalshi.js';
import { POLYMARKET_SYMBOLS } from '../../domain/market/venues/polymarket.js';
import { startPolymarketSimulator, type PolymarketSimulator } from '../../simulators/polymarket.js';
import { startSimulators } from '../../simulators/index.js';
import { polymarketOwnMarks } from '../../simulators/polymarket-prices.js';
import { startStack, type Stack } from '../support/stack.js';
import { waitFor } from '../support/wait.js';

const YES = POLYMARKET_SYMBOLS[0];

/** Polls `ok` every 20 ms until it answers a value (rejects after `ms`). */
const until = <T>(ok: () => Promise<T | null | undefined | false>, ms = 15_000) =>
  waitFor(ok, Boolean, ms, 20) as Promise<T>;

type Level = { price: string; size: string };
type Book = { bids: Level[]; asks: Level[] };

/** The mid of a `GET /book` answer's touch (best last on both sides). */
const bookMid = (b: Book) => new Decimal(b.bids.at(-1)!.price).plus(b.asks.at(-1)!.price).div(2);

describe('VENUE_FEEDS=live: the worker follows Polymarket’s market channel', () => {
  const at = () => 86_400_000;
  let pm: PolymarketSimulator;
  let s: Stack;
  /** When this file's stack started (Unix ms): live bars opening before its minute (1m) or hour (1h) are another file's. */
  let startedAt: number;
  const getBook = async () => (await (await fetch(`${pm.url}/book?token_id=${YES.venueSymbol}`)).json()) as Book;

  beforeAll(async () => {
    pm = await startPolymarketSimulator({ now: at, wsIntervalMs: 20 });
    startedAt = Date.now();
    s = await startStack({
      env: {
        MARK_FEED: 'replay',
        VENUE_FEEDS: 'live',
        POLYMARKET_API_URL: pm.url,
        HYPERLIQUID_API_URL: 'http://127.0.0.1:9',
        ASTER_API_URL: 'http://127.0.0.1:9',
      },
    });
  });
  afterAll(async () => {
    await s?.stop();
    await pm?.close();
  });

  it('publishes *.PM marks and books from the socket and follows its changes; *.KX keep the replay', async () => {
    const em = () => platformEm(s.orm);
    const book = await getBook();
    const t = await until(async () => {
      const m = await readMark(em(), 'polymarket', YES.symbol, 5_000);
      return m && m.mark.eq(bookMid(book)) ? m : null;
    });
    expect({
      bids: t.book.bids.map((l) => [fmt(l.price), fmt(l.size)]),
      asks: t.book.asks.map((l) => [fmt(l.price), fmt(l.size)]),
    }).toStrictEqual({
      bids: [...book.bids].reverse().map((l) => [fmt(new Decimal(l.price)), fmt(new Decimal(l.size))]),
      asks: [...book.asks].reverse().map((l) => [fmt(new Decimal(l.price)), fmt(new Decimal(l.size))]),
    });
    for (const spec of POLYMARKET_SYMBOLS) await until(() => readMark(em(), 'polymarket', spec.symbol, 5_000));
    expect(pm.wsConnections()).toBe(1);

    // An ask resting at the touch: only the venue's book knows it, and the stored book follows.
    const ask = book.asks.at(-1)!;
    await pm.injectOrder('0x00000000000000000000000000000000000000cc', {
      symbol: YES.symbol,
      side: 'sell',
      qty: '5',
      price: ask.price,
    });
    const grown = new Decimal(ask.size).plus(5);
    const moved = await until(async () => {
      const m = await readMark(em(), 'polymarket', YES.symbol, 5_000);
      return m && m.book.asks[0].size.eq(grown) ? m : null;
    });
    expect(fmt(moved.book.asks[0].price)).toBe(fmt(new Decimal(ask.price)));
    expect((await getBook()).asks.at(-1)).toEqual({ price: ask.price, size: grown.toFixed() });

    const kx = KALSHI_SYMBOLS[0];
    await until(() => readMark(em(), 'kalshi', kx.symbol, 5_000));
  });

  it('candles of a *.PM symbol continue its replayed bars with live bars that close at the venue’s mark', async () => {
    // The run shares one database: live bars another file's stack aggregated earlier would leave gaps before ours.
    await s.orm.em
      .fork()
      .getConnection()
      .execute(
        `delete from candles where venue = 'polymarket' and symbol = ? and live
            and ((interval = '1m' and open_time < ?) or (interval = '1h' and open_time < ?))`,
        [
          YES.symbol,
          new Date(Math.floor(startedAt / 60_000) * 60_000),
          new Date(Math.floor(startedAt / 3_600_000) * 3_600_000),
        ],
      );
    const { token } = await s.trader('readonly');
    const em = () => platformEm(s.orm);
    const mark = await until(() => readMark(em(), 'polymarket', YES.symbol, 5_000));
    const series = await until(async () => {
      const r = await s.call('GET', `/api/v1/market/candles/polymarket/${YES.symbol}?interval=1m&limit=3`, { token });
      const bars = r.body.bars as { openTime: string; close: string }[] | undefined;
      // the worker has aggregated a live bar once the answer names that source
      return r.status === 200 && String(r.body.source).includes('live:replay') && bars?.length ? r.body : null;
    });
    const bars = series.bars as { openTime: string; close: string }[];
    expect(bars.at(-1)!.close).toBe(fmt(mark.mark));
    // one continuous series: the replayed bars before the first live bar, then live ones (1 minute apart)
    expect(String(series.source).split('+')).toEqual(expect.arrayContaining(['live:replay']));
    const times = bars.map((b) => Date.parse(b.openTime));
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBe(60_000);
    const older = await s.call('GET', `/api/v1/market/candles/polymarket/${YES.symbol}?interval=1h&limit=48`, {
      token,
    });
    expect(older.status).toBe(200);
    expect(String(older.body.source).split('+')).toEqual(['replay:polymarket', 'live:replay']);
  });

  it('the dev simulators under VENUE_FEEDS=live price Polymarket from their own data, not from the store', async () => {
    const sims = await startSimulators(() => async () => '0.01', { ownPrices: true });
    try {
      // The simulator's book shows its own replayed price (read again should the replay step between the reads).
      const own = polymarketOwnMarks(POLYMARKET_SYMBOLS);
      await until(async () => {
        const b = (await (await fetch(`${sims.polymarket.url}/book?token_id=${YES.venueSymbol}`)).json()) as Book & {
          last_trade_price: string;
        };
        return b.last_trade_price === (await own(YES.symbol)) && b.bids.length + b.asks.length > 0;
      });
    } finally {
      await sims.stop();
    }
  });
});

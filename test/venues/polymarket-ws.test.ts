/**
 * The Polymarket simulator's CLOB market channel (simulators/polymarket-ws.ts) as a client of
 * `wss://ws-subscriptions-clob.polymarket.com/ws/market` sees it: on `{"assets_ids":[…],"type":"market"}` an array
 * of `book` events equal to `GET /book`; `price_change` per changed level when orders rest, are cancelled or fill,
 * which applied to the snapshot give `GET /book` again; `last_trade_price` per fill; `PING` → `PONG`; dynamic
 * subscribe/unsubscribe; without `markOf` the book carries the simulator's own liquidity around its own price.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Decimal } from '../../domain/decimal.js';
import { POLYMARKET_SYMBOLS } from '../../domain/market/venues/polymarket.js';
import { startPolymarketSimulator, type PolymarketSimulator } from '../../simulators/polymarket.js';
import { OWN_BOOK_DEPTH, polymarketOwnMarks } from '../../simulators/polymarket-prices.js';
import { waitFor } from '../support/wait.js';

const YES = POLYMARKET_SYMBOLS[0];
const TOKEN = YES.venueSymbol!;
const OTHER = POLYMARKET_SYMBOLS[1].venueSymbol!;

type Level = { price: string; size: string };
type Book = {
  market: string;
  asset_id: string;
  bids: Level[];
  asks: Level[];
  tick_size: string;
  last_trade_price: string;
};

/** Polls `ok` every 5 ms until it answers a value (rejects after `ms`). */
const until = <T>(ok: () => T | undefined | false, ms = 3_000) =>
  waitFor(async () => ok(), Boolean, ms, 5) as Promise<T>;

/** A client socket collecting every frame (JSON parsed; `PONG` as text). */
async function client(url: string) {
  const ws = new WebSocket(url);
  const frames: unknown[] = [];
  ws.on('message', (d: WebSocket.RawData) => {
    const t = d.toString();
    frames.push(t === 'PONG' ? t : JSON.parse(t));
  });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  return { ws, frames, send: (m: unknown) => ws.send(typeof m === 'string' ? m : JSON.stringify(m)) };
}

/** `GET /book`'s fields a `book` event repeats (timestamps and hashes are per moment). */
const bookFields = (b: Book) => ({
  market: b.market,
  asset_id: b.asset_id,
  bids: b.bids,
  asks: b.asks,
  tick_size: b.tick_size,
  last_trade_price: b.last_trade_price,
});

/** Applies `price_change` events of `token` to a book (venue order: best last on both sides). */
function apply(book: Book, events: { price_changes: (Level & { asset_id: string; side: string })[] }[]): Book {
  const bids = new Map(book.bids.map((l) => [l.price, l.size]));
  const asks = new Map(book.asks.map((l) => [l.price, l.size]));
  for (const e of events)
    for (const c of e.price_changes) {
      if (c.asset_id !== book.asset_id) continue;
      const side = c.side === 'BUY' ? bids : asks;
      if (c.size === '0') side.delete(c.price);
      else side.set(c.price, c.size);
    }
  const order = (m: Map<string, string>, desc: boolean) =>
    [...m]
      .map(([price, size]) => ({ price, size }))
      .sort((a, b) => new Decimal(a.price).cmp(b.price) * (desc ? -1 : 1));
  return { ...book, bids: order(bids, false), asks: order(asks, true) };
}

describe('Polymarket simulator: the CLOB market channel', () => {
  const marks = new Map([[YES.symbol, '0.5']]);
  const owner = '0x00000000000000000000000000000000000000aa';
  let sim: PolymarketSimulator;
  const restBook = async (token = TOKEN) => (await (await fetch(`${sim.url}/book?token_id=${token}`)).json()) as Book;

  beforeAll(async () => {
    sim = await startPolymarketSimulator({ markOf: async (s) => marks.get(s) ?? null, wsIntervalMs: 10 });
  });
  afterAll(async () => sim?.close());

  it('answers a subscription with book events equal to GET /book, PING with PONG', async () => {
    await sim.injectOrder(owner, { symbol: YES.symbol, side: 'buy', qty: '10', price: '0.3' });
    await sim.injectOrder(owner, { symbol: YES.symbol, side: 'sell', qty: '7', price: '0.7' });
    const c = await client(sim.wsUrl);
    try {
      expect(sim.wsUrl).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/ws\/market$/);
      c.send({ assets_ids: [TOKEN, 'not-a-token'], type: 'market' });
      const [snap] = await until(() => c.frames.length > 0 && c.frames);
      const rest = await restBook();
      expect(snap).toEqual([
        { event_type: 'book', ...bookFields(rest), timestamp: expect.any(String), hash: expect.any(String) },
      ]);
      expect(rest.bids).toEqual([{ price: '0.3', size: '10' }]);
      c.send('PING');
      expect(await until(() => c.frames.includes('PONG') && 'PONG')).toBe('PONG');
    } finally {
      c.ws.close();
    }
  });

  it('sends price_change per changed level and last_trade_price per fill; the changes rebuild GET /book', async () => {
    const c = await client(sim.wsUrl);
    try {
      c.send({ assets_ids: [TOKEN], type: 'market' });
      const [[snap]] = (await until(() => c.frames.length > 0 && c.frames)) as { event_type: string }[][];
      await sim.injectOrder(owner, { symbol: YES.symbol, side: 'buy', qty: '5', price: '0.45' });
      const changes = await until(() => {
        const pc = c.frames.filter((f) => (f as { event_type?: string }).event_type === 'price_change');
        return pc.length > 0 && pc;
      });
      expect(changes[0]).toEqual({
        event_type: 'price_change',
        market: expect.any(String),
        timestamp: expect.any(String),
        price_changes: [
          {
            asset_id: TOKEN,
            price: '0.45',
            size: '5',
            side: 'BUY',
            hash: expect.any(String),
            best_bid: '0.45',
            best_ask: '0.7',
          },
        ],
      });
      // The mark rises through the resting bid at 0.45 and the one at 0.3: both fill as makers at their limits.
      marks.set(YES.symbol, '0.2');
      await sim.poke();
      const trades = await until(() => {
        const t = c.frames.filter((f) => (f as { event_type?: string }).event_type === 'last_trade_price');
        return t.length === 2 && t;
      });
      expect(trades).toEqual(
        expect.arrayContaining(
          [
            ['0.45', '5'],
            ['0.3', '10'],
          ].map(([price, size]) => ({
            event_type: 'last_trade_price',
            asset_id: TOKEN,
            market: (snap as unknown as Book).market,
            price,
            size,
            side: 'SELL',
            fee_rate_bps: '0',
            timestamp: expect.stringMatching(/^\d{13}$/),
            transaction_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
          })),
        ),
      );
      const rest = await restBook();
      expect(rest.bids).toEqual([]);
      const pcs = () => c.frames.filter((f) => (f as { event_type?: string }).event_type === 'price_change');
      await until(() => pcs().length >= 2);
      const rebuilt = apply(snap as unknown as Book, pcs() as never);
      expect({ bids: rebuilt.bids, asks: rebuilt.asks }).toEqual({ bids: rest.bids, asks: rest.asks });
    } finally {
      c.ws.close();
      marks.set(YES.symbol, '0.5');
    }
  });

  it('subscribes and unsubscribes tokens on an open connection', async () => {
    const c = await client(sim.wsUrl);
    try {
      c.send({ assets_ids: [TOKEN], type: 'market' });
      await until(() => c.frames.length === 1);
      c.send({ assets_ids: [OTHER], operation: 'subscribe' });
      const [, more] = await until(() => c.frames.length === 2 && c.frames);
      expect(more).toEqual([expect.objectContaining({ event_type: 'book', ...bookFields(await restBook(OTHER)) })]);
      c.send({ assets_ids: [TOKEN], operation: 'unsubscribe' });
      c.send('PING');
      await until(() => c.frames.includes('PONG'));
      await sim.injectOrder(owner, { symbol: YES.symbol, side: 'sell', qty: '3', price: '0.8' });
      await new Promise((r) => setTimeout(r, 80));
      expect(c.frames.filter((f) => (f as { event_type?: string }).event_type === 'price_change')).toEqual([]);
    } finally {
      c.ws.close();
    }
  });

  it('drops, counts and silences connections; other paths are refused', async () => {
    const c = await client(sim.wsUrl);
    await until(() => sim.wsConnections() === 1);
    sim.silenceWs(true);
    c.send('PING');
    await new Promise((r) => setTimeout(r, 50));
    expect(c.frames).toEqual([]);
    sim.silenceWs(false);
    const closed = new Promise((r) => c.ws.once('close', r));
    expect(sim.dropWsConnections()).toBe(1);
    await closed;
    await until(() => sim.wsConnections() === 0);
    await expect(client(sim.wsUrl.replace('/ws/market', '/ws'))).rejects.toThrow();
  });

  it('without markOf, books show the simulator’s own liquidity around its recorded price', async () => {
    const at = () => 86_400_000;
    const own = await startPolymarketSimulator({ now: at });
    try {
      const price = new Decimal((await polymarketOwnMarks(POLYMARKET_SYMBOLS, { now: at })(YES.symbol))!);
      const b = (await (await fetch(`${own.url}/book?token_id=${TOKEN}`)).json()) as Book;
      const bid = new Decimal(b.bids.at(-1)!.price);
      const ask = new Decimal(b.asks.at(-1)!.price);
      expect(bid.lt(price) && ask.gt(price)).toBe(true);
      expect(ask.sub(bid).lte(new Decimal(YES.tickSize).mul(2))).toBe(true);
      expect([b.bids.at(-1)!.size, b.asks.at(-1)!.size]).toEqual([OWN_BOOK_DEPTH, OWN_BOOK_DEPTH]);
      expect(b.last_trade_price).toBe(price.toFixed());
    } finally {
      await own.close();
    }
  });
});

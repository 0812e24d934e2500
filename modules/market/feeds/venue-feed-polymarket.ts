/**
 * The live mark feed of Polymarket symbols (docs/venues.md §3, docs/architecture.md "Market data"): one
 * WebSocket to Polymarket's CLOB market channel (`wss://ws-subscriptions-clob.polymarket.com/ws/market`, or the
 * simulator's `/ws/market`). On every (re)connection `{"assets_ids":[token ids],"type":"market"}` subscribes every
 * `*.PM` symbol's outcome token (`venueSymbol`). The channel (docs.polymarket.com "Market Channel"):
 * - `book` (`{event_type, asset_id, market, bids, asks, timestamp, hash, …}`, levels `{price, size}`; a JSON array
 *   of them on subscribing): the token's whole book, which replaces the one held;
 * - `price_change` (`{event_type, market, price_changes: [{asset_id, price, size, side, hash, best_bid, best_ask}],
 *   timestamp}`): per level its new aggregate size (`"0"` removes it), `side` `BUY` a bid, `SELL` an ask, applied to
 *   the held book. The channel has no sequence number (each change's `hash` is the order's or the book's, not a
 *   chain), so a missed change is recognised by what the venue does send: a change for a token without a held book,
 *   or a book whose touch after the change differs from the `best_bid`/`best_ask` the change carries (an empty
 *   side: `"0"`, or outside (0, 1)). Either drops the held book and resyncs: `{"assets_ids":[id],
 *   "operation":"unsubscribe"}` then `…"subscribe"}` on the same connection, which the venue answers with a fresh
 *   `book`;
 * - `last_trade_price` (`{asset_id, price, size, side, timestamp, transaction_hash, …}`): a print (id = the
 *   settlement transaction hash, side = the taker's, `ts` the Unix ms timestamp);
 * - `tick_size_change`: read and ignored (the book's prices carry their own precision).
 * Keep-alive: the text `PING` every `pingMs` (default 5 s, the venue asks for at least every 10 s), answered with
 * the text `PONG`. A `PONG` confirms every held book as current (the channel pushes every change, in order on
 * the connection, so a quiet book is still the venue's while the venue answers: it does not turn stale), and
 * resyncs every subscribed token that still has no book (a snapshot that never came). Lifecycle, reconnection, staleness and the tick loop are the shared
 * {@link VenueMarkFeed} (venue-feed.ts); mark = the mid of the touch in probability units (USD per share, 0–1).
 * Prices and sizes go from the venue's decimal strings straight to Decimal.
 */
import { Decimal } from '../../../domain/decimal.js';
import type { BookLevel } from '../../../domain/market/types.js';
import { socketUrlOf, VenueMarkFeed, type FrameSink, type VenueFeedOptions, type VenueProtocol } from './venue-feed.js';

/** Options of {@link PolymarketMarkFeed}: `url` as {@link polymarketWsUrl} builds it, `symbols` the `*.PM` ones (followed by `venueSymbol`, the token id). */
export type PolymarketMarkFeedOptions = VenueFeedOptions;

/**
 * The market-channel URL for a Polymarket CLOB REST base URL: the venue's `https://clob.<host>` →
 * `wss://ws-subscriptions-clob.<host>/ws/market` (`https://clob.polymarket.com` →
 * `wss://ws-subscriptions-clob.polymarket.com/ws/market`); any other host (the simulator) keeps its host and
 * port, `http` → `ws`, path `/ws/market`.
 */
export const polymarketWsUrl = (apiUrl: string): string =>
  socketUrlOf(apiUrl, '/ws/market', (h) => (h.startsWith('clob.') ? `ws-subscriptions-${h}` : h));

/** A level as the venue sends it. */
interface WireLevel {
  price: string;
  size: string;
}

/** A held book: price (canonical decimal text) → size, per side. */
interface HeldBook {
  bids: Map<string, Decimal>;
  asks: Map<string, Decimal>;
}

const ONE = new Decimal(1);

/** A side of a held book as levels, best first (bids by price down, asks up). */
function sorted(side: Map<string, Decimal>, bids: boolean): BookLevel[] {
  const out = [...side.entries()].map(([p, size]) => ({ price: new Decimal(p), size }));
  return out.sort((a, b) => (bids ? b.price.cmp(a.price) : a.price.cmp(b.price)));
}

/** A touch price the venue reports (`best_bid`/`best_ask`), null for an empty side (`"0"`, blank, or outside (0, 1)). */
function touchOf(v: unknown): Decimal | null {
  if (typeof v !== 'string' || v === '') return null;
  const d = new Decimal(v);
  return d.gt(0) && d.lt(ONE) ? d : null;
}

const same = (a: Decimal | null | undefined, b: Decimal | null) =>
  (a ?? null) === null ? b === null : b !== null && a!.eq(b);

/** Polymarket's side of the feed (module doc); holds the books between frames. */
function polymarketProtocol(): VenueProtocol {
  const books = new Map<string, HeldBook>();
  let subscribed: readonly string[] = [];

  const resync = (id: string, sink: FrameSink) => {
    books.delete(id);
    sink.send(JSON.stringify({ assets_ids: [id], operation: 'unsubscribe' }));
    sink.send(JSON.stringify({ assets_ids: [id], operation: 'subscribe' }));
  };
  const report = (id: string, held: HeldBook, sink: FrameSink) =>
    sink.book(id, { bids: sorted(held.bids, true), asks: sorted(held.asks, false) });

  function onEvent(msg: Record<string, unknown>, sink: FrameSink): void {
    switch (msg.event_type) {
      case 'book': {
        const id = String(msg.asset_id);
        const side = (levels: unknown) =>
          new Map((levels as WireLevel[]).map((l) => [new Decimal(l.price).toFixed(), new Decimal(l.size)]));
        const held = { bids: side(msg.bids), asks: side(msg.asks) };
        books.set(id, held);
        return report(id, held, sink);
      }
      case 'price_change': {
        const byAsset = new Map<string, Record<string, unknown>[]>();
        for (const c of msg.price_changes as Record<string, unknown>[]) {
          const id = String(c.asset_id);
          byAsset.set(id, [...(byAsset.get(id) ?? []), c]);
        }
        for (const [id, changes] of byAsset) {
          const held = books.get(id);
          if (!held) {
            resync(id, sink);
            continue;
          }
          for (const c of changes) {
            const side = c.side === 'BUY' ? held.bids : held.asks;
            const price = new Decimal(String(c.price)).toFixed();
            const size = new Decimal(String(c.size));
            if (size.isZero()) side.delete(price);
            else side.set(price, size);
          }
          const last = changes.at(-1)!;
          const bid = sorted(held.bids, true)[0]?.price;
          const ask = sorted(held.asks, false)[0]?.price;
          if (!same(bid, touchOf(last.best_bid)) || !same(ask, touchOf(last.best_ask))) resync(id, sink);
          else report(id, held, sink);
        }
        return;
      }
      case 'last_trade_price':
        return sink.print(String(msg.asset_id), {
          tradeId:
            typeof msg.transaction_hash === 'string'
              ? msg.transaction_hash
              : `${String(msg.timestamp)}:${String(msg.price)}:${String(msg.size)}`,
          ts: Number(msg.timestamp),
          price: new Decimal(String(msg.price)),
          size: new Decimal(String(msg.size)),
          side: msg.side === 'SELL' ? 'sell' : 'buy',
        });
      case 'tick_size_change':
        return;
      default:
        if (msg.error !== undefined) sink.error(new Error(`polymarket ws: ${JSON.stringify(msg)}`));
    }
  }

  return {
    name: 'polymarket',
    keyOf: (spec) => {
      if (!spec.venueSymbol) throw new Error(`${spec.symbol} has no venue symbol`);
      return spec.venueSymbol;
    },
    subscribe: (keys) => {
      books.clear(); // a new connection: books come again as snapshots
      subscribed = keys;
      return [JSON.stringify({ assets_ids: keys, type: 'market' })];
    },
    ping: { text: 'PING' },
    onText(text: string, sink: FrameSink) {
      if (text !== 'PONG') return false;
      for (const id of subscribed) {
        const held = books.get(id);
        if (held) report(id, held, sink);
        else resync(id, sink);
      }
      return true;
    },
    onFrame(raw: unknown, sink: FrameSink) {
      for (const msg of Array.isArray(raw) ? raw : [raw]) onEvent(msg as Record<string, unknown>, sink);
    },
  };
}

/**
 * A live feed of Polymarket marks (module doc; lifecycle in {@link VenueMarkFeed}). `start()` connects (and
 * keeps reconnecting); `stop()` closes the socket and waits for `onTick` calls in flight.
 */
export class PolymarketMarkFeed extends VenueMarkFeed {
  /** @throws Error on a symbol without `venueSymbol`, a duplicate one or a non-positive period. */
  constructor(opts: PolymarketMarkFeedOptions) {
    super({ ...opts, pingMs: opts.pingMs ?? 5_000 }, polymarketProtocol());
  }
}

/**
 * The live mark feed of Kalshi symbols (docs/venues.md §4.4, docs/architecture.md "Market data"): one WebSocket to
 * Kalshi's WebSocket API v2 (`wss://external-api-ws.kalshi.com/trade-api/ws/v2`, or the simulator's
 * `/trade-api/ws/v2`). Kalshi authenticates the upgrade itself, even for market data: every (re)connection carries
 * `KALSHI-ACCESS-KEY`, a fresh `KALSHI-ACCESS-TIMESTAMP` (Unix ms) and `KALSHI-ACCESS-SIGNATURE` (RSA-PSS-SHA256 over
 * `timestamp + "GET" + "/trade-api/ws/v2"`, venues/kalshi/signing.ts) from the platform's read key
 * (`KALSHI_FEED_KEY_ID`, `KALSHI_FEED_PRIVATE_KEY`, config.ts). On every (re)connection it sends
 * `{"id":1,"cmd":"subscribe","params":{"channels":["orderbook_delta"],"market_tickers":[…]}}` and the same for
 * `trade`, for the market tickers of the followed `*.KX` symbols (`venueSymbol` `<ticker>:<yes|no>`). Frames
 * (docs.kalshi.com "WebSocket API", its AsyncAPI description), all fixed-point strings, read straight to Decimal:
 * - `subscribed` (`{id, msg: {channel, sid}}`): the subscription's id, which every later frame of it carries;
 * - `orderbook_snapshot` (`{sid, seq, msg: {market_ticker, yes_dollars_fp, no_dollars_fp}}`, levels
 *   `[price_dollars, count_fp]`): the market's whole book of YES bids and NO bids, replacing the one held;
 * - `orderbook_delta` (`{sid, seq, msg: {market_ticker, price_dollars, delta_fp, side}}`): the signed change of one
 *   level's contracts (a level at 0 is gone). `seq` counts each subscription's frames one by one: a frame whose seq
 *   is not the previous + 1, or a delta taking a level below 0, drops the books of that subscription and resyncs it
 *   — `{"cmd":"unsubscribe","params":{"sids":[sid]}}` then a new subscribe of its tickers on the same connection,
 *   answered with a new sid and fresh snapshots (frames of the old sid still in flight are ignored);
 * - `trade` (`{msg: {trade_id, market_ticker, yes_price_dollars, no_price_dollars, count_fp, taker_side, ts}}`, `ts`
 *   Unix s, `ts_ms` when sent): a print of each side's symbol (the YES symbol at the YES price, bought when the
 *   taker bought YES; the NO symbol at the NO price, the other way round);
 * - `error` (`{id, msg: {code, msg}}`): reported; `unsubscribed` and others: ignored.
 * Kalshi's book holds bids only. A `*.KX` symbol is one side of its market: the YES symbol's bids are the YES bids
 * and its asks are 1 − the NO bids (buying YES at p is selling NO at 1 − p), the NO symbol's book is the mirror; mark
 * = the mid of the symbol's touch in probability units (USD per contract, 0–1).
 * Keep-alive: Kalshi pings every 10 s (answered by `ws`); the feed sends a WebSocket ping frame every `pingMs`
 * (default 5 s). Kalshi pushes only changes, in order: a pong confirms every held book as current (a quiet market does
 * not turn stale while the venue answers), resyncs a subscription that still has no book (a snapshot that never
 * came) and asks again for one the venue never confirmed; a late second confirmation of a market's channel is
 * unsubscribed at once (one subscription per market and channel). Lifecycle, reconnection, staleness and the tick
 * loop are the shared {@link VenueMarkFeed} (venue-feed.ts).
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { Decimal } from '../../../domain/decimal.js';
import type { BookLevel } from '../../../domain/market/types.js';
import { kalshiAuthHeaders } from '../../../venues/kalshi/signing.js';
import { socketUrlOf, VenueMarkFeed, type FrameSink, type VenueFeedOptions, type VenueProtocol } from './venue-feed.js';

/** The WebSocket path of Kalshi's API v2 (also the path the handshake signature covers). */
export const KALSHI_WS_PATH = '/trade-api/ws/v2';

/** The platform's Kalshi read key: the API key id (a UUID) and its RSA private key (PKCS#8 or PKCS#1 PEM). */
export interface KalshiFeedKey {
  keyId: string;
  privateKeyPem: string;
}

/**
 * Options of {@link KalshiMarkFeed}: `url` as {@link kalshiWsUrl} builds it, `symbols` the `*.KX` ones (followed by
 * `venueSymbol`, `<ticker>:<yes|no>`), `key` the read key that signs each handshake.
 */
export type KalshiMarkFeedOptions = VenueFeedOptions & { key: KalshiFeedKey };

/**
 * The WebSocket URL for a Kalshi REST base URL (`KALSHI_API_URL`): the base path's `/trade-api/v2` becomes
 * `/trade-api/ws/v2`, `https` → `wss` (else `ws`), and Kalshi's REST host `external-api.<domain>` streams from
 * `external-api-ws.<domain>` (`https://external-api.kalshi.com/trade-api/v2` →
 * `wss://external-api-ws.kalshi.com/trade-api/ws/v2`); any other host (`api.elections.kalshi.com`, the
 * simulator) keeps its host and port.
 */
export const kalshiWsUrl = (apiUrl: string): string =>
  socketUrlOf(apiUrl.replace(/\/trade-api\/v2\/*$/, '').replace(/\/+$/, ''), KALSHI_WS_PATH, (h) =>
    h.startsWith('external-api.') ? `external-api-ws.${h.slice('external-api.'.length)}` : h,
  );

/** A level as Kalshi sends it: `[price_dollars, count_fp]`. */
type WireLevel = [string, string];

/** A held market book: price (canonical decimal text) → contracts, per side (bids of YES, bids of NO). */
interface HeldBook {
  yes: Map<string, Decimal>;
  no: Map<string, Decimal>;
}

/** One subscription of the connection: its channel, its market tickers and the last seq it carried. */
interface Subscription {
  channel: string;
  tickers: string[];
  lastSeq: number | null;
}

const ONE = new Decimal(1);
const SIDES = ['yes', 'no'] as const;
/** The channels followed: books, and trades as prints. */
const CHANNELS = ['orderbook_delta', 'trade'] as const;
type Side = (typeof SIDES)[number];
const OTHER: Record<Side, Side> = { yes: 'no', no: 'yes' };

/** A side's bids as levels, best (highest) first. */
const bidsOf = (side: Map<string, Decimal>): BookLevel[] =>
  [...side.entries()].map(([p, size]) => ({ price: new Decimal(p), size })).sort((a, b) => b.price.cmp(a.price));

/** A side symbol's book: its own bids, and asks at 1 − the other side's bids (best, lowest, first). */
function bookOf(held: HeldBook, side: Side): { bids: BookLevel[]; asks: BookLevel[] } {
  return {
    bids: bidsOf(held[side]),
    asks: bidsOf(held[OTHER[side]]).map((l) => ({ price: ONE.minus(l.price), size: l.size })),
  };
}

/** Kalshi's side of the feed (module doc); holds the books and subscriptions of the current connection. */
function kalshiProtocol(key: { keyId: string; privateKey: KeyObject }, url: string): VenueProtocol {
  const signedPath = new URL(url).pathname;
  const books = new Map<string, HeldBook>();
  const subs = new Map<number, Subscription>();
  /** Commands sent and not yet answered: id → the subscription asked for. */
  const pending = new Map<number, { channel: string; tickers: string[] }>();
  let nextId = 1;
  /** The market tickers the connection follows. */
  let followed: string[] = [];

  const command = (cmd: string, params: Record<string, unknown>) => JSON.stringify({ id: nextId++, cmd, params });
  const subscribe = (channel: string, tickers: string[]) => {
    pending.set(nextId, { channel, tickers });
    return command('subscribe', { channels: [channel], market_tickers: tickers });
  };
  const report = (ticker: string, sink: FrameSink) => {
    const held = books.get(ticker);
    if (held) for (const side of SIDES) sink.book(`${ticker}:${side}`, bookOf(held, side));
  };
  const resync = (sid: number, sink: FrameSink) => {
    const sub = subs.get(sid);
    if (!sub) return;
    subs.delete(sid);
    for (const t of sub.tickers) books.delete(t);
    sink.send(command('unsubscribe', { sids: [sid] }));
    sink.send(subscribe(sub.channel, sub.tickers));
  };
  const levels = (wire: unknown) =>
    new Map(((wire ?? []) as WireLevel[]).map(([p, c]) => [new Decimal(p).toFixed(), new Decimal(c)]));

  function onBook(frame: Record<string, unknown>, msg: Record<string, unknown>, sink: FrameSink): void {
    const sid = Number(frame.sid);
    const sub = subs.get(sid);
    if (!sub) return; // a frame of a subscription dropped for a resync, still in flight
    const seq = Number(frame.seq);
    if (sub.lastSeq !== null && seq !== sub.lastSeq + 1) return resync(sid, sink);
    sub.lastSeq = seq;
    const ticker = String(msg.market_ticker);
    if (frame.type === 'orderbook_snapshot') {
      books.set(ticker, { yes: levels(msg.yes_dollars_fp), no: levels(msg.no_dollars_fp) });
      return report(ticker, sink);
    }
    const held = books.get(ticker);
    const side = msg.side as Side;
    if (!held || !SIDES.includes(side)) return resync(sid, sink);
    const price = new Decimal(String(msg.price_dollars)).toFixed();
    const size = (held[side].get(price) ?? new Decimal(0)).plus(new Decimal(String(msg.delta_fp)));
    if (size.isNeg()) return resync(sid, sink);
    if (size.isZero()) held[side].delete(price);
    else held[side].set(price, size);
    report(ticker, sink);
  }

  function onTrade(msg: Record<string, unknown>, sink: FrameSink): void {
    const ticker = String(msg.market_ticker);
    const ts = typeof msg.ts_ms === 'number' ? msg.ts_ms : Number(msg.ts) * 1000;
    for (const side of SIDES)
      sink.print(`${ticker}:${side}`, {
        tradeId: String(msg.trade_id),
        ts,
        price: new Decimal(String(msg[`${side}_price_dollars`])),
        size: new Decimal(String(msg.count_fp)),
        side: msg.taker_side === side ? 'buy' : 'sell',
      });
  }

  return {
    name: 'kalshi',
    keyOf: (spec) => {
      if (!spec.venueSymbol || !/^.+:(yes|no)$/.test(spec.venueSymbol))
        throw new Error(`${spec.symbol} has no venue symbol <ticker>:<yes|no>`);
      return spec.venueSymbol;
    },
    subscribe: (keys) => {
      books.clear(); // a new connection: books come again as snapshots, under new sids
      subs.clear();
      pending.clear();
      nextId = 1;
      followed = [...new Set(keys.map((k) => k.replace(/:(yes|no)$/, '')))];
      return CHANNELS.map((channel) => subscribe(channel, followed));
    },
    ping: 'frame',
    handshakeHeaders: () => kalshiAuthHeaders(key.keyId, key.privateKey, 'GET', signedPath),
    onPong(sink) {
      for (const channel of CHANNELS) {
        const covered = new Set<string>();
        for (const [sid, sub] of subs) {
          if (sub.channel !== channel) continue;
          for (const t of sub.tickers) covered.add(t);
          if (channel !== 'orderbook_delta') continue;
          if (sub.tickers.every((t) => books.has(t))) for (const t of sub.tickers) report(t, sink);
          else resync(sid, sink);
        }
        // A subscription the venue never confirmed (its answer lost while the venue was stuck): asked again.
        const orphans = followed.filter((t) => !covered.has(t));
        if (orphans.length) sink.send(subscribe(channel, orphans));
      }
    },
    onFrame(raw: unknown, sink: FrameSink) {
      const frame = raw as Record<string, unknown>;
      const msg = (frame.msg ?? {}) as Record<string, unknown>;
      switch (frame.type) {
        case 'subscribed': {
          const asked = pending.get(Number(frame.id));
          pending.delete(Number(frame.id));
          if (!asked) return;
          // A late answer to a subscription asked again meanwhile: one subscription per market and channel, or
          // every delta would be applied twice.
          const taken = [...subs.values()].some(
            (sub) => sub.channel === asked.channel && sub.tickers.some((t) => asked.tickers.includes(t)),
          );
          if (taken) sink.send(command('unsubscribe', { sids: [Number(msg.sid)] }));
          else subs.set(Number(msg.sid), { ...asked, lastSeq: null });
          return;
        }
        case 'orderbook_snapshot':
        case 'orderbook_delta':
          return onBook(frame, msg, sink);
        case 'trade':
          return onTrade(msg, sink);
        case 'error':
          pending.delete(Number(frame.id));
          return sink.error(
            new Error(`kalshi ws: error ${String(msg.code)} ${String(msg.msg)} (command ${String(frame.id)})`),
          );
        default:
          return;
      }
    },
  };
}

/**
 * A live feed of Kalshi marks (module doc; lifecycle in {@link VenueMarkFeed}). `start()` connects (and keeps
 * reconnecting, each handshake signed afresh); `stop()` closes the socket and waits for `onTick` calls in flight.
 */
export class KalshiMarkFeed extends VenueMarkFeed {
  /**
   * @throws Error on a symbol without a `<ticker>:<yes|no>` venue symbol, a duplicate one, a non-positive period, or
   *   a private key that is not PEM.
   */
  constructor(opts: KalshiMarkFeedOptions) {
    const { key, ...rest } = opts;
    super(
      { ...rest, pingMs: opts.pingMs ?? 5_000 },
      kalshiProtocol({ keyId: key.keyId, privateKey: createPrivateKey(key.privateKeyPem) }, opts.url),
    );
  }
}

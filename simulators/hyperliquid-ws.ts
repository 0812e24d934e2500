/**
 * The Hyperliquid simulator's public WebSocket (docs/venues.md §1.8), at `/ws` on the simulator's
 * port, as the venue serves `wss://api.hyperliquid.xyz/ws`. Frames are JSON text:
 * - `{"method":"subscribe","subscription":S}` → `{"channel":"subscriptionResponse","data":{"method":"subscribe","subscription":S}}`
 *   (S echoed as sent), then at once a snapshot, then an update whenever the data changes (checked every
 *   `intervalMs`), and the unchanged data again every `resendMs` (the venue sends a listed coin's book every few
 *   seconds at least; the SDK documents 20 levels every 5 s). S is one of:
 *   - `{"type":"l2Book","coin":C}` (`nSigFigs`/`mantissa` null or absent, `fast` absent or false): `{"channel":"l2Book","data":{coin,time,levels:[bids,asks]}}`,
 *     levels `{px,sz,n}` — the same book `POST /info` `l2Book` answers (synthetic depth around the mark plus the resting orders);
 *   - `{"type":"trades","coin":C}`: `{"channel":"trades","data":[{coin,side,px,sz,time,hash,tid,users}]}`, one frame per
 *     fill of the simulator (its own matches: `users` = [buyer, seller], the synthetic book's side is the zero address);
 *     the snapshot is the coin's recent fills (none sent when there are none, as an empty array names no coin);
 *   - `{"type":"allMids"}` (`dex` absent or `""`): `{"channel":"allMids","data":{"mids":{coin: mid}}}`.
 * - `{"method":"unsubscribe","subscription":S}` → the same echo with `"method":"unsubscribe"`.
 * - `{"method":"ping"}` → `{"channel":"pong"}`.
 * - Errors, as the venue words them: `{"channel":"error","data":"Invalid subscription {…}"}` (unknown type or coin,
 *   aggregation asked), `"Already subscribed: {…}"`, `"Already unsubscribed: {…}"`, and for a frame that is no request
 *   `"Error parsing JSON into valid websocket request: …"`.
 * Not imitated: `post` requests over the socket, the user channels (`userFills`, `orderUpdates`, …), `bbo`,
 * `candle`, `activeAssetCtx`, book aggregation and `fast` books, the venue's limits (1000 subscriptions, idle close
 * after 60 s).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { socketConnections } from './harness.js';
import type { AllMidsEvent, L2BookEvent, TradesEvent } from '@nktkas/hyperliquid/api/subscription';
import { specOfCoin } from '../venues/hyperliquid/wire.js';

/** Where the socket takes its data from: the simulator's own books and mids (USD prices, sizes in coins). */
export interface HyperliquidWsSource {
  /** The current `l2Book` of `coin` (null for a coin the simulator does not list). */
  book(coin: string): Promise<L2BookEvent | null>;
  /** The current mids of every coin with a mark (coin → decimal string). */
  mids(): Promise<AllMidsEvent['mids']>;
  /** The coin's recent fills, oldest first, as `trades` lists them (the snapshot after a subscribe). */
  recentTrades(coin: string): TradesEvent;
}

/** The socket side of the simulator: attach `upgrade` to the HTTP server; `publishTrades` after each fill. */
export interface HyperliquidWs {
  /** Handles an HTTP upgrade: `/ws` becomes a socket, any other path is refused (the socket destroyed). */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Sends `trades` (all of one coin, non-empty) to every subscriber of that coin's trades. */
  publishTrades(trades: TradesEvent): void;
  /** Closes every open socket abruptly (no close frame: a dropped connection); answers how many were open. */
  dropConnections(): number;
  /**
   * `true`: the sockets stay open but nothing more is sent on them (a stuck venue: no data, no pong, no answer);
   * `false`: sending resumes, every subscription's data sent again at the next check.
   */
  silence(on: boolean): void;
  /** Every frame sent leaves `ms` late, in order, and handshakes are answered `ms` late (harness.ts `SimulatorSocket.lag`). */
  lag(ms: number): void;
  /** Open sockets now. */
  connections(): number;
  /** Drops every socket and stops the update timer. */
  close(): Promise<void>;
}

/** A subscription the simulator serves, as parsed from the request. */
type Sub = { type: 'l2Book'; coin: string } | { type: 'trades'; coin: string } | { type: 'allMids' };

/** One subscription of one socket: what was asked (echoed verbatim) and the last data sent (JSON, to send changes only). */
interface Held {
  sub: Sub;
  asked: unknown;
  last: string | null;
  /** When the data was last sent (Unix ms). */
  sentMs: number;
}

/** Parses a subscription object (module doc), or null when the simulator does not serve it. */
function parseSub(s: unknown): Sub | null {
  if (!s || typeof s !== 'object') return null;
  const o = s as Record<string, unknown>;
  if (o.type === 'allMids') return o.dex === undefined || o.dex === '' || o.dex === null ? { type: 'allMids' } : null;
  if (o.type !== 'l2Book' && o.type !== 'trades') return null;
  if (typeof o.coin !== 'string' || !specOfCoin(o.coin)) return null;
  if (o.type === 'l2Book' && (o.nSigFigs != null || o.mantissa != null || (o.fast != null && o.fast !== false)))
    return null;
  return { type: o.type, coin: o.coin };
}

/** The identity of a subscription on a socket (`l2Book:BTC`, `trades:BTC`, `allMids`). */
const keyOf = (s: Sub): string => (s.type === 'allMids' ? s.type : `${s.type}:${s.coin}`);

/**
 * The simulator's WebSocket (module doc) over `source`; book and mid changes are looked for every
 * `intervalMs` (ms, default 500: the venue's fast `l2Book` cadence) while a socket is open, and unchanged
 * data is sent again after `resendMs` (ms, default 5 000).
 */
export function hyperliquidWs(
  source: HyperliquidWsSource,
  opts: { intervalMs?: number; resendMs?: number } = {},
): HyperliquidWs {
  const intervalMs = opts.intervalMs ?? 500;
  const resendMs = opts.resendMs ?? 5_000;
  let silenced = false;

  const send = (ws: WebSocket, channel: string, data?: unknown) => {
    if (ws.readyState === ws.OPEN && !silenced)
      ws.send(JSON.stringify(data === undefined ? { channel } : { channel, data }));
  };

  /** The data of a book or mids subscription now, or null when there is none (a coin without a book). */
  async function current(sub: Sub): Promise<{ channel: string; data: unknown; same: string } | null> {
    if (sub.type === 'allMids') {
      const mids = await source.mids();
      return { channel: 'allMids', data: { mids } satisfies AllMidsEvent, same: JSON.stringify(mids) };
    }
    if (sub.type !== 'l2Book') return null;
    const book = await source.book(sub.coin);
    return book && { channel: 'l2Book', data: book, same: JSON.stringify(book.levels) };
  }

  /** Sends `held`'s data when it changed since last sent (always on the first call) or was last sent `resendMs` ago. */
  async function refresh(ws: WebSocket, held: Held): Promise<void> {
    if (silenced) return;
    const now = await current(held.sub);
    if (!now || (now.same === held.last && Date.now() - held.sentMs < resendMs)) return;
    held.last = now.same;
    held.sentMs = Date.now();
    send(ws, now.channel, now.data);
  }

  /** One pass over every subscription; a pass still running when the next is due makes that one skip. */
  let ticking = false;
  async function tick(): Promise<void> {
    if (ticking) return;
    ticking = true;
    try {
      for (const [ws, mine] of subs) for (const held of mine.values()) await refresh(ws, held);
    } finally {
      ticking = false;
    }
  }

  async function onMessage(ws: WebSocket, raw: string): Promise<void> {
    let msg: { method?: unknown; subscription?: unknown };
    try {
      msg = JSON.parse(raw) as typeof msg;
      if (!msg || typeof msg !== 'object') throw new Error('not an object');
    } catch (err) {
      send(ws, 'error', `Error parsing JSON into valid websocket request: ${(err as Error).message}`);
      return;
    }
    if (msg.method === 'ping') return send(ws, 'pong');
    if (msg.method !== 'subscribe' && msg.method !== 'unsubscribe') {
      send(ws, 'error', `Error parsing JSON into valid websocket request: ${raw}`);
      return;
    }
    const echoed = JSON.stringify(msg.subscription ?? null);
    const sub = parseSub(msg.subscription);
    if (!sub) return send(ws, 'error', `Invalid subscription ${echoed}`);
    const mine = subs.get(ws);
    if (!mine) return;
    const key = keyOf(sub);
    if (msg.method === 'unsubscribe') {
      if (!mine.delete(key)) return send(ws, 'error', `Already unsubscribed: ${echoed}`);
      return send(ws, 'subscriptionResponse', { method: 'unsubscribe', subscription: msg.subscription });
    }
    if (mine.has(key)) return send(ws, 'error', `Already subscribed: ${echoed}`);
    const held: Held = { sub, asked: msg.subscription, last: null, sentMs: 0 };
    mine.set(key, held);
    send(ws, 'subscriptionResponse', { method: 'subscribe', subscription: held.asked });
    if (sub.type === 'trades') {
      const recent = source.recentTrades(sub.coin);
      if (recent.length) send(ws, 'trades', recent);
    } else await refresh(ws, held);
  }

  const sockets = socketConnections<Map<string, Held>>({
    accepts: (path) => path === '/ws',
    intervalMs,
    tick,
    open(ws) {
      // Requests are answered in order: each waits for the one before it.
      let chain = Promise.resolve();
      ws.on('message', (data) => {
        const text = Buffer.isBuffer(data) ? data.toString('utf8') : String(data);
        chain = chain.then(() => onMessage(ws, text)).catch(() => undefined);
      });
      return new Map();
    },
  });
  const subs = sockets.conns;

  return {
    upgrade: sockets.upgrade,
    publishTrades(trades) {
      const coin = trades[0]?.coin;
      if (coin === undefined) return;
      for (const [ws, mine] of subs) if (mine.has(`trades:${coin}`)) send(ws, 'trades', trades);
    },
    dropConnections: sockets.dropConnections,
    silence(on) {
      silenced = on;
      if (!on) for (const mine of subs.values()) for (const held of mine.values()) held.last = null;
    },
    connections: sockets.connections,
    lag: sockets.lag,
    close: sockets.close,
  };
}

/**
 * The venue-independent part of the live mark feeds (docs/architecture.md "Market data"): one WebSocket to
 * a venue's public market socket, the per-symbol state and the tick loop. A venue's feed
 * (venue-feed-hyperliquid.ts, venue-feed-aster.ts) supplies a {@link VenueProtocol}: the subscribe
 * messages, the application ping and how a frame (JSON, or a plain text one such as a `PONG`) becomes a book
 * or trade prints; a frame handler may send on the connection (a resubscription that resyncs a book). Each `intervalMs` the
 * feed hands `onTick` one MarkTick per symbol, as ReplayMarkFeed does: `mark` = the mid of the latest
 * book's best bid and ask, `bid`/`ask` that touch, `book` the venue's levels; `prints` = the trades
 * received since the symbol's previous tick (for live candle volume), each trade id once.
 *
 * Robustness:
 * - A dropped or failed connection is reopened after a backoff (`reconnectMs`, doubling up to
 *   `maxReconnectMs`, reset once a book arrives again) and every subscription is sent again; a venue that
 *   authenticates the handshake gets fresh headers each time ({@link VenueProtocol.handshakeHeaders}).
 * - It pings every `pingMs` (the protocol's application ping, or a WebSocket ping frame) and reopens the
 *   connection when nothing at all (no frame, no pong) arrived for 2 × `pingMs`.
 *   WebSocket-level pings of the venue are answered by `ws` itself.
 * - A symbol whose book has seen no data for more than `staleAfterMs` (default
 *   {@link DEFAULT_STALE_AFTER_MS}) is stale: no tick of it is handed on (so its stored mark ages and
 *   readers refuse it past `MARK_MAX_AGE_MS`) until a book arrives again; `onStale` hears both edges.
 */
import WebSocket from 'ws';
import type { TapePrint } from '../../../domain/market/replay.js';
import type { SymbolSpec } from '../../../domain/market/symbols.js';
import type { BookLevel, MarkTick } from '../../../domain/market/types.js';

/**
 * A venue's WebSocket URL from its REST base URL: `https:` → `wss:` (else `ws:`), the host renamed by `host` when
 * the venue streams from another one (`fapi.` → `fstream.`), `path` appended to the base path.
 */
export function socketUrlOf(apiUrl: string, path: string, host: (hostname: string) => string = (h) => h): string {
  const u = new URL(apiUrl);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  u.hostname = host(u.hostname);
  u.pathname = `${u.pathname.replace(/\/+$/, '')}${path}`;
  return u.toString();
}

/**
 * No book frame for this long (ms) makes a symbol stale: two missed 5 s book snapshots of Hyperliquid,
 * forty 250 ms partial-depth pushes of Aster. Well inside the default `MARK_MAX_AGE_MS` (60 s) readers allow.
 */
export const DEFAULT_STALE_AFTER_MS = 10_000;

/** Options common to every live venue feed (see {@link VenueMarkFeed}). */
export interface VenueFeedOptions {
  /** WebSocket URL of the venue. */
  url: string;
  /** Platform symbols of the venue to follow. */
  symbols: readonly SymbolSpec[];
  /** Tick period per symbol, ms (default 500). */
  intervalMs?: number;
  /** Book silence (ms) after which a symbol is stale (default {@link DEFAULT_STALE_AFTER_MS}). */
  staleAfterMs?: number;
  /** First reconnect delay, ms (default 250); doubles per failed attempt up to `maxReconnectMs` (default 10 000). */
  reconnectMs?: number;
  maxReconnectMs?: number;
  /** Ping period, ms (default 30 000). */
  pingMs?: number;
  /** Wall clock, Unix ms (default `Date.now`). */
  now?: () => number;
  /** Receives each tick (`ts` = wall time, Unix ms) and the trade prints since the symbol's previous tick; not called again for a symbol until it settles. */
  onTick: (tick: MarkTick, prints: TapePrint[]) => Promise<void> | void;
  /** Hears a symbol turn stale (`true`) or fresh again (`false`). */
  onStale?: (symbol: string, stale: boolean) => void;
  /** Receives errors of `onTick`, of the socket and unreadable frames (default `console.error`). */
  onError?: (err: unknown) => void;
}

/** What a venue's frame handler may report: a key is the protocol's {@link VenueProtocol.keyOf} of a symbol. */
export interface FrameSink {
  /** The symbol's whole current book (bids best first, asks best first; prices and sizes Decimal from the wire). */
  book(key: string, book: { bids: BookLevel[]; asks: BookLevel[] }): void;
  /** One trade; dropped when its `tradeId` was seen already or its `ts` (Unix ms) is before the feed started. */
  print(key: string, print: TapePrint): void;
  /** A venue error or an unreadable frame. */
  error(err: unknown): void;
  /** Sends a text frame on the open connection (a resubscription to resync a book); dropped when none is open. */
  send(text: string): void;
}

/** The per-venue part of a live feed. */
export interface VenueProtocol {
  /** Name used in error reports (`hyperliquid`). */
  name: string;
  /** The key a symbol's frames are reported under (Hyperliquid: the coin `BTC`; Aster: `btcusdt`). */
  keyOf(spec: SymbolSpec): string;
  /** The text frames that subscribe to the books and trades of `keys`, sent on every (re)connection. */
  subscribe(keys: readonly string[]): string[];
  /** The application ping: `{ text }` a text frame to send, `'frame'` a WebSocket ping frame. */
  ping: { text: string } | 'frame';
  /**
   * Extra HTTP headers of the WebSocket handshake, asked for again on every (re)connection so that a venue which
   * authenticates the upgrade (Kalshi: a key id, a timestamp and a signature over it) gets a fresh signature each
   * time. Absent: no extra headers. A throw is reported and counts as a failed connection (retried after the backoff).
   */
  handshakeHeaders?(): Record<string, string>;
  /**
   * Hears the venue answer one of the feed's WebSocket ping frames (`ping: 'frame'`): the connection is alive and
   * every change was pushed in order, so a protocol whose venue sends only changes may confirm its held books here
   * (Kalshi: a quiet book is still the venue's) or resync a subscription whose snapshot never came.
   */
  onPong?(sink: FrameSink): void;
  /**
   * Reads a text frame before it is parsed as JSON (Polymarket's plain `PONG`); answers true when it handled it
   * (then it is not parsed). Absent: every frame is JSON.
   */
  onText?(text: string, sink: FrameSink): boolean;
  /** Reads one text frame (already JSON-parsed) into `sink`; may throw on an unreadable one. */
  onFrame(msg: unknown, sink: FrameSink): void;
}

/** What the feed keeps per symbol. */
interface SymbolState {
  spec: SymbolSpec;
  book: { bids: BookLevel[]; asks: BookLevel[] } | null;
  /** Wall time (ms) of the last book frame, or of the subscription's start before the first. */
  lastBookMs: number;
  stale: boolean;
  prints: TapePrint[];
  seenIds: Set<string>;
}

/** Trade ids remembered per symbol to drop repeats (a resubscription's recent trades). */
const SEEN_IDS = 1000;

/**
 * A live feed of one venue's marks (module doc). `start()` connects (and keeps reconnecting);
 * `stop()` closes the socket and waits for `onTick` calls in flight.
 */
export class VenueMarkFeed {
  private readonly byKey = new Map<string, SymbolState>();
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly now: () => number;
  private readonly intervalMs: number;
  private readonly staleAfterMs: number;
  private readonly pingMs: number;
  private readonly startedMs: number;
  private readonly sink: FrameSink;
  private socket: WebSocket | undefined;
  private ticker: NodeJS.Timeout | undefined;
  private pinger: NodeJS.Timeout | undefined;
  private retry: NodeJS.Timeout | undefined;
  private delayMs: number;
  private lastFrameMs = 0;
  private stopped = true;
  private opened = 0;

  /** @throws Error on a symbol key listed twice (`coin BTC listed twice`) or a non-positive period. */
  constructor(
    private readonly opts: VenueFeedOptions,
    private readonly protocol: VenueProtocol,
  ) {
    this.now = opts.now ?? Date.now;
    this.intervalMs = opts.intervalMs ?? 500;
    this.staleAfterMs = opts.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
    this.pingMs = opts.pingMs ?? 30_000;
    this.delayMs = opts.reconnectMs ?? 250;
    for (const v of [this.intervalMs, this.staleAfterMs, this.pingMs, this.delayMs])
      if (!(Number.isFinite(v) && v > 0)) throw new Error(`feed periods must be positive ms, got ${v}`);
    this.startedMs = this.now();
    for (const spec of opts.symbols) {
      const key = protocol.keyOf(spec);
      if (this.byKey.has(key)) throw new Error(`coin ${key} listed twice`);
      this.byKey.set(key, {
        spec,
        book: null,
        lastBookMs: this.startedMs,
        stale: false,
        prints: [],
        seenIds: new Set(),
      });
    }
    this.sink = {
      book: (key, book) => {
        const s = this.byKey.get(key);
        if (!s) return;
        s.book = book;
        s.lastBookMs = this.now();
        this.delayMs = this.opts.reconnectMs ?? 250; // data flows: the next drop starts from the first delay again
        if (s.stale) {
          s.stale = false;
          this.opts.onStale?.(s.spec.symbol, false);
        }
      },
      print: (key, print) => {
        const s = this.byKey.get(key);
        // A (re)subscription may first list recent trades: those already seen or older than the feed are not new volume.
        if (!s || s.seenIds.has(print.tradeId) || print.ts < this.startedMs) return;
        s.seenIds.add(print.tradeId);
        if (s.seenIds.size > SEEN_IDS) s.seenIds.delete(s.seenIds.values().next().value as string);
        s.prints.push(print);
      },
      error: (err) => this.report(err),
      send: (text) => {
        if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(text);
      },
    };
  }

  /** Connects and starts ticking. Idempotent. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.connect();
    this.ticker = setInterval(() => this.emitAll(), this.intervalMs);
  }

  /** Closes the socket, stops every timer, resolves once every `onTick` in flight has settled. Safe to call twice. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.ticker);
    clearInterval(this.pinger);
    clearTimeout(this.retry);
    this.socket?.removeAllListeners();
    this.socket?.on('error', () => undefined);
    this.socket?.terminate();
    this.socket = undefined;
    await Promise.allSettled([...this.inFlight.values()]);
  }

  /** Whether `symbol` (`BTC.HL`) is stale now (module doc); false for a symbol the feed does not follow. */
  isStale(symbol: string): boolean {
    return [...this.byKey.values()].some((s) => s.spec.symbol === symbol && s.stale);
  }

  /** Connections opened so far (1 after the first, +1 per reconnect). */
  connections(): number {
    return this.opened;
  }

  private connect(): void {
    if (this.stopped) return;
    let headers: Record<string, string> | undefined;
    try {
      headers = this.protocol.handshakeHeaders?.();
    } catch (err) {
      this.report(err);
      this.retry = setTimeout(() => this.connect(), this.delayMs);
      this.delayMs = Math.min(this.delayMs * 2, this.opts.maxReconnectMs ?? 10_000);
      return;
    }
    const ws = new WebSocket(this.opts.url, headers ? { headers } : undefined);
    this.socket = ws;
    ws.on('open', () => {
      this.opened++;
      this.lastFrameMs = this.now();
      for (const m of this.protocol.subscribe([...this.byKey.keys()])) ws.send(m);
      clearInterval(this.pinger);
      this.pinger = setInterval(() => {
        if (this.now() - this.lastFrameMs > 2 * this.pingMs) ws.terminate();
        else if (ws.readyState !== WebSocket.OPEN) return;
        else if (this.protocol.ping === 'frame') ws.ping();
        else ws.send(this.protocol.ping.text);
      }, this.pingMs);
    });
    ws.on('pong', () => {
      this.lastFrameMs = this.now();
      this.protocol.onPong?.(this.sink);
    });
    ws.on('message', (data: WebSocket.RawData) => {
      this.lastFrameMs = this.now();
      const text = data.toString();
      if (this.protocol.onText?.(text, this.sink)) return;
      try {
        this.protocol.onFrame(JSON.parse(text) as unknown, this.sink);
      } catch (err) {
        this.report(err);
      }
    });
    ws.on('error', (err) => this.report(err));
    ws.on('close', () => {
      clearInterval(this.pinger);
      if (this.socket !== ws || this.stopped) return;
      this.socket = undefined;
      this.retry = setTimeout(() => this.connect(), this.delayMs);
      this.delayMs = Math.min(this.delayMs * 2, this.opts.maxReconnectMs ?? 10_000);
    });
  }

  private emitAll(): void {
    const now = this.now();
    for (const s of this.byKey.values()) {
      if (now - s.lastBookMs > this.staleAfterMs) {
        if (!s.stale) {
          s.stale = true;
          this.opts.onStale?.(s.spec.symbol, true);
        }
        continue;
      }
      const book = s.book;
      if (!book || !book.bids[0] || !book.asks[0] || this.inFlight.has(s.spec.symbol)) continue;
      const bid = book.bids[0].price;
      const ask = book.asks[0].price;
      const tick: MarkTick = {
        venue: s.spec.venue,
        symbol: s.spec.symbol,
        ts: now,
        mark: bid.plus(ask).div(2),
        bid,
        ask,
        book,
      };
      const prints = s.prints.splice(0);
      const p = (async () => {
        try {
          await this.opts.onTick(tick, prints);
        } catch (err) {
          this.report(err);
        }
      })().finally(() => this.inFlight.delete(s.spec.symbol));
      this.inFlight.set(s.spec.symbol, p);
    }
  }

  private report(err: unknown): void {
    try {
      if (this.opts.onError) this.opts.onError(err);
      else console.error(`${this.protocol.name} mark feed`, err);
    } catch {
      // a failing error reporter must not stop the feed
    }
  }
}

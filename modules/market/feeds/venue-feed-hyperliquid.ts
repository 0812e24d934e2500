/**
 * The live mark feed of Hyperliquid symbols (docs/architecture.md "Market data"): one WebSocket to the
 * venue's public socket (`wss://api.hyperliquid.xyz/ws`, or the simulator's `/ws`), subscribed to
 * `l2Book` and `trades` of every requested coin. Each `intervalMs` it hands `onTick` one MarkTick per
 * symbol, as ReplayMarkFeed does: `mark` = the mid of the latest book's best bid and ask, `bid`/`ask`
 * that touch, `book` the venue's levels; `prints` = the trades received since the symbol's previous
 * tick (for live candle volume). Prices and sizes go from the venue's decimal strings straight to
 * Decimal, never through a float.
 *
 * Robustness:
 * - A dropped or failed connection is reopened after a backoff (`reconnectMs`, doubling up to
 *   `maxReconnectMs`, reset once data flows again) and every subscription is sent again.
 * - It sends `{"method":"ping"}` every `pingMs` (the venue closes a connection idle for 60 s) and
 *   reopens the connection when nothing at all (not even the `pong`) arrived for 2 × `pingMs`.
 *   WebSocket-level pings are answered by `ws` itself.
 * - A symbol whose book has seen no data (no `l2Book` frame) for more than `staleAfterMs` (default
 *   {@link DEFAULT_STALE_AFTER_MS}) is stale: no tick of it is handed on (so its stored mark ages and
 *   readers refuse it past `MARK_MAX_AGE_MS`) until a book arrives again; `onStale` hears both edges.
 */
import WebSocket from 'ws';
import { Decimal } from '../../../domain/decimal.js';
import type { TapePrint } from '../../../domain/market/replay.js';
import type { SymbolSpec } from '../../../domain/market/symbols.js';
import type { BookLevel, MarkTick } from '../../../domain/market/types.js';

/**
 * No `l2Book` frame for this long (ms) makes a symbol stale. The venue sends a coin's book whenever it
 * changes (every block or so for a listed perp) and at least every 5 s (the SDK's `l2Book` documentation:
 * 20 levels every 5 s); 10 s without one, two missed snapshots, means the socket or the venue is stuck.
 * Well inside the default `MARK_MAX_AGE_MS` (60 s) readers allow.
 */
export const DEFAULT_STALE_AFTER_MS = 10_000;

/** Options of {@link HyperliquidMarkFeed}. */
export interface HyperliquidMarkFeedOptions {
  /** WebSocket URL of the venue (`wss://api.hyperliquid.xyz/ws`; see {@link hyperliquidWsUrl}). */
  url: string;
  /** Hyperliquid symbols to follow (`BTC.HL`, …); the coin subscribed is each one's `base` (`BTC`). */
  symbols: readonly SymbolSpec[];
  /** Tick period per symbol, ms (default 500). */
  intervalMs?: number;
  /** Book silence (ms) after which a symbol is stale (default {@link DEFAULT_STALE_AFTER_MS}). */
  staleAfterMs?: number;
  /** First reconnect delay, ms (default 250); doubles per failed attempt up to `maxReconnectMs` (default 10 000). */
  reconnectMs?: number;
  maxReconnectMs?: number;
  /** Application ping period, ms (default 30 000). */
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

/** The venue's WebSocket URL for an API base URL: `https://api.hyperliquid.xyz` → `wss://api.hyperliquid.xyz/ws`. */
export function hyperliquidWsUrl(apiUrl: string): string {
  const u = new URL(apiUrl);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/ws`;
  return u.toString();
}

/** One `{px, sz, n}` level as the venue sends it. */
interface WireLevel {
  px: string;
  sz: string;
  n: number;
}

/** What the feed keeps per symbol. */
interface SymbolState {
  spec: SymbolSpec;
  book: { bids: BookLevel[]; asks: BookLevel[] } | null;
  /** Wall time (ms) of the last `l2Book` frame, or of the subscription's start before the first. */
  lastBookMs: number;
  stale: boolean;
  prints: TapePrint[];
  seenTids: Set<number>;
}

const level = (l: WireLevel): BookLevel => ({ price: new Decimal(l.px), size: new Decimal(l.sz) });

/**
 * A live feed of Hyperliquid marks (module doc). `start()` connects (and keeps reconnecting);
 * `stop()` closes the socket and waits for `onTick` calls in flight.
 */
export class HyperliquidMarkFeed {
  private readonly byCoin = new Map<string, SymbolState>();
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly now: () => number;
  private readonly intervalMs: number;
  private readonly staleAfterMs: number;
  private readonly pingMs: number;
  private readonly startedMs: number;
  private socket: WebSocket | undefined;
  private ticker: NodeJS.Timeout | undefined;
  private pinger: NodeJS.Timeout | undefined;
  private retry: NodeJS.Timeout | undefined;
  private delayMs: number;
  private lastFrameMs = 0;
  private stopped = true;
  private opened = 0;

  /** @throws Error on a duplicate coin or a non-positive period. */
  constructor(private readonly opts: HyperliquidMarkFeedOptions) {
    this.now = opts.now ?? Date.now;
    this.intervalMs = opts.intervalMs ?? 500;
    this.staleAfterMs = opts.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
    this.pingMs = opts.pingMs ?? 30_000;
    this.delayMs = opts.reconnectMs ?? 250;
    for (const v of [this.intervalMs, this.staleAfterMs, this.pingMs, this.delayMs])
      if (!(Number.isFinite(v) && v > 0)) throw new Error(`feed periods must be positive ms, got ${v}`);
    this.startedMs = this.now();
    for (const spec of opts.symbols) {
      if (this.byCoin.has(spec.base)) throw new Error(`coin ${spec.base} listed twice`);
      this.byCoin.set(spec.base, {
        spec,
        book: null,
        lastBookMs: this.startedMs,
        stale: false,
        prints: [],
        seenTids: new Set(),
      });
    }
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
    return [...this.byCoin.values()].some((s) => s.spec.symbol === symbol && s.stale);
  }

  /** Connections opened so far (1 after the first, +1 per reconnect). */
  connections(): number {
    return this.opened;
  }

  private connect(): void {
    if (this.stopped) return;
    const ws = new WebSocket(this.opts.url);
    this.socket = ws;
    ws.on('open', () => {
      this.opened++;
      this.lastFrameMs = this.now();
      for (const coin of this.byCoin.keys()) {
        ws.send(JSON.stringify({ method: 'subscribe', subscription: { type: 'l2Book', coin } }));
        ws.send(JSON.stringify({ method: 'subscribe', subscription: { type: 'trades', coin } }));
      }
      clearInterval(this.pinger);
      this.pinger = setInterval(() => {
        if (this.now() - this.lastFrameMs > 2 * this.pingMs) ws.terminate();
        else if (ws.readyState === WebSocket.OPEN) ws.send('{"method":"ping"}');
      }, this.pingMs);
    });
    ws.on('message', (data: WebSocket.RawData) => {
      this.lastFrameMs = this.now();
      try {
        this.onFrame(JSON.parse(data.toString()) as { channel?: string; data?: unknown });
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

  private onFrame(msg: { channel?: string; data?: unknown }): void {
    if (msg.channel === 'l2Book') {
      const d = msg.data as { coin: string; levels: [WireLevel[], WireLevel[]] };
      const s = this.byCoin.get(d.coin);
      if (!s) return;
      s.book = { bids: d.levels[0].map(level), asks: d.levels[1].map(level) };
      s.lastBookMs = this.now();
      this.delayMs = this.opts.reconnectMs ?? 250; // data flows: the next drop starts from the first delay again
      if (s.stale) {
        s.stale = false;
        this.opts.onStale?.(s.spec.symbol, false);
      }
    } else if (msg.channel === 'trades') {
      for (const t of msg.data as {
        coin: string;
        side: 'B' | 'A';
        px: string;
        sz: string;
        time: number;
        tid: number;
      }[]) {
        const s = this.byCoin.get(t.coin);
        // A (re)subscription first lists recent trades: those already seen or older than the feed are not new volume.
        if (!s || s.seenTids.has(t.tid) || t.time < this.startedMs) continue;
        s.seenTids.add(t.tid);
        if (s.seenTids.size > 1000) s.seenTids.delete(s.seenTids.values().next().value as number);
        s.prints.push({
          tradeId: String(t.tid),
          ts: t.time,
          price: new Decimal(t.px),
          size: new Decimal(t.sz),
          side: t.side === 'B' ? 'buy' : 'sell',
        });
      }
    } else if (msg.channel === 'error') this.report(new Error(`hyperliquid ws: ${String(msg.data)}`));
  }

  private emitAll(): void {
    const now = this.now();
    for (const s of this.byCoin.values()) {
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
      else console.error('hyperliquid mark feed', err);
    } catch {
      // a failing error reporter must not stop the feed
    }
  }
}

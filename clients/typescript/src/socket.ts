/**
 * One WebSocket channel kept open (docs/api.md §6): connects, authenticates and subscribes (the channel's
 * handshake), sends `Ping` every `heartbeatMs` and treats a connection that answers nothing within `timeoutMs`
 * of a `Ping` as dead, reconnects with exponential backoff after any loss, and after each reconnect runs the
 * handshake again (a new bootstrap token on `/ws/risk`, the same topics) and emits `resync`: subscriptions live
 * and die with a connection (§6.3 rule 1), so the frames of the gap are lost and the REST snapshots must be read
 * again. A `Resync-Required` frame (slow consumer, rule 7) emits `resync` too.
 *
 * Ends for good (`closed` with an error, no reconnect) on close code 4401 (`credential_revoked`,
 * `session_ended`) or 1008 (tenant refused), on a handshake refusal no retry cures (`unknown_topic`, …), on an
 * HTTP refusal of the bootstrap other than 429/5xx, and after `connectAttempts` failed first connections.
 */
import WebSocket from 'ws';
import { ApiError } from './errors.js';
import type { ClientFrame, ResultFrame, ResyncRequiredFrame } from './frames.js';

/** Close codes after which reconnecting cannot help: 4401 access ended, 1008 tenant refused at connect. */
const FINAL_CLOSE_CODES: ReadonlySet<number> = new Set([4401, 1008]);
/** `Result` error codes a retry (a new token, a later attempt) may cure; any other refusal ends the socket. */
const RETRYABLE_REFUSALS: ReadonlySet<string> = new Set(['token_invalid', 'rate_limited', 'internal_error']);

/** A refusal by the channel: a `Result { ok: false, error }`, a close code, or a timeout of the handshake. */
export class SocketError extends Error {
  override readonly name = 'SocketError';
  /** `Result.error` (`token_invalid`, `unknown_topic`, …), `close_<code>`, or `handshake_timeout`. */
  readonly code: string;
  constructor(code: string, detail?: string) {
    super(detail ? `${code}: ${detail}` : code);
    this.code = code;
  }
}

/**
 * Whether another attempt may succeed after `err`: the bootstrap's `429` or `5xx`, a network error, a lost or
 * timed-out connection (except {@link FINAL_CLOSE_CODES}), a {@link RETRYABLE_REFUSALS} refusal.
 */
function retryable(err: Error): boolean {
  if (err instanceof ApiError) return err.status === 429 || err.status >= 500;
  if (!(err instanceof SocketError)) return true;
  const close = /^close_(\d+)$/.exec(err.code);
  if (close) return !FINAL_CLOSE_CODES.has(Number(close[1]));
  return err.code === 'handshake_timeout' || RETRYABLE_REFUSALS.has(err.code);
}

/** One open connection, as a channel's handshake sees it. */
export interface Connection<F> {
  send(frame: ClientFrame): void;
  /** The next frame of this connection matching `pred`; rejects with {@link SocketError} `handshake_timeout`. */
  next<T extends F>(pred: (f: F) => f is T, timeoutMs?: number): Promise<T>;
}

/** What a channel does to open one connection: its URL (maybe after a bootstrap) and its authentication. */
export interface ChannelOpener<F> {
  /** Called before every connection. @throws ApiError (bootstrap refused) or any Error (unreachable). */
  open(): Promise<{ url: string; authenticate?: (conn: Connection<F>) => Promise<void> }>;
}

/** Timings and policy of a {@link StreamSocket}; all durations ms. */
export interface StreamOptions {
  /** Upgrade request headers (`X-Tenant-Slug`). */
  headers?: Record<string, string>;
  /** Topics to subscribe on every connection. */
  topics?: string[];
  /** `Ping` period (default 20 000; the server closes after 60 000 of silence). */
  heartbeatMs?: number;
  /** A `Ping` unanswered (no frame at all) this long marks the connection dead (default 10 000). */
  timeoutMs?: number;
  /** Each handshake step's wait for its answer (default 10 000). */
  handshakeTimeoutMs?: number;
  /** Reconnect delays: `initialMs` (default 250) doubling to `maxMs` (default 30 000), ±20 % jitter. */
  backoff?: { initialMs?: number; maxMs?: number };
  /** Failed attempts at the first connection before `ready` rejects and the socket closes (default 5). */
  connectAttempts?: number;
  /** Frames kept for `next(pred, { recent: true })` (default 256). */
  recentFrames?: number;
}

/** Why the socket asks the caller to re-read its REST snapshots. */
export interface ResyncEvent {
  /** `reconnect`: a new connection replaced a lost one; `slow_consumer`: the server dropped the backlog. */
  reason: 'reconnect' | 'slow_consumer';
  /** The `Resync-Required` frame (slow consumer): its `accountIds` or `topics` name what to re-read. */
  frame?: ResyncRequiredFrame;
}

/** The events of a {@link StreamSocket} and their payloads. */
export interface StreamEvents<F> {
  /** Every frame the server sends, in order. */
  frame: F;
  /** A connection finished its handshake; `reconnected` from the second one on. */
  ready: { reconnected: boolean };
  /** Re-read the REST snapshots (docs/api.md §6.3 rules 1, 3, 7). */
  resync: ResyncEvent;
  /** A connection was lost (`code` 1006: cut); `willReconnect` unless the socket ends. */
  disconnect: { code: number; reason: string; willReconnect: boolean };
  /** A failed attempt or an unreadable frame; the socket carries on unless `closed` follows. */
  error: Error;
  /** The socket ended: `error` unless {@link StreamSocket.close} ended it. */
  closed: { error?: Error };
}

type Listener<T> = (payload: T) => void;

/**
 * A channel socket that stays connected. Create it through the client (`client.risk()`, `client.quotes()`,
 * `client.market()`); `await socket.ready` before relying on frames.
 */
export class StreamSocket<F extends { type: string }> {
  /** Resolves when the first connection is authenticated and subscribed; rejects when the socket ends before. */
  readonly ready: Promise<void>;
  /** Completed handshakes (1 after `ready`; each reconnect adds one). */
  connections = 0;
  private state: 'connecting' | 'open' | 'waiting' | 'closed' = 'connecting';
  private ws?: WebSocket;
  private generation = 0;
  private attempt = 0;
  private timers = new Set<NodeJS.Timeout>();
  private listeners: { [E in keyof StreamEvents<F>]?: Set<Listener<StreamEvents<F>[E]>> } = {};
  private recent: F[] = [];
  private lastFrameAt = 0;
  private topics: Set<string>;
  private whenOpen!: { promise: Promise<void>; resolve: () => void };
  private control = Promise.resolve();
  private settleReady!: { resolve: () => void; reject: (e: Error) => void };
  private readonly o: Required<Omit<StreamOptions, 'backoff' | 'topics' | 'headers'>> & {
    backoff: { initialMs: number; maxMs: number };
    headers: Record<string, string>;
  };

  constructor(
    private readonly opener: ChannelOpener<F>,
    opts: StreamOptions = {},
  ) {
    this.o = {
      headers: opts.headers ?? {},
      heartbeatMs: opts.heartbeatMs ?? 20_000,
      timeoutMs: opts.timeoutMs ?? 10_000,
      handshakeTimeoutMs: opts.handshakeTimeoutMs ?? 10_000,
      backoff: { initialMs: opts.backoff?.initialMs ?? 250, maxMs: opts.backoff?.maxMs ?? 30_000 },
      connectAttempts: opts.connectAttempts ?? 5,
      recentFrames: opts.recentFrames ?? 256,
    };
    this.topics = new Set(opts.topics ?? []);
    this.ready = new Promise((resolve, reject) => (this.settleReady = { resolve, reject }));
    this.ready.catch(() => undefined); // the caller may never await it; `closed` reports the error too
    this.resetWhenOpen();
    void this.connect();
  }

  /** The topics subscribed on every connection. */
  get subscribed(): string[] {
    return [...this.topics];
  }

  /** Whether the socket ended (closed by the caller or for good). */
  get ended(): boolean {
    return this.state === 'closed';
  }

  /** Whether a connection is open and through its handshake. */
  get isOpen(): boolean {
    return this.state === 'open';
  }

  /** Listens to `event`; returns the function that stops listening. */
  on<E extends keyof StreamEvents<F>>(event: E, listener: Listener<StreamEvents<F>[E]>): () => void {
    const set = (this.listeners[event] ??= new Set() as never) as Set<Listener<StreamEvents<F>[E]>>;
    set.add(listener);
    return () => set.delete(listener);
  }

  /**
   * The next frame matching `pred` (`recent: true`: also among the last `recentFrames` received).
   * @throws Error after `timeoutMs` (default 30 000), or when the socket ends first.
   */
  next<T extends F>(pred: (f: F) => f is T, opts?: { timeoutMs?: number; recent?: boolean }): Promise<T>;
  next(pred: (f: F) => boolean, opts?: { timeoutMs?: number; recent?: boolean }): Promise<F>;
  next(pred: (f: F) => boolean, opts: { timeoutMs?: number; recent?: boolean } = {}): Promise<F> {
    const hit = opts.recent ? this.recent.find(pred) : undefined;
    if (hit) return Promise.resolve(hit);
    if (this.state === 'closed') return Promise.reject(new Error('socket closed'));
    const timeoutMs = opts.timeoutMs ?? 30_000;
    return new Promise<F>((resolve, reject) => {
      const stop = () => (clearTimeout(timer), offFrame(), offClosed());
      const timer = setTimeout(
        () => (stop(), reject(new Error(`no matching frame within ${timeoutMs} ms`))),
        timeoutMs,
      );
      const offFrame = this.on('frame', (f) => pred(f) && (stop(), resolve(f)));
      const offClosed = this.on('closed', ({ error }) => (stop(), reject(error ?? new Error('socket closed'))));
    });
  }

  /**
   * Every frame from this call on until the socket ends, as an async iterator: listening starts at the call, so
   * take it before the request whose frames it should see (`const frames = socket.frames(); await post(…);
   * for await (const f of frames) …`). Breaking out of the loop stops listening.
   */
  frames(): AsyncIterableIterator<F> {
    const queue: F[] = [];
    let wake: (() => void) | undefined;
    let ended = false;
    const stop = () => {
      ended = true;
      offFrame();
      offClosed();
      wake?.();
    };
    const offFrame = this.on('frame', (f) => (queue.push(f), wake?.()));
    const offClosed = this.on('closed', stop);
    const iterator: AsyncIterableIterator<F> = {
      async next() {
        while (!queue.length && !ended) await new Promise<void>((r) => (wake = r));
        wake = undefined;
        return queue.length ? { value: queue.shift()!, done: false } : { value: undefined, done: true };
      },
      async return() {
        stop();
        queue.length = 0;
        return { value: undefined, done: true };
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  /** Sends a frame on the open connection. @throws Error when none is open. */
  send(frame: ClientFrame): void {
    if (this.state !== 'open' || !this.ws) throw new Error('socket not open');
    this.ws.send(JSON.stringify(frame));
  }

  /**
   * Adds `topics` (kept for every later connection) and subscribes them on the open connection (waiting for one).
   * @throws SocketError with the channel's refusal (`unknown_topic`, `venue_not_enabled`, …); the topics are dropped.
   */
  subscribe(topics: string[]): Promise<ResultFrame> {
    topics.forEach((t) => this.topics.add(t));
    return this.controlFrame({ type: 'Subscribe', topics }).catch((err: unknown) => {
      topics.forEach((t) => this.topics.delete(t));
      throw err;
    });
  }

  /** Drops `topics` (`/ws/quotes`, `/ws/market`). @throws SocketError on a refusal. */
  unsubscribe(topics: string[]): Promise<ResultFrame> {
    topics.forEach((t) => this.topics.delete(t));
    return this.controlFrame({ type: 'Unsubscribe', topics });
  }

  /** Drops the connection now and reconnects (what a dead heartbeat does); `resync` follows the new handshake. */
  reconnect(): void {
    this.ws?.terminate();
  }

  /** Ends the socket: closes the connection (1000), stops every timer; `closed` is emitted without an error. */
  async close(): Promise<void> {
    if (this.state === 'closed') return;
    const ws = this.ws;
    this.finish();
    if (ws && ws.readyState !== WebSocket.CLOSED) {
      const closed = new Promise<void>((r) => ws.once('close', () => r()));
      ws.close(1000, 'client closed');
      await closed;
    }
  }

  private emit<E extends keyof StreamEvents<F>>(event: E, payload: StreamEvents<F>[E]): void {
    for (const l of [...(this.listeners[event] ?? [])]) l(payload);
  }

  private resetWhenOpen(): void {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    this.whenOpen = { promise, resolve };
  }

  /** Sends a Subscribe/Unsubscribe once open and answers its `Result`, one control frame at a time. */
  private controlFrame(frame: ClientFrame): Promise<ResultFrame> {
    const run = async () => {
      await this.whenOpen.promise;
      const answer = this.next((f): f is F & ResultFrame => f.type === 'Result', {
        timeoutMs: this.o.handshakeTimeoutMs,
      });
      this.send(frame);
      const result = await answer;
      if (!result.ok) throw new SocketError(result.error ?? 'refused', result.detail);
      return result;
    };
    const done = this.control.then(run, run);
    this.control = done.then(
      () => undefined,
      () => undefined,
    );
    return done;
  }

  private timer(ms: number, fn: () => void, repeat = false): NodeJS.Timeout {
    const t = repeat ? setInterval(fn, ms) : setTimeout(() => (this.timers.delete(t), fn()), ms);
    this.timers.add(t);
    return t;
  }

  private clearTimers(): void {
    this.timers.forEach((t) => clearTimeout(t));
    this.timers.clear();
  }

  /** One connection attempt: open, authenticate, subscribe; on failure, the next attempt or the end. */
  private async connect(): Promise<void> {
    const gen = ++this.generation;
    this.state = 'connecting';
    try {
      const { url, authenticate } = await this.opener.open();
      if (gen !== this.generation) return;
      const ws = new WebSocket(url, { headers: this.o.headers });
      this.ws = ws;
      const conn = this.wire(ws, gen);
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
        ws.once('close', (code, reason) => reject(new SocketError(`close_${code}`, String(reason))));
      });
      await authenticate?.(conn);
      if (this.topics.size) {
        const answer = conn.next((f): f is F & ResultFrame => f.type === 'Result');
        conn.send({ type: 'Subscribe', topics: [...this.topics] });
        const result = await answer;
        if (!result.ok) throw new SocketError(result.error ?? 'refused', result.detail);
      }
      if (gen === this.generation) this.opened(ws, gen);
    } catch (err) {
      if (gen === this.generation && !this.ended) this.failed(err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** Listens to a new connection's frames and close; answers its handshake view. */
  private wire(ws: WebSocket, gen: number): Connection<F> {
    ws.on('message', (raw) => {
      if (gen !== this.generation) return;
      this.lastFrameAt = Date.now();
      let frame: F;
      try {
        frame = JSON.parse(String(raw)) as F;
      } catch {
        return this.emit('error', new Error(`unreadable frame: ${String(raw).slice(0, 200)}`));
      }
      this.recent.push(frame);
      if (this.recent.length > this.o.recentFrames) this.recent.shift();
      this.emit('frame', frame);
      if (frame.type === 'Resync-Required')
        this.emit('resync', { reason: 'slow_consumer', frame: frame as unknown as ResyncRequiredFrame });
    });
    // During the handshake an error fails the attempt (connect's catch reports it); after it, it is reported here.
    ws.on('error', (err) => gen === this.generation && this.state === 'open' && this.emit('error', err));
    ws.on('close', (code, reason) => gen === this.generation && this.lost(code, String(reason)));
    return {
      send: (frame) => ws.send(JSON.stringify(frame)),
      next: <T extends F>(pred: (f: F) => f is T, timeoutMs = this.o.handshakeTimeoutMs) =>
        new Promise<T>((resolve, reject) => {
          const stop = () => (clearTimeout(timer), offFrame(), ws.off('close', onClose));
          const onClose = (code: number) => (stop(), reject(new SocketError(`close_${code}`)));
          const timer = setTimeout(() => (stop(), reject(new SocketError('handshake_timeout'))), timeoutMs);
          const offFrame = this.on('frame', (f) => {
            if (gen !== this.generation || !pred(f)) return;
            stop();
            resolve(f);
          });
          ws.once('close', onClose);
        }),
    };
  }

  /** The handshake is through: heartbeat (a `Ping` every `heartbeatMs`, dead when nothing answers within `timeoutMs`), events. */
  private opened(ws: WebSocket, gen: number): void {
    const reconnected = this.connections > 0;
    this.connections += 1;
    this.attempt = 0;
    this.state = 'open';
    this.timer(
      this.o.heartbeatMs,
      () => {
        if (gen !== this.generation) return;
        const sentAt = Date.now();
        ws.send(JSON.stringify({ type: 'Ping' } satisfies ClientFrame));
        this.timer(this.o.timeoutMs, () => gen === this.generation && this.lastFrameAt < sentAt && ws.terminate());
      },
      true,
    );
    this.whenOpen.resolve();
    if (!reconnected) this.settleReady.resolve();
    this.emit('ready', { reconnected });
    if (reconnected) this.emit('resync', { reason: 'reconnect' });
  }

  /** The open connection closed: reconnect, unless the code says access ended. */
  private lost(code: number, reason: string): void {
    if (this.state !== 'open') return; // a handshake in progress fails through its own promise
    const final = FINAL_CLOSE_CODES.has(code);
    this.emit('disconnect', { code, reason, willReconnect: !final });
    this.generation += 1;
    this.clearTimers();
    this.resetWhenOpen();
    if (final) return this.finish(new SocketError(reason || `close_${code}`, `closed with ${code}`));
    this.state = 'waiting';
    this.timer(this.delay(), () => void this.connect());
  }

  /** A connection attempt failed: retry after the backoff, or end the socket. */
  private failed(err: Error): void {
    this.emit('error', err);
    this.generation += 1;
    this.ws?.terminate();
    const givenUp = this.connections === 0 && this.attempt + 1 >= this.o.connectAttempts;
    if (givenUp || !retryable(err)) return this.finish(err);
    this.state = 'waiting';
    this.timer(this.delay(), () => void this.connect());
  }

  /** The next backoff delay, ms: `initialMs` × 2^attempt up to `maxMs`, ±20 %. */
  private delay(): number {
    const base = Math.min(this.o.backoff.maxMs, this.o.backoff.initialMs * 2 ** this.attempt);
    this.attempt += 1;
    return Math.round(base * (0.8 + Math.random() * 0.4));
  }

  /** Ends the socket for good. */
  private finish(error?: Error): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.generation += 1;
    this.clearTimers();
    if (error) this.settleReady.reject(error);
    else this.settleReady.reject(new Error('socket closed before it was ready'));
    this.emit('closed', error ? { error } : {});
  }
}

/**
 * A bounded, coalescing send queue for one WebSocket (docs/api.md §6.3 rules 2 and `Resync-Required`).
 * Frames are numbered (`seq`) when pushed and written at once while the socket's own buffer is below
 * {@link LOW_WATER_BYTES}; past it they queue, so memory per socket is bounded by the queue cap plus one
 * low-water mark, and only a slow socket's frames are ever queued, coalesced or dropped:
 *
 * - a frame queued with a coalescing key replaces the queued frame of the same key (latest book,
 *   quote or candle wins), so its `seq` is skipped: a gap is normal and means "re-snapshot";
 * - when the queued bytes pass `capBytes` the whole backlog is dropped and replaced by one
 *   `Resync-Required { seq, reason: 'slow_consumer', dropped }` frame: the client drops its state,
 *   re-fetches the REST snapshot and carries on with the frames that follow.
 *
 * `/ws/risk` uses it unnumbered ({@link OutboxOptions.numbered} false): its frames keep the account log's
 * `seq`, and its `Resync-Required` carries no `seq` but names what to re-read ({@link OutboxOptions.resyncFields}).
 */
import type { WebSocket } from 'ws';

/** Write to the socket only while its send buffer holds less than this, bytes. */
export const LOW_WATER_BYTES = 64 * 1024;
/** Send options: every frame is a text frame, also one handed over as UTF-8 bytes. */
const TEXT = { binary: false };
/** Default queued-bytes cap past which the backlog is dropped, bytes. */
export const OUTBOX_CAP_BYTES = 1 << 20;

/**
 * Frame accounting of one socket (the api's metrics, api/ops/metrics.ts): a frame written, or frames
 * never written and why (`coalesced`: replaced by a newer frame of its topic; `slow_consumer`: dropped
 * with the backlog of a consumer past its cap).
 */
export interface FrameMeter {
  sent(): void;
  dropped(reason: 'coalesced' | 'slow_consumer', frames: number): void;
}

interface Queued {
  key?: string;
  /** The frame's JSON: text, or UTF-8 bytes (a frame serialised once for many sockets). */
  data: string | Buffer;
  /** Scopes of the frame (or, for a queued resync, of every frame it replaced), e.g. account ids. */
  scopes?: string[];
}

/** How an {@link Outbox} numbers frames and words its `Resync-Required`. */
export interface OutboxOptions {
  /**
   * true (default): each pushed frame gets the next per-connection `seq`, the resync frame too; false: frames
   * keep the `seq` they carry (the `/ws/risk` account log's) and the resync frame has none.
   */
  numbered?: boolean;
  /**
   * Extra fields of the `Resync-Required` frame, from the distinct scopes (the `scope` argument of
   * {@link Outbox.push}) of the frames dropped, in first-queued order; e.g. `{ accountIds }`.
   */
  resyncFields?: (scopes: string[]) => Record<string, unknown>;
}

/** The send side of one socket. */
export class Outbox {
  private queue: Queued[] = [];
  private queuedBytes = 0;
  private seq = 0;
  private waiting = false;
  /** Backlogs dropped so far (for tests and metrics). */
  resyncs = 0;

  constructor(
    private readonly ws: WebSocket,
    private readonly capBytes = OUTBOX_CAP_BYTES,
    private readonly meter?: FrameMeter,
    private readonly options: OutboxOptions = {},
  ) {}

  /**
   * Sends a frame (with the next `seq` unless the outbox is unnumbered): at once while the socket keeps up (nothing
   * queued, its send buffer under {@link LOW_WATER_BYTES}), else queued; `coalesceKey` makes it replace a queued frame
   * of the same key; `scope` (e.g. its account id or topic) is named by the resync frame should it be dropped.
   * `frame` may be given serialised, as UTF-8 JSON bytes shared by every socket of a fan-out: it is written as is
   * (a text frame, no per-socket work), so it carries its own `seq` and suits an unnumbered outbox.
   */
  push(frame: Record<string, unknown> | Buffer, coalesceKey?: string, scope?: string): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    const numbered = this.options.numbered ?? true;
    const data = Buffer.isBuffer(frame) ? frame : JSON.stringify(numbered ? { ...frame, seq: ++this.seq } : frame);
    if (!this.queue.length && !this.waiting && this.ws.bufferedAmount + data.length < LOW_WATER_BYTES) {
      this.ws.send(data, TEXT);
      this.meter?.sent();
      return;
    }
    const scopes = scope === undefined ? undefined : [scope];
    const at = coalesceKey === undefined ? -1 : this.queue.findIndex((q) => q.key === coalesceKey);
    if (at >= 0) {
      this.queuedBytes += data.length - this.queue[at].data.length;
      this.queue[at] = { key: coalesceKey, data, scopes };
      this.meter?.dropped('coalesced', 1);
    } else {
      this.queue.push({ key: coalesceKey, data, scopes });
      this.queuedBytes += data.length;
    }
    if (this.queuedBytes > this.capBytes) {
      const dropped = this.queue.length;
      this.resyncs++;
      this.meter?.dropped('slow_consumer', dropped);
      const all = [...new Set(this.queue.flatMap((q) => q.scopes ?? []))];
      const resync = JSON.stringify({
        type: 'Resync-Required',
        ...(numbered ? { seq: ++this.seq } : {}),
        reason: 'slow_consumer',
        dropped,
        ...this.options.resyncFields?.(all),
      });
      this.queue = [{ data: resync, scopes: all }];
      this.queuedBytes = resync.length;
    }
    this.flush();
  }

  /** Sends a control frame (Result, Pong, Authenticated) now, ahead of the data backlog and without a `seq`. */
  reply(frame: Record<string, unknown>): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    this.ws.send(JSON.stringify(frame));
    this.meter?.sent();
  }

  /** Bytes waiting in the queue (not yet handed to the socket). */
  get backlogBytes(): number {
    return this.queuedBytes;
  }

  /** Hands queued frames to the socket until its buffer reaches the low-water mark; resumes when that frame is written. */
  private flush(): void {
    if (this.waiting) return;
    while (this.queue.length && this.ws.readyState === this.ws.OPEN) {
      const q = this.queue.shift()!;
      this.queuedBytes -= q.data.length;
      this.meter?.sent();
      if (this.ws.bufferedAmount + q.data.length < LOW_WATER_BYTES) {
        this.ws.send(q.data, TEXT);
        continue;
      }
      this.waiting = true;
      this.ws.send(q.data, TEXT, () => {
        this.waiting = false;
        this.flush();
      });
      return;
    }
  }
}

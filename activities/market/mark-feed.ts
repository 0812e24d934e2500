/**
 * The offline canonical-mark feed: replays the recorded ticks on the wall clock (ping-pong, so
 * every process computes the same mark for the same instant) and hands each tick to `onTick`
 * every `intervalMs` per symbol. A slow `onTick` skips ticks rather than piling them up.
 */
import { Decimal } from '../../domain/decimal.js';
import { replayTime, tickAt, type RecordedMarket } from '../../domain/market/replay.js';
import type { SymbolSpec } from '../../domain/market/symbols.js';
import type { MarkTick } from '../../domain/market/types.js';
import { loadRecordedMarket } from './recorded.js';

export interface ReplayMarkFeedOptions {
  symbols: SymbolSpec[];
  /** Tick period per symbol, ms (default 500). */
  intervalMs?: number;
  /** Wall time at which replay stands at the recording start (default 0, shared by all processes). */
  anchorMs?: number;
  now?: () => number;
  onTick: (tick: MarkTick) => Promise<void> | void;
  onError?: (err: unknown) => void;
}

export class ReplayMarkFeed {
  private readonly markets = new Map<string, RecordedMarket>();
  private readonly busy = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: ReplayMarkFeedOptions) {}

  /** Loads the recordings, emits one tick per symbol now and then every interval. */
  async start(): Promise<void> {
    for (const s of this.opts.symbols) this.markets.set(s.symbol, await loadRecordedMarket(s.sourceCoin));
    this.emitAll();
    this.timer = setInterval(() => this.emitAll(), this.opts.intervalMs ?? 500);
  }

  /** Stops ticking and waits for ticks in flight. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.allSettled(this.busy.values());
  }

  /** The tick of a symbol for the current wall time. */
  tickNow(symbol: string): MarkTick {
    const spec = this.opts.symbols.find((s) => s.symbol === symbol);
    const m = this.markets.get(symbol);
    if (!spec || !m) throw new Error(`feed does not replay ${symbol}`);
    const now = (this.opts.now ?? Date.now)();
    return tickAt(m, replayTime(now, this.opts.anchorMs ?? 0, m.startMs, m.endMs), spec.venue, spec.symbol, now, new Decimal(spec.tickSize));
  }

  private emitAll() {
    for (const s of this.opts.symbols) {
      if (this.busy.has(s.symbol)) continue;
      const p = Promise.resolve()
        .then(() => this.opts.onTick(this.tickNow(s.symbol)))
        .catch((err: unknown) => this.opts.onError?.(err))
        .finally(() => this.busy.delete(s.symbol));
      this.busy.set(s.symbol, p);
    }
  }
}

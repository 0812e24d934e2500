/**
 * The offline canonical-mark feed: replays the recorded Hyperliquid ticks on the wall clock
 * (ping-pong, see domain/market/replay.ts) and hands one MarkTick per symbol to `onTick` every
 * `intervalMs`. The replay position is a pure function of the wall time and a fixed anchor, so
 * every process computes the same mark for the same instant. A slow `onTick` skips ticks of its
 * symbol rather than piling them up; an error in `onTick` is reported, never fatal.
 */
import { Decimal } from '../../../domain/decimal.js';
import {
  replayTime,
  tickAt,
  tradesBetween,
  type RecordedMarket,
  type TapePrint,
} from '../../../domain/market/replay.js';
import type { SymbolSpec } from '../../../domain/market/symbols.js';
import type { MarkTick } from '../../../domain/market/types.js';
import { loadRecordedMarket } from './recorded.js';

/** Options of {@link ReplayMarkFeed}. */
export interface ReplayMarkFeedOptions {
  /** Symbols to replay; each replays the recording of its `sourceCoin`, prices on its `tickSize`. */
  symbols: SymbolSpec[];
  /** Tick period per symbol, ms (default 500). */
  intervalMs?: number;
  /**
   * Wall time (Unix ms) at which the replay stands at the recording start (default 0, the Unix
   * epoch: a fixed value, so every process is at the same replay position at the same wall time).
   */
  anchorMs?: number;
  /** Wall clock, Unix ms (default `Date.now`). */
  now?: () => number;
  /**
   * Receives each tick (`ts` = the wall time) and the recorded trade prints the replay passed over
   * since the symbol's previous tick (for live candle volume). Not called again for a symbol until
   * the previous call settles.
   */
  onTick: (tick: MarkTick, prints: TapePrint[]) => Promise<void> | void;
  /** Receives errors thrown or rejected by `onTick` (default: `console.error`). Its own errors are swallowed. */
  onError?: (err: unknown) => void;
  /** Directory holding `hyperliquid_ticks/` (default: `marketDataDir()`, i.e. `MARKET_DATA_DIR` or `<repo>/data/recorded`). */
  dataDir?: string;
}

/**
 * Replays recorded marks for a set of symbols on the wall clock.
 * `start()` loads the recordings and ticks every symbol at once, then every `intervalMs`;
 * `stop()` stops the timer and waits for `onTick` calls in flight; `tickNow(symbol)` computes
 * the tick for the current wall time on demand (after `start()` has loaded the data).
 */
export class ReplayMarkFeed {
  private readonly specs: Map<string, { spec: SymbolSpec; tickSize: Decimal }>;
  private readonly markets = new Map<string, RecordedMarket>();
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly lastTickMs = new Map<string, number>();
  private readonly intervalMs: number;
  private readonly anchorMs: number;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private starting: Promise<void> | undefined;
  private stopped = false;

  /** @throws Error on a duplicate symbol, a non-positive `intervalMs` or an invalid `tickSize`. */
  constructor(private readonly opts: ReplayMarkFeedOptions) {
    this.intervalMs = opts.intervalMs ?? 500;
    if (!(Number.isFinite(this.intervalMs) && this.intervalMs > 0))
      throw new Error(`intervalMs must be a positive number of ms, got ${opts.intervalMs}`);
    this.anchorMs = opts.anchorMs ?? 0;
    this.now = opts.now ?? Date.now;
    this.specs = new Map();
    for (const spec of opts.symbols) {
      if (this.specs.has(spec.symbol)) throw new Error(`symbol ${spec.symbol} listed twice`);
      const tickSize = new Decimal(spec.tickSize);
      if (!tickSize.isPositive() || tickSize.isZero())
        throw new Error(`tickSize of ${spec.symbol} must be positive, got ${spec.tickSize}`);
      this.specs.set(spec.symbol, { spec, tickSize });
    }
  }

  /**
   * Loads the recordings (memoised per process), emits one tick per symbol immediately, then one
   * every `intervalMs`. Idempotent while running. Rejects when the recorded data cannot be loaded.
   */
  start(): Promise<void> {
    this.starting ??= this.run();
    return this.starting;
  }

  private async run(): Promise<void> {
    this.stopped = false;
    try {
      const loaded = await Promise.all(
        [...this.specs.values()].map(
          async ({ spec }) => [spec.symbol, await loadRecordedMarket(spec.sourceCoin, this.opts.dataDir)] as const,
        ),
      );
      for (const [symbol, m] of loaded) this.markets.set(symbol, m);
    } catch (err) {
      this.starting = undefined;
      throw err;
    }
    if (this.stopped) return;
    this.emitAll();
    this.timer = setInterval(() => this.emitAll(), this.intervalMs);
  }

  /** Stops ticking and resolves once every `onTick` in flight has settled. Safe to call twice or before `start()`. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.starting?.catch(() => undefined);
    this.starting = undefined;
    await Promise.allSettled([...this.inFlight.values()]);
  }

  /**
   * The tick of `symbol` (venue-suffixed, e.g. `BTC.PAPER`) for the current wall time: mark and
   * best bid/offer in USD, book re-centred on the mark, `ts` = `now()` (Unix ms).
   * @throws Error when the feed does not replay `symbol` or `start()` has not loaded its data yet.
   */
  tickNow(symbol: string): MarkTick {
    const entry = this.specs.get(symbol);
    if (!entry) throw new Error(`mark feed does not replay ${symbol}`);
    const m = this.markets.get(symbol);
    if (!m) throw new Error(`mark feed has not loaded ${symbol} yet: await start() first`);
    const wallMs = this.now();
    return tickAt(
      m,
      replayTime(wallMs, this.anchorMs, m.startMs, m.endMs),
      entry.spec.venue,
      symbol,
      wallMs,
      entry.tickSize,
    );
  }

  private emitAll(): void {
    for (const symbol of this.specs.keys()) {
      if (this.inFlight.has(symbol)) continue; // previous onTick of this symbol still running: skip
      const p = (async () => {
        try {
          const tick = this.tickNow(symbol);
          const from = this.lastTickMs.get(symbol) ?? tick.ts;
          this.lastTickMs.set(symbol, tick.ts);
          await this.opts.onTick(tick, tradesBetween(this.markets.get(symbol)!, from, tick.ts, this.anchorMs));
        } catch (err) {
          this.report(err);
        }
      })().finally(() => this.inFlight.delete(symbol));
      this.inFlight.set(symbol, p);
    }
  }

  private report(err: unknown): void {
    try {
      if (this.opts.onError) this.opts.onError(err);
      else console.error('mark feed tick failed', err);
    } catch {
      // a failing error reporter must not stop the feed
    }
  }
}

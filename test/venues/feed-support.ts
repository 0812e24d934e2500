/**
 * What the live venue feed tests (test/venues/*-ws-feed.test.ts) share: waiting for a condition, a tick's book as
 * decimal strings, and a feed under test that records every tick and stale edge it reports.
 */
import { fmt } from '../../domain/decimal.js';
import type { TapePrint } from '../../domain/market/replay.js';
import type { MarkTick } from '../../domain/market/types.js';
import { waitFor } from '../support/wait.js';

/** Polls `ok` every 5 ms until it answers something truthy (at most `ms`, default 3 s) and returns that. */
export const until = <T>(ok: () => T | undefined | false, ms = 3_000) =>
  waitFor(async () => ok(), Boolean, ms, 5) as Promise<T>;

/** A tick's book as `[price, size]` decimal strings, best first (`fmt`). */
export const wireBook = (t: MarkTick) => ({
  bids: t.book.bids.map((l) => [fmt(l.price), fmt(l.size)]),
  asks: t.book.asks.map((l) => [fmt(l.price), fmt(l.size)]),
});

/** The options every feed under test gets: ticks and the first reconnect every 20 ms, reports recorded, errors ignored. */
export interface RecordingOptions {
  intervalMs: number;
  reconnectMs: number;
  onTick: (tick: MarkTick, prints: TapePrint[]) => void;
  onStale: (symbol: string, stale: boolean) => void;
  onError: () => void;
}

/**
 * A feed under test: `start(extra)` builds it with {@link RecordingOptions} (then `extra`) and starts it; `ticks` and
 * `staleEdges` are what it reported, `ticksOf(symbol)` one symbol's ticks; `reset()` (for `afterEach`) stops it and
 * forgets them.
 */
export function feedUnderTest<X, F extends { start(): void; stop(): Promise<void> }>(
  build: (recording: RecordingOptions, extra: X) => F,
) {
  const ticks: { tick: MarkTick; prints: TapePrint[] }[] = [];
  const staleEdges: [string, boolean][] = [];
  let feed: F | undefined;
  const recording: RecordingOptions = {
    intervalMs: 20,
    reconnectMs: 20,
    onTick: (tick, prints) => void ticks.push({ tick, prints }),
    onStale: (symbol, stale) => void staleEdges.push([symbol, stale]),
    onError: () => undefined,
  };
  return {
    ticks,
    staleEdges,
    ticksOf: (symbol: string) => ticks.filter((t) => t.tick.symbol === symbol),
    start(extra: X): F {
      feed = build(recording, extra);
      feed.start();
      return feed;
    },
    async reset() {
      await feed?.stop();
      feed = undefined;
      ticks.length = 0;
      staleEdges.length = 0;
    },
  };
}

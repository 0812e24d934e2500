/**
 * The Hyperliquid simulator's own prices when it is given no `markOf` (docs/venues.md §1.8): a replay
 * of the recorded Hyperliquid ticks (data/recorded, domain/market/replay.ts) on the wall clock, the
 * same ping-pong as the worker's replay feed (anchor: the Unix epoch), so the simulator never prices
 * from the marks a live feed of it publishes. The mark of a symbol is the recorded mid of its coin at
 * the replay position (USD, decimal string).
 */
import { replayTime, tickAt, type RecordedMarket } from '../domain/market/replay.js';
import type { SymbolSpec } from '../domain/market/symbols.js';
import { Decimal } from '../domain/decimal.js';
import { loadRecordedMarket } from '../modules/market/feeds/recorded.js';

/**
 * A `markOf` (platform symbol such as `BTC.HL` → mark in USD as a decimal string, or null for a symbol
 * not in `symbols`) replaying the recordings of the symbols' coins from `dataDir` (default: the
 * configured `MARKET_DATA_DIR`, else `<repo>/data/recorded`) at wall time `now()` (Unix ms). A
 * recording is loaded on first use; a recording that cannot be loaded answers null (no mark).
 */
export function replayedMarks(
  symbols: readonly SymbolSpec[],
  opts: { dataDir?: string; now?: () => number } = {},
): (symbol: string) => Promise<string | null> {
  const now = opts.now ?? Date.now;
  const loaded = new Map<string, Promise<RecordedMarket | null>>();
  return async (symbol) => {
    const spec = symbols.find((s) => s.symbol === symbol);
    if (!spec) return null;
    let market = loaded.get(spec.sourceCoin);
    if (!market) {
      market = loadRecordedMarket(spec.sourceCoin, opts.dataDir).catch(() => null);
      loaded.set(spec.sourceCoin, market);
    }
    const m = await market;
    if (!m) return null;
    const wallMs = now();
    const tick = tickAt(
      m,
      replayTime(wallMs, 0, m.startMs, m.endMs),
      spec.venue,
      symbol,
      wallMs,
      new Decimal(spec.tickSize),
    );
    return tick.mark.toFixed();
  };
}

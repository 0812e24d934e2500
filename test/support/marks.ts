/**
 * Real marks for tests: ticks of the recorded Hyperliquid data, published to the mark store
 * (and so NOTIFYed to the trigger watcher) exactly as the replay feed publishes them.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { Decimal } from '../../domain/decimal.js';
import { tickAt } from '../../domain/market/replay.js';
import { findSymbol } from '../../domain/market/symbols.js';
import type { MarkTick } from '../../domain/market/types.js';
import { loadRecordedMarket } from '../../modules/market/feeds/recorded.js';
import { publishMark } from '../../modules/market/feeds/marks.js';

/** The recorded tick of a paper symbol at `fraction` (0..1) of the recording, stamped now. */
export async function recordedTick(symbol: string, fraction: number, venue = 'paper'): Promise<MarkTick> {
  const spec = findSymbol(venue, symbol)!;
  const m = await loadRecordedMarket(spec.sourceCoin);
  const t = m.startMs + Math.round((m.endMs - m.startMs) * fraction);
  return tickAt(m, t, venue, symbol, Date.now(), new Decimal(spec.tickSize));
}

/** The recorded ticks with the lowest and the highest mark of a symbol (sampled every 1 %). */
export async function extremeTicks(symbol: string): Promise<{ low: MarkTick; high: MarkTick }> {
  const ticks = await Promise.all(Array.from({ length: 101 }, (_, i) => recordedTick(symbol, i / 100)));
  const sorted = [...ticks].sort((a, b) => a.mark.comparedTo(b.mark));
  return { low: sorted[0], high: sorted.at(-1)! };
}

/** Publishes a tick as the current mark (fresh timestamp). */
export async function publish(orm: MikroORM, tick: MarkTick): Promise<void> {
  await publishMark(orm, { ...tick, ts: Date.now() });
}

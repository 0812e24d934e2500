/**
 * Real marks for tests: ticks of the recorded Hyperliquid data, published to the mark store
 * (and so NOTIFYed to the trigger watcher) exactly as the replay feed publishes them.
 */
import { expect } from 'vitest';
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

/**
 * Publishes the recorded mid-recording tick of `symbol` on `venue` as its current mark, every ask (top and
 * book) moved up by the fraction `askMarkup` (a decimal string: '0.005' = 0.5 % dearer) and rounded to cents,
 * so that smart routing sees that venue as the dearer one to buy on.
 */
export async function publishQuote(
  orm: MikroORM,
  venue: 'hyperliquid' | 'aster',
  symbol: string,
  askMarkup = '0',
): Promise<void> {
  const t = await recordedTick(symbol, 0.5, venue);
  const up = (p: Decimal) => p.times(new Decimal(1).plus(askMarkup)).toDecimalPlaces(2);
  await publishMark(orm, {
    ...t,
    ts: Date.now(),
    ask: up(t.ask),
    book: { bids: t.book.bids, asks: t.book.asks.map((l) => ({ price: up(l.price), size: l.size })) },
  });
}

/**
 * `tick` moved to `factor` (a decimal string: '1.03' = 3 % up) times its mark, rounded to whole USD, with the
 * bid and ask 1 USD either side and a book of one level of 10 on each side. Not published.
 */
export function movedTick(tick: MarkTick, factor: string): MarkTick {
  const mark = tick.mark.mul(factor).toDecimalPlaces(0);
  return {
    ...tick,
    mark,
    bid: mark.sub(1),
    ask: mark.add(1),
    book: {
      bids: [{ price: mark.sub(1), size: new Decimal(10) }],
      asks: [{ price: mark.add(1), size: new Decimal(10) }],
    },
  };
}

/**
 * Publishes the highest recorded tick of the paper `symbol` and returns a buy limit `price` (the lowest recorded
 * mark rounded up to whole USD) that the lowest mark reaches and the highest does not: an order at that price
 * rests until the test publishes `low`. Returns both ticks with it.
 */
export async function restingBuyPrice(orm: MikroORM, symbol: string) {
  const { low, high } = await extremeTicks(symbol);
  const price = low.mark.ceil();
  expect(high.mark.gt(price)).toBe(true);
  await publish(orm, high);
  return { price, low, high };
}

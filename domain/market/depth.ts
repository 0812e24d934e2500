/**
 * Depth grouped into price buckets (docs/api.md §4.6 `depth/.../grouped`): each level's size is added to
 * the bucket its price falls in — bids round down to a multiple of `step`, asks round up — so a
 * grouped book never looks better than the real one. Decimal strings in, decimal strings out.
 */
import { Decimal, fmt } from '../decimal.js';

/** `[price, size]` levels, best first. */
export type Levels = [string, string][];

/** Groups one side into buckets of `step` USD; `side` decides the rounding direction. */
export function groupLevels(levels: Levels, step: Decimal, side: 'bids' | 'asks'): Levels {
  const buckets = new Map<string, Decimal>();
  for (const [price, size] of levels) {
    const p = new Decimal(price).div(step);
    const bucket = fmt((side === 'bids' ? p.floor() : p.ceil()).times(step));
    buckets.set(bucket, (buckets.get(bucket) ?? new Decimal(0)).plus(size));
  }
  return [...buckets.entries()].map(([p, s]) => [p, fmt(s)]);
}

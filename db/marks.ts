/**
 * Reading the canonical mark store (docs/architecture.md "Market data"): one row per venue and symbol,
 * upserted by the mark feed (modules/market/feeds/marks.ts). Compose, smart routing, the paper engine,
 * routed dispatch and funding read it here.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from '../domain/decimal.js';
import type { MarkTick } from '../domain/market/types.js';
import { Mark } from './entities.js';

/** Reads the current mark of a venue symbol; null when none, or older than `maxAgeMs`. */
export async function readMark(
  em: EntityManager,
  venue: string,
  symbol: string,
  maxAgeMs: number,
  now = Date.now(),
): Promise<MarkTick | null> {
  const row = await em.findOne(Mark, { venue, symbol }, { disableIdentityMap: true });
  if (!row || now - row.ts.getTime() > maxAgeMs) return null;
  const level = ([price, size]: [string, string]) => ({ price: new Decimal(price), size: new Decimal(size) });
  return {
    venue,
    symbol,
    ts: row.ts.getTime(),
    mark: new Decimal(row.mark),
    bid: new Decimal(row.bid),
    ask: new Decimal(row.ask),
    book: { bids: row.book.bids.map(level), asks: row.book.asks.map(level) },
  };
}

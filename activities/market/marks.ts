/**
 * The canonical mark store (docs/architecture.md "Market data"): the feed upserts one row per venue and
 * symbol (the row trigger NOTIFYs `marks`); the paper venue reads the same row.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Decimal, fmt } from '../../domain/decimal.js';
import type { MarkTick } from '../../domain/market/types.js';
import { Mark } from '../../db/entities.js';
import { platformEm } from '../../db/orm.js';

/** Stores a tick as the current mark of its venue symbol. */
export async function publishMark(orm: MikroORM, tick: MarkTick): Promise<void> {
  const level = (l: { price: Decimal; size: Decimal }): [string, string] => [fmt(l.price), fmt(l.size)];
  await platformEm(orm).upsert(Mark, {
    venue: tick.venue,
    symbol: tick.symbol,
    mark: fmt(tick.mark),
    bid: fmt(tick.bid),
    ask: fmt(tick.ask),
    book: { bids: tick.book.bids.map(level), asks: tick.book.asks.map(level) },
    ts: new Date(tick.ts),
  });
}

/** Reads the current mark of a venue symbol; null when none, or older than `maxAgeMs`. */
export async function readMark(em: EntityManager, venue: string, symbol: string, maxAgeMs: number, now = Date.now()): Promise<MarkTick | null> {
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

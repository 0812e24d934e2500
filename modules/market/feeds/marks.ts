/**
 * Publishing to the canonical mark store (docs/architecture.md "Market data"): the feed upserts one row
 * per venue and symbol (the row trigger NOTIFYs `marks`); every reader uses db/marks.ts.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { fmt, type Decimal } from '../../../domain/decimal.js';
import type { MarkTick } from '../../../domain/market/types.js';
import { Mark } from '../../../db/entities.js';
import { platformEm } from '../../../db/orm.js';

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

/**
 * Reading the canonical mark store (docs/architecture.md "Market data"): one row per venue and symbol,
 * upserted by the mark feed (modules/market/feeds/marks.ts). Compose, smart routing, the paper engine,
 * routed dispatch and funding read it here.
 */
import { Decimal } from '../domain/decimal.js';
import type { MarkTick } from '../domain/market/types.js';
import { sqlFor, type Db } from './sql.js';

/** A stored book side: `[price, size]` decimal strings, best first. */
type StoredLevels = [string, string][];

/** A `marks` row as {@link markColumns} selects it (numerics as text, so decimals stay exact). */
export interface MarkRow {
  mark: string;
  bid: string;
  ask: string;
  book: { bids: StoredLevels; asks: StoredLevels };
  ts: Date | string;
}

/** The select list of a {@link MarkRow} of `marks` aliased `alias`, each name prefixed with `prefix`. */
export const markColumns = (alias: string, prefix = '') =>
  `${alias}.mark::text as "${prefix}mark", ${alias}.bid::text as "${prefix}bid", ${alias}.ask::text as "${prefix}ask", ` +
  `${alias}.book as "${prefix}book", ${alias}.ts as "${prefix}ts"`;

/** The mark tick of a {@link MarkRow} (prices USD); null when there is none or it is older than `maxAgeMs` (ms) at `now` (epoch ms). */
export function markTickOf(
  row: MarkRow | null | undefined,
  venue: string,
  symbol: string,
  maxAgeMs: number,
  now = Date.now(),
): MarkTick | null {
  const ts = row ? new Date(row.ts).getTime() : NaN;
  if (!row || now - ts > maxAgeMs) return null;
  const level = ([price, size]: [string, string]) => ({ price: new Decimal(price), size: new Decimal(size) });
  return {
    venue,
    symbol,
    ts,
    mark: new Decimal(row.mark),
    bid: new Decimal(row.bid),
    ask: new Decimal(row.ask),
    book: { bids: row.book.bids.map(level), asks: row.book.asks.map(level) },
  };
}

/**
 * Reads the current mark of a venue symbol (prices USD, sizes contracts); null when none, or older than `maxAgeMs`
 * (ms) at `now` (epoch ms). One statement through `db`: the ledger's transaction (db/sql.ts) or a MikroORM fork.
 */
export async function readMark(
  db: Db,
  venue: string,
  symbol: string,
  maxAgeMs: number,
  now = Date.now(),
): Promise<MarkTick | null> {
  const [row] = await sqlFor(db).rows<MarkRow>(
    `select ${markColumns('marks')} from marks where venue = $1 and symbol = $2`,
    [venue, symbol],
  );
  return markTickOf(row, venue, symbol, maxAgeMs, now);
}

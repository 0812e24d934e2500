/**
 * The marks of an account's open positions (docs/api.md §2.5), keyed `<venue> <symbol>`: from the quotes
 * hub's memory (kept current by NOTIFY `marks`), and from the `marks` table for any pair the hub does not
 * hold yet (its first read on this process, or while its LISTEN connection is down). A pair with no mark
 * at all is absent.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from '../../../domain/decimal.js';
import { marksFor } from '../../../db/account-state.js';
import { sqlOf } from '../../../db/sql.js';
import type { QuotesHub } from '../../../api/ws/quotes-hub.js';

export async function positionMarks(
  em: EntityManager,
  quotes: Pick<QuotesHub, 'latest'>,
  positions: { venue: string; symbol: string }[],
): Promise<Map<string, Decimal>> {
  const marks = new Map<string, Decimal>();
  const missing: typeof positions = [];
  for (const p of positions) {
    const key = `${p.venue} ${p.symbol}`;
    const quote = quotes.latest(key);
    if (quote) marks.set(key, new Decimal(quote.mark));
    else missing.push(p);
  }
  for (const [key, mark] of missing.length ? await marksFor(sqlOf(em), missing) : []) marks.set(key, mark);
  return marks;
}

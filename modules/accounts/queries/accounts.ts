/**
 * Cursor-paginated histories of one account (docs/api.md §4.3, §8), newest first: the platform's
 * orders, fills, trades (keyset on their time and id), the funding ledger and the audit log (keyset
 * on the event sequence). The caller's ownership is checked by the route first.
 */
import type { EntityManager, EntityName } from '@mikro-orm/postgresql';
import { decodeCursor, decodeSeqCursor, toPage } from '../../../domain/pagination.js';
import { AccountEvent } from '../../../db/entities.js';
import { auditEventView, fundingEntryView } from '../presenters/accounts.js';

/** Keyset condition for newest-first lists ordered by (`field` desc, id desc). */
function after(cursor: string | undefined, field: string) {
  if (!cursor) return {};
  const { at, id } = decodeCursor(cursor);
  return { $or: [{ [field]: { $lt: new Date(at) } }, { [field]: new Date(at), id: { $lt: id } }] };
}

/**
 * One page of an account's `entity` rows, newest `timeField` first, as `{ [key]: views, nextCursor }`.
 * @throws ApiError `400 invalid_cursor`.
 */
export async function historyPage<T extends { id: string }>(
  em: EntityManager,
  history: { entity: EntityName<T>; timeField: string; key: string; view: (row: T) => unknown },
  accountId: string,
  query: { limit: number; cursor?: string },
) {
  const { entity, timeField, key, view } = history;
  const rows = (await em.find(
    entity as never,
    { accountId, ...after(query.cursor, timeField) },
    { orderBy: { [timeField]: 'desc', id: 'desc' } as never, limit: query.limit + 1 },
  )) as unknown as T[];
  const page = toPage(rows, query.limit, (r) => ({
    at: new Date((r as Record<string, unknown>)[timeField] as Date).toISOString(),
    id: r.id,
  }));
  return { [key]: page.items.map(view), nextCursor: page.nextCursor };
}

/** The events matching `where`, newest first by sequence, one page. */
async function eventPage(em: EntityManager, where: Record<string, unknown>, query: { limit: number; cursor?: string }) {
  if (query.cursor) where.seq = { $lt: decodeSeqCursor(query.cursor) };
  const rows = await em.find(AccountEvent, where, { orderBy: { seq: 'desc' }, limit: query.limit + 1 });
  return toPage(rows, query.limit, (r) => ({ at: r.createdAt.toISOString(), id: String(r.seq) }));
}

/** The deposit, withdrawal and transfer ledger (`funding.*` events), one page: `{ events, nextCursor }`. @throws ApiError `400 invalid_cursor`. */
export async function fundingPage(em: EntityManager, accountId: string, query: { limit: number; cursor?: string }) {
  const page = await eventPage(em, { accountId, kind: { $like: 'funding.%' } }, query);
  return { events: page.items.map(fundingEntryView), nextCursor: page.nextCursor };
}

/** Filters of the audit log. */
export interface EventFilter {
  kind?: string;
  venue?: string;
  /** Inclusive, ISO 8601. */
  from?: string;
  /** Exclusive, ISO 8601. */
  to?: string;
}

/** The audit log, filtered, one page: `{ events, nextCursor }`. @throws ApiError `400 invalid_cursor`. */
export async function eventsPage(
  em: EntityManager,
  accountId: string,
  query: EventFilter & { limit: number; cursor?: string },
) {
  const where: Record<string, unknown> = { accountId };
  if (query.kind) where.kind = query.kind;
  if (query.venue) where.venue = query.venue;
  if (query.from || query.to)
    where.createdAt = {
      ...(query.from ? { $gte: new Date(query.from) } : {}),
      ...(query.to ? { $lt: new Date(query.to) } : {}),
    };
  const page = await eventPage(em, where, query);
  return { events: page.items.map(auditEventView), nextCursor: page.nextCursor };
}

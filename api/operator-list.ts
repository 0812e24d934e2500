/**
 * Newest-first cursor pages over a tenant's rows (docs/api.md §8 pagination: `limit`, opaque `cursor`,
 * `nextCursor`, `hasMore`), for the operator surfaces (firms, templates, risk profiles, trading groups, prop accounts, webhooks).
 */
import type { EntityManager, EntityName, FilterQuery } from '@mikro-orm/postgresql';
import { decodeCursor, toPage } from '../domain/pagination.js';

/**
 * One page of `entity` rows matching `where`, ordered by (`createdAt` desc, `id` desc), mapped by `view`.
 * @throws ApiError `400 invalid_cursor` for a cursor this API did not issue.
 */
export async function newestFirst<T extends { id: string; createdAt: Date }, V>(
  em: EntityManager,
  entity: EntityName<T>,
  where: FilterQuery<T>,
  query: { limit: number; cursor?: string },
  view: (row: T) => V,
) {
  const after = query.cursor
    ? (({ at, id }) => ({ $or: [{ createdAt: { $lt: new Date(at) } }, { createdAt: new Date(at), id: { $lt: id } }] }))(
        decodeCursor(query.cursor),
      )
    : {};
  const rows = (await em.find(entity, { $and: [where, after] } as FilterQuery<T>, {
    orderBy: { createdAt: 'desc', id: 'desc' } as never,
    limit: query.limit + 1,
  })) as T[];
  const page = toPage(rows, query.limit, (r) => ({ at: new Date(r.createdAt).toISOString(), id: r.id }));
  return { data: page.items.map(view), nextCursor: page.nextCursor, hasMore: page.nextCursor !== null };
}

/**
 * Opaque cursor pagination (docs/api.md §8): a cursor is base64url of the last row's sort key
 * `[createdAtIso, id]`; clients never build one. Limits: default 100, caps per route.
 */
import { z } from 'zod';
import { ApiError } from './errors.js';

/** The sort key a cursor points after: newest first, ties broken by id. */
export interface CursorKey {
  at: string;
  id: string;
}

/** Encodes a sort key into an opaque cursor string. */
export function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify([key.at, key.id])).toString('base64url');
}

/**
 * Decodes a cursor produced by {@link encodeCursor}.
 * @throws ApiError `400 invalid_cursor` for anything else.
 */
export function decodeCursor(cursor: string): CursorKey {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof at !== 'string' || typeof id !== 'string' || Number.isNaN(Date.parse(at))) throw new Error('shape');
    return { at, id };
  } catch {
    throw new ApiError('invalid_cursor', 'cursor is not one this API issued');
  }
}

/** Query schema `?limit=&cursor=` with the route's cap (docs/api.md §8: default 100). */
export function pageQuery(cap: number) {
  return z.object({
    limit: z.coerce.number().int().min(1).max(cap).default(100),
    cursor: z.string().min(1).optional(),
  });
}

/**
 * Builds a page from `limit + 1` fetched rows: `{ items, nextCursor }`, `nextCursor: null` at the end.
 */
export function toPage<T>(
  rows: T[],
  limit: number,
  key: (row: T) => CursorKey,
): { items: T[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return { items, nextCursor: rows.length > limit && last ? encodeCursor(key(last)) : null };
}

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

/** Longest cursor string accepted (an ISO time and an id of at most 512 characters, base64url, with room). */
const MAX_CURSOR_LENGTH = 4096;
/** The `Date.toISOString()` form with a four-digit year: always inside PostgreSQL's timestamp range. */
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** Ids PostgreSQL can hold: no NUL, no unpaired surrogate, 1-512 characters. */
// eslint-disable-next-line no-control-regex -- NUL is what it looks for
const ID = /^(?:[^\u0000\uD800-\uDFFF]|[\uD800-\uDBFF][\uDC00-\uDFFF]){1,512}$/;
/** Largest `seq` (a PostgreSQL `integer`). */
const MAX_SEQ = 2 ** 31 - 1;

/**
 * Decodes a cursor produced by {@link encodeCursor}: `at` as `Date.toISOString()` writes it (a valid
 * time, four-digit year), `id` 1-512 characters without NUL or unpaired surrogates.
 * @throws ApiError `400 invalid_cursor` for anything else (forged, truncated, out of PostgreSQL's range).
 */
export function decodeCursor(cursor: string): CursorKey {
  try {
    if (cursor.length > MAX_CURSOR_LENGTH) throw new Error('length');
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (!Array.isArray(key) || key.length !== 2) throw new Error('shape');
    const [at, id] = key as unknown[];
    if (typeof at !== 'string' || !ISO_UTC.test(at) || new Date(at).toISOString() !== at) throw new Error('at');
    if (typeof id !== 'string' || !ID.test(id)) throw new Error('id');
    return { at, id };
  } catch {
    throw new ApiError('invalid_cursor', 'cursor is not one this API issued');
  }
}

/**
 * Decodes a cursor whose id is a sequence number (the account event log: `String(seq)`).
 * @returns the `seq` to continue below, an integer 0..2^31-1.
 * @throws ApiError `400 invalid_cursor` for anything else.
 */
export function decodeSeqCursor(cursor: string): number {
  const { id } = decodeCursor(cursor);
  const seq = /^\d{1,10}$/.test(id) ? Number(id) : NaN;
  if (!(seq <= MAX_SEQ)) throw new ApiError('invalid_cursor', 'cursor is not one this API issued');
  return seq;
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

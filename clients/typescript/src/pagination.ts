/**
 * Cursor collections (docs/api.md §8 "Pagination"): `?limit=&cursor=`, answers `{ <items>: [...], nextCursor }`
 * (`nextCursor` opaque, `null` at the end; operator lists add `hasMore`). {@link paginate} walks one from its
 * first page to its last, item by item.
 */
import type { paths } from './generated/openapi.js';

/** The GET operations of the document whose query takes a `cursor` (account history, operator lists, …). */
export type CursorPath = {
  [P in keyof paths]: paths[P] extends { get: { parameters: { query?: infer Q } } }
    ? [NonNullable<Q>] extends [never]
      ? never
      : 'cursor' extends keyof NonNullable<Q>
        ? P
        : never
    : never;
}[keyof paths];

/** One page of a cursor collection as the API answers it: the items under one key, and `nextCursor`. */
export interface CursorPage {
  nextCursor: string | null;
  hasMore?: boolean;
}

/** The item type of a page type `D`: the element of its array-valued field. */
export type PageItem<D> = { [K in keyof D]: D[K] extends readonly (infer I)[] ? I : never }[keyof D];

/**
 * Iterates a cursor collection: calls `page(cursor)` (`undefined` first, then each `nextCursor`) and yields the
 * items of each answer (its one array-valued field, or `itemsKey`), until `nextCursor` is `null` (or `hasMore`
 * is `false`). Pages are fetched one at a time, as the loop consumes them.
 * @throws Error when a page has no array field, or several and no `itemsKey`; whatever `page` throws (ApiError).
 */
export async function* paginate<D extends CursorPage>(
  page: (cursor: string | undefined) => Promise<D>,
  itemsKey?: keyof D & string,
): AsyncGenerator<PageItem<D>, void, undefined> {
  let cursor: string | undefined;
  do {
    const answer = await page(cursor);
    yield* itemsOf(answer, itemsKey) as PageItem<D>[];
    cursor = answer.hasMore === false ? undefined : (answer.nextCursor ?? undefined);
  } while (cursor !== undefined);
}

/** The items of one page: `page[itemsKey]`, else its only array-valued field. */
function itemsOf(page: object, itemsKey?: string): unknown[] {
  const arrays = Object.entries(page).filter(
    ([k, v]) => Array.isArray(v) && (itemsKey === undefined || k === itemsKey),
  );
  if (arrays.length !== 1)
    throw new Error(
      `paginate: expected ${itemsKey ? `an array under "${itemsKey}"` : 'exactly one array field'} in the page, found ${arrays.length}`,
    );
  return arrays[0][1] as unknown[];
}

/**
 * The operator collections attached to challenge templates (docs/api.md §4.8, §5.4 `prop:manage`): risk
 * profiles and trading groups. Both have the same life: create, replace whole, delete while nothing
 * uses them (`409 invalid_state`); a missing one is the collection's own not-found code.
 */
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError, type ErrorCode } from '../../../domain/errors.js';
import type { RiskProfile, TradingGroup } from '../../../db/entities.js';
import { scoped } from '../../../db/orm.js';
import type { ApiDeps, Caller } from '../../../api/context.js';

/** A row of a collection as these operations read it. */
export type CollectionRow = { id: string; tenantId: string; createdAt: Date; name: string };

/** What the operations need of a collection: its entity, id prefix, noun, not-found code, fields and "in use" check. */
export interface CollectionData<B> {
  entity: typeof RiskProfile | typeof TradingGroup;
  idPrefix: string;
  noun: string;
  notFound: ErrorCode;
  /** Fields of a row from a validated body. */
  fields(body: B): Record<string, unknown>;
  /** True while a template or an account uses the row. */
  inUse(em: EntityManager, id: string): Promise<boolean>;
}

const entityOf = (c: CollectionData<never>) => c.entity as unknown as typeof RiskProfile;

/** The row `id` of the collection (`em` is tenant-scoped). @throws ApiError `404 <c.notFound>`. */
export async function rowOf(em: EntityManager, c: CollectionData<never>, id: string): Promise<CollectionRow> {
  const row = await em.findOne(entityOf(c), { id });
  if (!row) throw new ApiError(c.notFound, `no ${c.noun} ${id}`);
  return row;
}

/** Creates a row of the caller's tenant from `body`. */
export async function createRow<B>(
  deps: ApiDeps,
  caller: Caller,
  c: CollectionData<B>,
  body: B,
): Promise<CollectionRow> {
  const em = scoped(deps.orm, caller.tenantId);
  const row = em.create(
    entityOf(c as CollectionData<never>),
    { id: `${c.idPrefix}_${randomBytes(8).toString('hex')}`, tenantId: caller.tenantId, ...c.fields(body) } as never,
    { partial: true },
  );
  await em.flush();
  return row;
}

/** Replaces the row's fields with `body`'s. @throws as {@link rowOf}. */
export async function replaceRow<B>(
  deps: ApiDeps,
  caller: Caller,
  c: CollectionData<B>,
  id: string,
  body: B,
): Promise<CollectionRow> {
  const em = scoped(deps.orm, caller.tenantId);
  const row = await rowOf(em, c, id);
  Object.assign(row, c.fields(body));
  await em.flush();
  return row;
}

/** Deletes a row nothing uses. @throws ApiError `409 invalid_state` while in use, as {@link rowOf}. */
export async function deleteRow<B>(
  deps: ApiDeps,
  caller: Caller,
  c: CollectionData<B>,
  id: string,
): Promise<{ id: string; deleted: true }> {
  const em = scoped(deps.orm, caller.tenantId);
  const row = await rowOf(em, c, id);
  if (await c.inUse(em, row.id)) throw new ApiError('invalid_state', `${c.noun} ${row.id} is in use`);
  await em.nativeDelete(entityOf(c as CollectionData<never>), { id: row.id });
  return { id: row.id, deleted: true };
}

/** Tenant rows the tenant routes read (docs/api.md §2.4, §5.6). */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../../../domain/errors.js';
import { Tenant, type TenantRow } from '../../../db/entities.js';
import { platformEm } from '../../../db/orm.js';
import type { ApiDeps, Caller, ResolvedTenant } from '../../../api/context.js';
import { resolvedTenant } from '../../../api/middleware/tenant.js';

/**
 * The caller's own tenant row, loaded in `em` (a fresh unit of work by default).
 * @throws ApiError `403 forbidden` for another tenant's `id`.
 */
export async function ownTenant(
  deps: ApiDeps,
  caller: Caller,
  id?: string,
  em: EntityManager = platformEm(deps.orm),
): Promise<TenantRow> {
  if (id && id !== caller.tenantId) throw new ApiError('forbidden', 'this is another tenant');
  return em.findOneOrFail(Tenant, { id: caller.tenantId });
}

/**
 * The row of the tenant the request resolved to (the unversioned public reads: no credential).
 * @throws ApiError `404 unknown_tenant_origin`.
 */
export function resolvedTenantRow(deps: ApiDeps, ctx: { state: { tenant?: ResolvedTenant } }): Promise<TenantRow> {
  return platformEm(deps.orm).findOneOrFail(Tenant, { id: resolvedTenant(ctx).id });
}

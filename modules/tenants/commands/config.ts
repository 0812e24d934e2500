/**
 * A tenant's configuration (docs/api.md §2.4, §4.2, §5.6; issue 7): its sections (branding, theme, flags,
 * venues, plan; domain/tenant/config.ts) and its registered origins (white-label hosts: a request
 * whose Origin or Host is one of them resolves to this tenant). Only the caller's own tenant.
 */
import { ApiError } from '../../../domain/errors.js';
import { normaliseOrigin } from '../../../domain/tenancy.js';
import type { TenantSection } from '../../../domain/tenant/config.js';
import type { TenantRow } from '../../../db/entities.js';
import { platformEm } from '../../../db/orm.js';
import type { ApiDeps, Caller } from '../../../api/context.js';
import { ownTenant } from '../queries/tenants.js';

/** Replaces one section of the caller's tenant (validated by its schema). @throws as {@link ownTenant}. */
export async function replaceSection(
  deps: ApiDeps,
  caller: Caller,
  id: string,
  section: TenantSection,
  body: Record<string, unknown>,
): Promise<TenantRow> {
  const em = platformEm(deps.orm);
  const row = await ownTenant(deps, caller, id, em);
  row[section] = body;
  await em.flush();
  return row;
}

/**
 * Replaces the registered origins, normalised (`scheme://host[:port]`) and without duplicates.
 * @throws ApiError `400 validation_failed` (code `origin`) for each entry that is not an origin, as {@link ownTenant}.
 */
export async function replaceOrigins(deps: ApiDeps, caller: Caller, id: string, given: string[]): Promise<string[]> {
  const origins = given.map((o) => normaliseOrigin(o));
  const bad = given.filter((_o, i) => !origins[i]);
  if (bad.length)
    throw new ApiError(
      'validation_failed',
      bad.map((o) => ({
        path: 'body.origins',
        message: `${o} is not an origin (scheme://host[:port])`,
        code: 'origin',
      })),
    );
  const em = platformEm(deps.orm);
  const row = await ownTenant(deps, caller, id, em);
  row.origins = [...new Set(origins as string[])];
  await em.flush();
  return row.origins;
}

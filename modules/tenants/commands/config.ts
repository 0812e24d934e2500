/**
 * A tenant's configuration (docs/api.md §2.4, §4.2, §5.6; issue 7): its sections (branding, theme, flags,
 * venues, plan, accounts; domain/tenant/config.ts) and its registered origins (white-label hosts: a
 * request whose Origin or Host is one of them resolves to this tenant). Only the caller's own tenant;
 * the plan is the platform's (issue 16): a tenant cannot write it. A host belongs to one tenant
 * (table `tenant_origin_hosts`, migration UniqueOrigins).
 */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../../../domain/errors.js';
import { normaliseOrigin } from '../../../domain/tenancy.js';
import { PLATFORM_SECTIONS, readSection, type TenantSection } from '../../../domain/tenant/config.js';
import { TradingGroup, type TenantRow } from '../../../db/entities.js';
import { platformEm, scoped } from '../../../db/orm.js';
import type { ApiDeps, Caller } from '../../../api/context.js';
import { ownTenant } from '../queries/tenants.js';

/**
 * Replaces one section of the caller's tenant (validated by its schema). A tenant's `accounts.defaultTradingGroupId`
 * must name one of its trading groups.
 * @throws ApiError `403 plan_change_forbidden` for a platform section (`plan`), nothing written;
 * `404 trading_group_not_found`; as {@link ownTenant}.
 */
export async function replaceSection(
  deps: ApiDeps,
  caller: Caller,
  id: string,
  section: TenantSection,
  body: Record<string, unknown>,
): Promise<TenantRow> {
  const em = platformEm(deps.orm);
  const row = await ownTenant(deps, caller, id, em);
  if (PLATFORM_SECTIONS.includes(section))
    throw new ApiError('plan_change_forbidden', `the ${section} is set by the platform; a tenant cannot change it`);
  if (section === 'accounts') {
    const groupId = readSection('accounts', body).defaultTradingGroupId;
    if (groupId && !(await scoped(deps.orm, row.id).findOne(TradingGroup, { id: groupId })))
      throw new ApiError('trading_group_not_found', `no trading group ${groupId}`);
  }
  row[section] = body;
  await em.flush();
  return row;
}

/** The hosts (`host[:port]`) of `origins` that another tenant than `tenantId` has registered. */
async function hostsTakenByOthers(em: EntityManager, tenantId: string, origins: string[]): Promise<string[]> {
  const hosts = [...new Set(origins.map((o) => new URL(o).host))];
  const rows = await em
    .getConnection()
    .execute<{ host: string }[]>(
      `select host from tenant_origin_hosts where tenant_id <> ? and host in (select jsonb_array_elements_text(?::jsonb))`,
      [tenantId, JSON.stringify(hosts)],
    );
  return rows.map((r) => r.host);
}

const originTaken = (hosts: string[]) =>
  new ApiError(
    'origin_taken',
    hosts.length
      ? hosts.map((h) => ({
          path: 'body.origins',
          message: `${h} is registered by another tenant`,
          code: 'origin_taken',
        }))
      : 'an origin is registered by another tenant',
  );

/**
 * Replaces the registered origins, normalised (`scheme://host[:port]`) and without duplicates. A host
 * (`host[:port]`, whatever the scheme) registered by another tenant is refused; the database's
 * unique `tenant_origin_hosts.host` decides between concurrent claims.
 * @throws ApiError `400 validation_failed` (code `origin`) for each entry that is not an origin;
 * `409 origin_taken` (nothing written) when another tenant holds one of the hosts; as {@link ownTenant}.
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
  const wanted = [...new Set(origins as string[])];
  const em = platformEm(deps.orm);
  const row = await ownTenant(deps, caller, id, em);
  const taken = await hostsTakenByOthers(em, row.id, wanted);
  if (taken.length) throw originTaken(taken);
  row.origins = wanted;
  try {
    await em.flush();
  } catch (err) {
    // A concurrent claim of the same host committed first (trigger tenant_origin_hosts_sync).
    if (err instanceof UniqueConstraintViolationException)
      throw originTaken(await hostsTakenByOthers(platformEm(deps.orm), row.id, wanted));
    throw err;
  }
  return row.origins;
}

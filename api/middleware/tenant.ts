/**
 * The tenant gate (docs/api.md §5.6): resolves `ctx.state.tenant` before authentication, refuses a
 * suspended tenant with `410 tenant_suspended`. Exempt paths pass without a tenant. The caller's own
 * tenant, when it is not the one resolved, is checked after authentication ({@link assertCallerTenantActive}).
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { ApiError } from '../../domain/errors.js';
import { resolveTenant, type TenantLookup, type TenantRef } from '../../domain/tenancy.js';
import { Tenant } from '../../db/entities.js';
import { platformEm } from '../../db/orm.js';
import type { ApiMiddleware, ResolvedTenant } from '../context.js';

/** Paths that need no tenant (docs/api.md §5.6): token mint and revoke, discovery, signup, transparency, docs (the documents and their reference site, api/routes/docs-site.ts), and the operations routes (api/ops/routes.ts). */
const TENANT_EXEMPT: readonly RegExp[] = [
  /^\/api\/auth\/api-token(\/revoke)?$/,
  /^\/api\/v1\/discovery$/,
  /^\/api\/public\/tenants\//,
  /^\/api\/prop\/transparency(\/.*)?$/,
  /^\/api\/v1\/openapi\.json$/,
  /^\/api\/v1\/asyncapi\.json$/,
  /^\/docs(\/.*)?$/,
  /^\/healthz$/,
  /^\/readyz$/,
  /^\/metrics$/,
];

/** Whether `path` names no tenant (one of {@link TENANT_EXEMPT}). */
export const isTenantExempt = (path: string): boolean => TENANT_EXEMPT.some((r) => r.test(path));

/**
 * Tenant lookups against PostgreSQL. `byOrigins` finds the tenant through `tenant_origin_hosts`
 * (one tenant per host, migration UniqueOrigins), then requires one of the exact origins.
 */
export function tenantLookup(orm: MikroORM): TenantLookup & { byId(id: string): Promise<TenantRef | null> } {
  const ref = (t: { id: string; slug: string; suspended: boolean } | null): TenantRef | null =>
    t && { id: t.id, slug: t.slug, suspended: t.suspended };
  return {
    bySlug: async (slug) => ref(await platformEm(orm).findOne(Tenant, { slug })),
    byOrigins: async (origins) => {
      const rows = await platformEm(orm)
        .getConnection()
        .execute<{ id: string; slug: string; suspended: boolean }[]>(
          `select t.id, t.slug, t.suspended from tenant_origin_hosts h join tenants t on t.id = h.tenant_id
            where h.host in (select tenant_origin_host(o) from jsonb_array_elements_text(?::jsonb) o)
              and jsonb_exists_any(t.origins, array(select jsonb_array_elements_text(?::jsonb)))
            limit 1`,
          [JSON.stringify(origins), JSON.stringify(origins)],
        );
      return ref(rows[0] ?? null);
    },
    platform: async () => ref(await platformEm(orm).findOne(Tenant, { isPlatform: true })),
    byId: async (id) => ref(await platformEm(orm).findOne(Tenant, { id })),
  };
}

/** Resolves the tenant of an HTTP or WebSocket request from its headers. */
export async function tenantOf(lookup: TenantLookup, get: (h: string) => string): Promise<TenantRef> {
  const tenant = await resolveTenant({ slug: get('x-tenant-slug'), origin: get('origin'), host: get('host') }, lookup);
  if (tenant.suspended) throw new ApiError('tenant_suspended', `tenant ${tenant.slug} is suspended`);
  return tenant;
}

/**
 * Refuses a caller whose own tenant (its credential's or session's) is suspended, when the request
 * resolved to another tenant (`X-Tenant-Slug`, Origin or Host naming someone else) or to none (an
 * exempt path): the resolved tenant was already checked by {@link tenantGate}.
 * @throws ApiError `410 tenant_suspended`.
 */
export async function assertCallerTenantActive(
  tenants: { byId(id: string): Promise<TenantRef | null> },
  callerTenantId: string,
  resolved: ResolvedTenant | undefined,
): Promise<void> {
  if (resolved?.id === callerTenantId) return;
  const own = await tenants.byId(callerTenantId);
  if (!own || own.suspended)
    throw new ApiError('tenant_suspended', `tenant ${own?.slug ?? callerTenantId} is suspended`);
}

/**
 * The tenant gate middleware: sets `ctx.state.tenant` (left unset on exempt paths), resolved through
 * `lookup` (the process's authentication cache, api/auth/auth-cache.ts). @throws as {@link tenantOf}.
 */
export function tenantGate(auth: { tenants: TenantLookup }): ApiMiddleware {
  return async (ctx, next) => {
    if (!isTenantExempt(ctx.path)) ctx.state.tenant = await tenantOf(auth.tenants, (h) => ctx.get(h));
    await next();
  };
}

/**
 * The tenant the request resolved to, for routes that act without a credential (SIWE, the public
 * branding reads). @throws ApiError `404 unknown_tenant_origin`.
 */
export function resolvedTenant(ctx: { state: { tenant?: ResolvedTenant } }): ResolvedTenant {
  if (!ctx.state.tenant)
    throw new ApiError('unknown_tenant_origin', 'send X-Tenant-Slug or call from a registered origin');
  return ctx.state.tenant;
}

/**
 * The tenant gate (docs/api.md §5.6): resolves `ctx.state.tenant` before authentication, refuses a
 * suspended tenant with `410 tenant_suspended`. Exempt paths pass without a tenant.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { ApiError } from '../../domain/errors.js';
import { resolveTenant, type TenantLookup, type TenantRef } from '../../domain/tenancy.js';
import { Tenant } from '../../db/entities.js';
import { platformEm } from '../../db/orm.js';
import type { ApiMiddleware, ResolvedTenant } from '../context.js';

/** Paths that need no tenant (docs/api.md §5.6): token mint and revoke, discovery, signup, transparency, docs, and the operations routes (api/ops/routes.ts). */
export const TENANT_EXEMPT: readonly RegExp[] = [
  /^\/api\/auth\/api-token(\/revoke)?$/,
  /^\/api\/v1\/discovery$/,
  /^\/api\/public\/tenants\//,
  /^\/api\/prop\/transparency(\/.*)?$/,
  /^\/api\/v1\/openapi\.json$/,
  /^\/api\/v1\/asyncapi\.json$/,
  /^\/healthz$/,
  /^\/readyz$/,
  /^\/metrics$/,
];

/** Tenant lookups against PostgreSQL. */
export function tenantLookup(orm: MikroORM): TenantLookup {
  const ref = (t: { id: string; slug: string; suspended: boolean } | null): TenantRef | null =>
    t && { id: t.id, slug: t.slug, suspended: t.suspended };
  return {
    bySlug: async (slug) => ref(await platformEm(orm).findOne(Tenant, { slug })),
    byOrigins: async (origins) => {
      const rows = await platformEm(orm)
        .getConnection()
        .execute<{ id: string; slug: string; suspended: boolean }[]>(
          `select id, slug, suspended from tenants
            where jsonb_exists_any(origins, array(select jsonb_array_elements_text(?::jsonb)))
            order by is_platform desc limit 1`,
          [JSON.stringify(origins)],
        );
      return ref(rows[0] ?? null);
    },
    platform: async () => ref(await platformEm(orm).findOne(Tenant, { isPlatform: true })),
  };
}

/** Resolves the tenant of an HTTP or WebSocket request from its headers. */
export async function tenantOf(lookup: TenantLookup, get: (h: string) => string): Promise<TenantRef> {
  const tenant = await resolveTenant({ slug: get('x-tenant-slug'), origin: get('origin'), host: get('host') }, lookup);
  if (tenant.suspended) throw new ApiError('tenant_suspended', `tenant ${tenant.slug} is suspended`);
  return tenant;
}

export function tenantGate(orm: MikroORM): ApiMiddleware {
  const lookup = tenantLookup(orm);
  return async (ctx, next) => {
    if (!TENANT_EXEMPT.some((r) => r.test(ctx.path))) ctx.state.tenant = await tenantOf(lookup, (h) => ctx.get(h));
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

/**
 * Tenant configuration (docs/api.md §2.4, §4.2; issue 7). Sections and defaults: domain/tenant/config.ts.
 *
 * - `GET /api/v1/tenants/me` (any credential or session of the tenant) → `{ id, slug,
 *   displayName, origins, branding, theme, flags, venues, plan, fees }`.
 * - `GET /api/v1/tenants/{id}/branding|theme|flags|venues|plan` → that section (any credential of
 *   the tenant; another tenant's id: `403 forbidden`).
 * - `PUT /api/v1/tenants/{id}/branding|theme|flags|venues|plan` → the section as stored, defaults
 *   filled (operator with `tenant:config`; without it `403 forbidden`, a trader
 *   `403 wrong_credential_audience`).
 * - `PUT /api/v1/tenants/{id}/origins` `{ origins }` → the registered origins (white-label hosts:
 *   a request whose Origin or Host is one of them resolves to this tenant, docs/api.md §5.6).
 * - Unversioned, no credential, tenant-scoped (resolved from `X-Tenant-Slug`, Origin or Host; a
 *   suspended tenant answers `410 tenant_suspended`): `GET /api/branding`, `/api/theme`,
 *   `/api/features` (the flags).
 */
import Router from '@koa/router';
import { z } from 'zod';
import { ApiError } from '../../domain/errors.js';
import { normaliseOrigin } from '../../domain/tenancy.js';
import { TENANT_SECTIONS, readSection, type TenantSection } from '../../domain/tenant/config.js';
import { Tenant, type TenantRow } from '../../db/entities.js';
import { platformEm } from '../../db/orm.js';
import { callerOf, gate } from '../middleware/auth.js';
import type { ApiContext, ApiDeps, ApiState } from '../context.js';
import type { OpenApiRegistry } from '../openapi.js';
import { endpoint } from '../route.js';

const tenantParams = z.object({ id: z.string().min(1) });
const originsBody = z.object({ origins: z.array(z.string().min(1)).max(50).meta({ description: 'Origins such as `https://trade.acme.com`' }) }).meta({ id: 'TenantOrigins' });

/** Every section of a tenant, defaults filled. */
export function tenantView(t: TenantRow) {
  return {
    id: t.id,
    slug: t.slug,
    displayName: t.displayName,
    origins: t.origins,
    branding: { ...readSection('branding', t.branding), displayName: readSection('branding', t.branding).displayName ?? t.displayName },
    theme: readSection('theme', t.theme),
    flags: readSection('flags', t.flags),
    venues: readSection('venues', t.venues),
    plan: readSection('plan', t.plan),
    fees: t.feeSchedule,
  };
}

export function tenantRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>();
  const tags = ['tenants'];
  const configure = gate({ audience: 'operator', scope: 'tenant:config', write: true });
  const em = () => platformEm(deps.orm);

  /** The caller's own tenant row, loaded in `e` (a fresh unit of work by default). @throws `403 forbidden` for another tenant's id. */
  async function own(ctx: ApiContext, id?: string, e = em()): Promise<TenantRow> {
    const caller = callerOf(ctx);
    if (id && id !== caller.tenantId) throw new ApiError('forbidden', 'this is another tenant');
    return e.findOneOrFail(Tenant, { id: caller.tenantId });
  }
  /** The tenant the request resolved to (unversioned public reads). */
  async function resolved(ctx: ApiContext): Promise<TenantRow> {
    if (!ctx.state.tenant) throw new ApiError('unknown_tenant_origin', 'send X-Tenant-Slug or call from a registered origin');
    return em().findOneOrFail(Tenant, { id: ctx.state.tenant.id });
  }

  endpoint(router, openapi, { method: 'get', path: '/api/v1/tenants/me', summary: 'The caller’s tenant: branding, theme, flags, venues, plan, fees', tags, schemas: {}, responses: { '200': { description: 'Tenant' } } }, async (ctx) => {
    ctx.body = tenantView(await own(ctx));
  });

  for (const section of Object.keys(TENANT_SECTIONS) as TenantSection[]) {
    const schema = TENANT_SECTIONS[section];
    endpoint(router, openapi, { method: 'get', path: `/api/v1/tenants/:id/${section}`, summary: `The tenant’s ${section}`, tags, schemas: { params: tenantParams }, responses: { '200': { description: section, schema } } }, async (ctx, { params }) => {
      ctx.body = tenantView(await own(ctx, params.id))[section];
    });
    endpoint(router, openapi, { method: 'put', path: `/api/v1/tenants/:id/${section}`, summary: `Replace the tenant’s ${section}`, tags, gate: configure, requires: 'tenant:config', schemas: { params: tenantParams, body: schema }, responses: { '200': { description: section, schema } } }, async (ctx, { params, body }) => {
      const e = em();
      const row = await own(ctx, params.id, e);
      row[section] = body as Record<string, unknown>;
      await e.flush();
      ctx.body = tenantView(row)[section];
    });
  }

  endpoint(router, openapi, { method: 'put', path: '/api/v1/tenants/:id/origins', summary: 'Replace the registered origins (white-label hosts)', tags, gate: configure, requires: 'tenant:config', schemas: { params: tenantParams, body: originsBody }, responses: { '200': { description: '{ origins }' } } }, async (ctx, { params, body }) => {
    const origins = body.origins.map((o) => normaliseOrigin(o));
    const bad = body.origins.filter((_o, i) => !origins[i]);
    if (bad.length) throw new ApiError('validation_failed', bad.map((o) => ({ path: 'body.origins', message: `${o} is not an origin (scheme://host[:port])`, code: 'origin' })));
    const e = em();
    const row = await own(ctx, params.id, e);
    row.origins = [...new Set(origins as string[])];
    await e.flush();
    ctx.body = { origins: row.origins };
  });

  const PUBLIC: [string, (t: TenantRow) => unknown][] = [
    ['/api/branding', (t) => tenantView(t).branding],
    ['/api/theme', (t) => tenantView(t).theme],
    ['/api/features', (t) => tenantView(t).flags],
  ];
  for (const [path, pick] of PUBLIC) {
    endpoint(router, openapi, { method: 'get', path, summary: `The resolved tenant’s ${path.slice(5)} (no credential)`, tags, schemas: {}, responses: { '200': { description: path.slice(5) } } }, async (ctx) => {
      ctx.body = pick(await resolved(ctx));
    });
  }
  return router;
}

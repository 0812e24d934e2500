/**
 * `/api/v1/tenants/*`: tenant configuration (docs/api.md §2.4, §4.2; issue 7). Sections and defaults:
 * domain/tenant/config.ts; the work: modules/tenants/commands/config.ts.
 *
 * - `GET /api/v1/tenants/me` (any credential or session of the tenant) → `{ id, slug,
 *   displayName, origins, branding, theme, flags, venues, plan, accounts, fees }`.
 * - `GET /api/v1/tenants/{id}/branding|theme|flags|venues|plan|accounts` → that section (any credential of
 *   the tenant; another tenant's id: `403 forbidden`).
 * - `PUT /api/v1/tenants/{id}/branding|theme|flags|venues|accounts` → the section as stored, defaults
 *   filled (operator with `tenant:config`; without it `403 forbidden`, a trader
 *   `403 wrong_credential_audience`).
 * - `PUT /api/v1/tenants/{id}/plan` → always `403 plan_change_forbidden`: the plan is the platform's.
 * - `PUT /api/v1/tenants/{id}/origins` `{ origins }` → the registered origins (white-label hosts:
 *   a request whose Origin or Host is one of them resolves to this tenant, docs/api.md §5.6); a host
 *   another tenant registered: `409 origin_taken`.
 * The unversioned public reads `/api/branding`, `/api/theme`, `/api/features`: branding.ts, theme.ts, features.ts.
 */
import Router from '@koa/router';
import { PLATFORM_SECTIONS, TENANT_SECTIONS, type TenantSection } from '../../../domain/tenant/config.js';
import { replaceOrigins, replaceSection } from '../commands/config.js';
import type { ApiDeps, ApiState } from '../../../api/context.js';
import { callerOf, gate } from '../../../api/middleware/auth.js';
import type { OpenApiRegistry } from '../../../api/openapi.js';
import { tenantView } from '../presenters/tenants.js';
import { ownTenant } from '../queries/tenants.js';
import { routesOf } from '../../../api/route.js';
import { originsBody, originsView, tenantParams, tenantView as tenantSchema } from './tenants.schemas.js';

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function tenantRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1/tenants' });
  const tags = ['tenants'];
  const configure = gate({ audience: 'operator', scope: 'tenant:config', write: true });
  const requires = 'tenant:config';
  const anyCaller = gate({ audience: 'any' });

  const route = routesOf(router, openapi, { tags });

  route
    .get('/me', 'The caller’s tenant: branding, theme, flags, venues, plan, fees', anyCaller)
    .answers({ '200': { description: 'Tenant', schema: tenantSchema } })
    .handle(async (ctx) => {
      ctx.body = tenantView(await ownTenant(deps, callerOf(ctx)));
    });

  for (const section of Object.keys(TENANT_SECTIONS) as TenantSection[]) {
    const schema = TENANT_SECTIONS[section];
    const platformOwned = PLATFORM_SECTIONS.includes(section);
    route
      .get(`/:id/${section}`, `The tenant’s ${section}`, anyCaller)
      .input({ params: tenantParams })
      .answers({ '200': { description: section, schema } })
      .handle(async (ctx, { params }) => {
        ctx.body = tenantView(await ownTenant(deps, callerOf(ctx), params.id))[section];
      });
    // A platform-owned section takes no body: every write is refused before validation.
    route
      .put(
        `/:id/${section}`,
        platformOwned
          ? `Refused: the ${section} is set by the platform (403 plan_change_forbidden)`
          : `Replace the tenant’s ${section}`,
        configure,
      )
      .input(platformOwned ? { params: tenantParams } : { params: tenantParams, body: schema })
      .answers(
        platformOwned
          ? { '403': { description: 'plan_change_forbidden' } }
          : { '200': { description: section, schema } },
      )
      .with({ requires })
      .handle(async (ctx, input) => {
        const body = ('body' in input ? input.body : {}) as Record<string, unknown>;
        ctx.body = tenantView(await replaceSection(deps, callerOf(ctx), input.params.id, section, body))[section];
      });
  }

  route
    .put('/:id/origins', 'Replace the registered origins (white-label hosts)', configure)
    .input({ params: tenantParams, body: originsBody })
    .answers({ '200': { description: '{ origins }', schema: originsView } })
    .with({ requires })
    .handle(async (ctx, { params, body }) => {
      ctx.body = { origins: await replaceOrigins(deps, callerOf(ctx), params.id, body.origins) };
    });

  return router;
}

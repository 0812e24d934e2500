/**
 * `GET /api/branding` (docs/api.md §2.4, §5.6): the branding of the tenant the request resolved to (from
 * `X-Tenant-Slug`, Origin or Host), defaults filled; no credential, tenant-scoped (a suspended tenant
 * answers `410 tenant_suspended`, an unknown one `404 unknown_tenant_origin`).
 */
import Router from '@koa/router';
import type { ApiDeps, ApiState } from '../../../api/context.js';
import type { OpenApiRegistry } from '../../../api/openapi.js';
import { tenantView } from '../presenters/tenants.js';
import { resolvedTenantRow } from '../queries/tenants.js';
import { routesOf } from '../../../api/route.js';
import { brandingView } from './tenants.schemas.js';

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function brandingRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>();
  const route = routesOf(router, openapi, { tags: ['tenants'] });

  route
    .get('/api/branding', 'The resolved tenant’s branding (no credential)')
    .answers({ '200': { description: 'branding', schema: brandingView } })
    .handle(async (ctx) => {
      ctx.body = tenantView(await resolvedTenantRow(deps, ctx)).branding;
    });
  return router;
}

/**
 * `GET /api/theme` (docs/api.md §2.4, §5.6): the theme of the tenant the request resolved to (from
 * `X-Tenant-Slug`, Origin or Host), defaults filled; no credential, tenant-scoped (a suspended tenant
 * answers `410 tenant_suspended`, an unknown one `404 unknown_tenant_origin`).
 */
import Router from '@koa/router';
import type { ApiDeps, ApiState } from '../../../api/context.js';
import type { OpenApiRegistry } from '../../../api/openapi.js';
import { tenantView } from '../presenters/tenants.js';
import { resolvedTenantRow } from '../queries/tenants.js';
import { routesOf } from '../../../api/route.js';
import { themeSchema } from '../../../domain/tenant/config.js';

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function themeRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>();
  const route = routesOf(router, openapi, { tags: ['tenants'] });

  route
    .get('/api/theme', 'The resolved tenant’s theme (no credential)')
    .answers({ '200': { description: 'theme', schema: themeSchema } })
    .handle(async (ctx) => {
      ctx.body = tenantView(await resolvedTenantRow(deps, ctx)).theme;
    });
  return router;
}

/**
 * `/api/v1/sor/*` (docs/api.md §4.5 audit, §2.11 decision): the smart-routing decision history of every
 * account the caller owns (cookie or bearer), and its realised savings. Reads: modules/oms/queries/sor.ts.
 * Routing itself: `POST /api/v1/oms/route-intents` (modules/oms/routes/oms/route-intents.ts).
 *
 * - `GET /api/v1/sor/decisions` → `{ data, nextCursor, hasMore }`, newest first; `limit` default 100, cap 500.
 * - `GET /api/v1/sor/decisions/summary?from&to` → realised savings over the window (sor.schemas.ts
 *   `summaryView` documents each figure).
 */
import Router from '@koa/router';
import type { ApiDeps, ApiState } from '../../../api/context.js';
import { callerOf, gate } from '../../../api/middleware/auth.js';
import type { OpenApiRegistry } from '../../../api/openapi.js';
import { decisionsPage, savingsSummary } from '../queries/sor.js';
import { routesOf } from '../../../api/route.js';
import { decisionsPage as decisionsPageView, decisionsQuery, summaryQuery, summaryView } from './sor.schemas.js';

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function sorRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1/sor' });
  const tags = ['sor'];
  const read = gate({ audience: 'trader' });

  const route = routesOf(router, openapi, { tags });

  route
    .get('/decisions', 'Smart-routing decision history of the accounts you own, newest first', read)
    .input({ query: decisionsQuery })
    .answers({ '200': { description: 'A page of decisions', schema: decisionsPageView } })
    .handle(async (ctx, { query }) => {
      ctx.body = await decisionsPage(deps.orm, callerOf(ctx), query);
    });

  route
    .get('/decisions/summary', 'Realised savings of smart routing over a window (default the last 30 days)', read)
    .input({ query: summaryQuery })
    .answers({ '200': { description: 'The rollup', schema: summaryView } })
    .handle(async (ctx, { query }) => {
      ctx.body = await savingsSummary(deps.orm, callerOf(ctx), query);
    });

  return router;
}

/**
 * `GET /api/v1/accounts/{id}/order-history` (docs/api.md §4.3): every order the venues saw for this
 * account, including orders placed in the venue's own interface (modules/accounts/queries/order-history.ts).
 * Filters `venue`, `symbol`, `status`; cursor-paginated newest change first, `limit` ≤ 1000, `nextCursor`, no `hasMore`.
 */
import Router from '@koa/router';
import { scoped } from '../../../../db/orm.js';
import { ownedAccount } from '../../../../api/auth/ownership.js';
import type { ApiDeps, ApiState } from '../../../../api/context.js';
import { callerOf, gate } from '../../../../api/middleware/auth.js';
import type { OpenApiRegistry } from '../../../../api/openapi.js';
import { orderHistory } from '../../queries/order-history.js';
import { routesOf } from '../../../../api/route.js';
import { accountParams } from './accounts.schemas.js';
import { orderHistoryQuery, orderHistoryView } from './order-history.schemas.js';

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function orderHistoryRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1' });

  const route = routesOf(router, openapi, { tags: ['accounts'] });

  route
    .get(
      '/accounts/:id/order-history',
      "Every order the venues saw for this account, including ones placed in the venue's own interface",
      gate({ audience: 'trader' }),
    )
    .input({ params: accountParams, query: orderHistoryQuery })
    .answers({ '200': { description: 'Newest change first', schema: orderHistoryView } })
    .handle(async (ctx, { params, query }) => {
      const caller = callerOf(ctx);
      await ownedAccount(scoped(deps.orm, caller.tenantId), caller, params.id);
      ctx.body = await orderHistory(deps, caller, params.id, query);
    });

  return router;
}

/**
 * `/api/v1/reports/*` (docs/api.md §4.7): orders, fills, closed positions (round trips), daily realised PnL
 * and funding payments over a window, across the caller's accounts or one of them (modules/reports/queries/reports.ts).
 * Statement documents: reports/statements.ts.
 */
import Router from '@koa/router';
import { Fill, OrderIntent, Trade } from '../../../../db/entities.js';
import { fillView, intentToView, tradeView } from '../../../../db/views.js';
import type { ApiContext, ApiDeps, ApiState } from '../../../../api/context.js';
import { callerOf, gate, callerEm } from '../../../../api/middleware/auth.js';
import type { OpenApiRegistry } from '../../../../api/openapi.js';
import { dailyPnl, fundingPayments, reportList } from '../../queries/reports.js';
import { routesOf } from '../../../../api/route.js';
import { dailyPnlView, fundingReportView, reportListView, reportQuery } from './reports.schemas.js';
import { intentView } from '../../../../domain/oms/intent.js';
import { fillSchema, tradeSchema } from '../../../../api/views.schemas.js';

/** The row lists: path, answer key, summary, what they list, by which time, and the schema of a row. */
const LISTS = [
  {
    path: '/orders',
    key: 'orders',
    summary: 'Orders the OMS handled in the window, newest first',
    entity: OrderIntent,
    field: 'createdAt',
    view: intentToView,
    item: intentView,
  },
  {
    path: '/fills',
    key: 'fills',
    summary: 'Fills in the window, newest first',
    entity: Fill,
    field: 'executedAt',
    view: fillView,
    item: fillSchema,
  },
  {
    path: '/positions/closed',
    key: 'positionsClosed',
    summary: 'Round trips closed in the window, newest first',
    entity: Trade,
    field: 'closedAt',
    view: tradeView,
    item: tradeSchema,
  },
];

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function reportRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1/reports' });
  const tags = ['reports'];
  const read = gate({ audience: 'trader' });
  const em = (ctx: ApiContext) => callerEm(deps.orm, ctx);

  const route = routesOf(router, openapi, { tags });

  for (const list of LISTS) {
    route
      .get(list.path, list.summary, read)
      .input({ query: reportQuery })
      .answers({ '200': { description: list.key, schema: reportListView(list.key, list.item) } })
      .handle(async (ctx, { query }) => {
        ctx.body = await reportList(em(ctx), callerOf(ctx), list as never, query);
      });
  }

  route
    .get('/daily-pnl', 'Realised PnL per UTC day, from round trips', read)
    .input({ query: reportQuery })
    .answers({ '200': { description: 'Days, oldest first', schema: dailyPnlView } })
    .handle(async (ctx, { query }) => {
      ctx.body = await dailyPnl(em(ctx), callerOf(ctx), query);
    });

  route
    .get('/funding', 'Funding payments in the window, newest first (key `funding`)', read)
    .input({ query: reportQuery })
    .answers({ '200': { description: 'Funding payments', schema: fundingReportView } })
    .handle(async (ctx, { query }) => {
      ctx.body = await fundingPayments(em(ctx), callerOf(ctx), query);
    });

  return router;
}

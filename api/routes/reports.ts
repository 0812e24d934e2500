/**
 * `/api/v1/reports/*` (spec §4.7): orders, fills, closed positions (round trips) and daily realised
 * PnL over a window, across the caller's accounts or one of them. Volume comes from fills, PnL
 * from trades (spec §2.8). Statements, funding reports and analytics: issue 5.
 */
import Router from '@koa/router';
import { Decimal, fmt } from '../../domain/decimal.js';
import { Account, Fill, OrderIntent, Trade } from '../../db/entities.js';
import { scoped } from '../../db/orm.js';
import { fillView, intentToView, tradeView } from '../../db/views.js';
import { callerOf, gate } from '../middleware/auth.js';
import type { ApiContext, ApiDeps, ApiState } from '../context.js';
import type { OpenApiRegistry } from '../openapi.js';
import { endpoint } from '../route.js';
import { ownedAccount } from './accounts.js';
import { dailyPnlView, reportQuery } from './reports.schemas.js';
import type { z } from 'zod';

type Window = z.output<typeof reportQuery>;

export function reportRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1/reports' });
  const tags = ['reports'];
  const read = gate({ audience: 'trader' });

  /** The account ids a report covers and the time condition on `field`. */
  async function scope(ctx: ApiContext, q: Window, field: string) {
    const caller = callerOf(ctx);
    const em = scoped(deps.orm, caller.tenantId);
    const accountIds = q.accountId ? [(await ownedAccount(em, caller, q.accountId)).id] : (await em.find(Account, { ownerId: caller.ownerId })).map((a) => a.id);
    const time = { ...(q.from ? { $gte: new Date(q.from) } : {}), ...(q.to ? { $lt: new Date(q.to) } : {}) };
    return { em, where: { accountId: { $in: accountIds }, ...(Object.keys(time).length ? { [field]: time } : {}) } };
  }

  const list = (path: string, key: string, summary: string, entity: unknown, field: string, view: (r: never) => unknown) =>
    endpoint(router, openapi, { method: 'get', path, summary, tags, gate: read, schemas: { query: reportQuery }, responses: { '200': { description: key } } }, async (ctx, { query }) => {
      const { em, where } = await scope(ctx, query, field);
      const rows = await em.find(entity as never, where as never, { orderBy: { [field]: 'desc' } as never, limit: query.limit });
      ctx.body = { [key]: rows.map(view as (r: unknown) => unknown) };
    });
  list('/orders', 'orders', 'Orders the OMS handled in the window, newest first', OrderIntent, 'createdAt', intentToView as never);
  list('/fills', 'fills', 'Fills in the window, newest first', Fill, 'executedAt', fillView as never);
  list('/positions/closed', 'positionsClosed', 'Round trips closed in the window, newest first', Trade, 'closedAt', tradeView as never);

  endpoint(router, openapi, { method: 'get', path: '/daily-pnl', summary: 'Realised PnL per UTC day, from round trips', tags, gate: read, schemas: { query: reportQuery }, responses: { '200': { description: 'Days, oldest first', schema: dailyPnlView } } }, async (ctx, { query }) => {
    const { em, where } = await scope(ctx, query, 'closedAt');
    const trades = await em.find(Trade, where as never, { orderBy: { closedAt: 'asc' } });
    const days = new Map<string, { pnl: Decimal; fees: Decimal; n: number }>();
    for (const t of trades) {
      const day = t.closedAt.toISOString().slice(0, 10);
      const d = days.get(day) ?? { pnl: new Decimal(0), fees: new Decimal(0), n: 0 };
      days.set(day, { pnl: d.pnl.plus(t.realizedPnlUsd), fees: d.fees.plus(t.feesUsd), n: d.n + 1 });
    }
    ctx.body = { days: [...days.entries()].map(([date, d]) => ({ date, realizedPnlUsd: fmt(d.pnl), feesUsd: fmt(d.fees), netPnlUsd: fmt(d.pnl.minus(d.fees)), trades: d.n })) };
  });

  return router;
}

/**
 * `/api/v1/reports/*` (docs/api.md §4.7): orders, fills, closed positions (round trips) and daily realised
 * PnL over a window, across the caller's accounts or one of them. Volume comes from fills, PnL
 * from trades (docs/api.md §2.8). Funding: the hourly funding payments on paper perps.
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
import { dailyPnlView, fundingReportView, reportQuery } from './reports.schemas.js';
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

  endpoint(router, openapi, { method: 'get', path: '/funding', summary: 'Funding payments in the window, newest first (key `funding`)', tags, gate: read, schemas: { query: reportQuery }, responses: { '200': { description: 'Funding payments', schema: fundingReportView } } }, async (ctx, { query }) => {
    const { em, where } = await scope(ctx, query, 'hour');
    const w = where as { accountId: { $in: string[] }; hour?: { $gte?: Date; $lt?: Date } };
    const rows = await em.getConnection().execute<{ account_id: string; venue: string; symbol: string; hour: Date; position_qty: string; mark_price: string; rate: string; amount_usd: string; created_at: Date }[]>(
      `select account_id, venue, symbol, hour, position_qty::text, mark_price::text, rate::text, amount_usd::text, created_at from funding_payments
        where tenant_id = ? and account_id in (select jsonb_array_elements_text(?::jsonb)) and hour >= coalesce(?::timestamptz, '-infinity') and hour < coalesce(?::timestamptz, 'infinity')
        order by hour desc, account_id, symbol limit ?`,
      [callerOf(ctx).tenantId, JSON.stringify(w.accountId.$in), w.hour?.$gte ?? null, w.hour?.$lt ?? null, query.limit],
    );
    const funding = rows.map((r) => ({ accountId: r.account_id, venue: r.venue, symbol: r.symbol, hour: new Date(r.hour).toISOString(), positionQty: r.position_qty, markPrice: r.mark_price, rate: r.rate, amountUsd: r.amount_usd, paidAt: new Date(r.created_at).toISOString() }));
    ctx.body = { funding, totalUsd: fmt(funding.reduce((t, f) => t.plus(f.amountUsd), new Decimal(0))) };
  });

  return router;
}

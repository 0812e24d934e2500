/**
 * `/api/v1/analytics/*` (docs/api.md §4.7): derived performance reads over the caller's accounts (all of
 * them combined, or `?accountId`) in a window `[from, to)`:
 * - `GET /performance`: totals: volume from fills, PnL from trades (docs/api.md §2.8).
 * - `GET /per-symbol`: the same per venue symbol.
 * - `GET /equity-curve`: starting equity + cumulative net PnL, per trade close or `?bucket=day`.
 * - `GET /risk-metrics`: daily returns, Sharpe, Sortino, max drawdown, win rate, profit factor,
 *   average win/loss, expectancy (definitions in the OpenAPI schema `RiskMetrics`).
 * Starting equity = the accounts' deposits (`funding.deposit` events, minus `funding.withdrawal`)
 * + the net PnL of trades closed before `from`. The computation is domain/analytics/metrics.ts.
 * Errors: `400 validation_failed`, `404 account_not_found`, `403 forbidden` (another trader's account).
 */
import Router from '@koa/router';
import { Decimal, ZERO } from '../../domain/decimal.js';
import { dailyEquity, equityCurve, netPnl, performance, perSymbol, riskMetrics, type FillInput, type TradeInput } from '../../domain/analytics/metrics.js';
import { Account, AccountEvent, Fill, Trade } from '../../db/entities.js';
import { scoped } from '../../db/orm.js';
import { callerOf, gate } from '../middleware/auth.js';
import type { ApiContext, ApiDeps, ApiState } from '../context.js';
import type { OpenApiRegistry } from '../openapi.js';
import { endpoint } from '../route.js';
import { ownedAccount } from './accounts.js';
import { analyticsQuery, equityCurveQuery, equityCurveView, perSymbolView, performanceView, riskMetricsView } from './analytics.schemas.js';

/** The window of an analytics read. */
interface Window {
  accountId?: string;
  from?: string;
  to?: string;
}

/** What one analytics read works on: fills and trades of the window, and the starting equity (USD). */
interface Dataset {
  accountIds: string[];
  window: { from: string | null; to: string | null };
  fills: FillInput[];
  trades: TradeInput[];
  startEquity: Decimal;
}

/** The analytics router (docs/api.md §4.7), trader audience. */
export function analyticsRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1/analytics' });
  const tags = ['analytics'];
  const read = gate({ audience: 'trader' });

  /** Loads fills and trades of the window and the starting equity, for the caller's account(s). */
  async function load(ctx: ApiContext, q: Window, withFills: boolean): Promise<Dataset> {
    const caller = callerOf(ctx);
    const em = scoped(deps.orm, caller.tenantId);
    const accountIds = q.accountId ? [(await ownedAccount(em, caller, q.accountId)).id] : (await em.find(Account, { ownerId: caller.ownerId }, { orderBy: { createdAt: 'asc' } })).map((a) => a.id);
    const from = q.from ? new Date(q.from) : null;
    const to = q.to ? new Date(q.to) : null;
    const window = { from: from?.toISOString() ?? null, to: to?.toISOString() ?? null };
    if (!accountIds.length) return { accountIds, window, fills: [], trades: [], startEquity: ZERO };
    const inIds = { accountId: { $in: accountIds } };
    const fills = withFills
      ? await em.find(Fill, { ...inIds, ...(from || to ? { executedAt: { ...(from ? { $gte: from } : {}), ...(to ? { $lt: to } : {}) } } : {}) }, { orderBy: { executedAt: 'asc', id: 'asc' } })
      : [];
    const trades = await em.find(Trade, { ...inIds, ...(to ? { closedAt: { $lt: to } } : {}) }, { orderBy: { closedAt: 'asc', id: 'asc' } });
    const funding = await em.find(AccountEvent, { ...inIds, kind: { $in: ['funding.deposit', 'funding.withdrawal'] } });
    const asTrade = (t: (typeof trades)[number]): TradeInput => ({
      id: t.id,
      venue: t.venue,
      symbol: t.symbol,
      side: t.side,
      qty: t.qty,
      realizedPnlUsd: t.realizedPnlUsd,
      feesUsd: t.feesUsd,
      closedAt: t.closedAt.getTime(),
      source: t.source,
    });
    let startEquity = funding.reduce((s, e) => {
      const amount = new Decimal(String(e.data.amountUsd ?? 0));
      return e.kind === 'funding.deposit' ? s.plus(amount) : s.minus(amount.abs());
    }, ZERO);
    const inWindow: TradeInput[] = [];
    for (const t of trades) {
      if (from && t.closedAt < from) startEquity = startEquity.plus(netPnl(t));
      else inWindow.push(asTrade(t));
    }
    return {
      accountIds,
      window,
      fills: fills.map((f) => ({ venue: f.venue, symbol: f.symbol, qty: f.qty, price: f.price, feeUsd: f.feeUsd, executedAt: f.executedAt.getTime() })),
      trades: inWindow,
      startEquity,
    };
  }

  endpoint(
    router,
    openapi,
    { method: 'get', path: '/performance', summary: 'Performance totals over a window: volume from fills, PnL from trades (docs/api.md §2.8)', tags, gate: read, schemas: { query: analyticsQuery }, responses: { '200': { description: 'Totals', schema: performanceView } } },
    async (ctx, { query }) => {
      const d = await load(ctx, query, true);
      ctx.body = { window: d.window, accountIds: d.accountIds, ...performance(d.fills, d.trades) };
    },
  );

  endpoint(
    router,
    openapi,
    { method: 'get', path: '/per-symbol', summary: 'Performance per venue symbol over a window', tags, gate: read, schemas: { query: analyticsQuery }, responses: { '200': { description: 'Per symbol', schema: perSymbolView } } },
    async (ctx, { query }) => {
      const d = await load(ctx, query, true);
      ctx.body = { window: d.window, accountIds: d.accountIds, symbols: perSymbol(d.fills, d.trades) };
    },
  );

  endpoint(
    router,
    openapi,
    {
      method: 'get',
      path: '/equity-curve',
      summary: 'Equity curve: starting equity (deposits + earlier net PnL) plus cumulative realised PnL net of fees, per trade close or per UTC day (`bucket=day`)',
      tags,
      gate: read,
      schemas: { query: equityCurveQuery },
      responses: { '200': { description: 'Curve, oldest first', schema: equityCurveView } },
    },
    async (ctx, { query }) => {
      const d = await load(ctx, query, false);
      const points = query.bucket === 'day' ? dailyEquity(d.startEquity, d.trades) : equityCurve(d.startEquity, d.trades);
      ctx.body = {
        window: d.window,
        accountIds: d.accountIds,
        bucket: query.bucket,
        startEquityUsd: d.startEquity.toFixed(),
        endEquityUsd: points.at(-1)?.equityUsd ?? d.startEquity.toFixed(),
        points,
      };
    },
  );

  endpoint(
    router,
    openapi,
    {
      method: 'get',
      path: '/risk-metrics',
      summary: 'Risk metrics over a window: daily returns, Sharpe and Sortino (√365, risk-free 0), max drawdown, win rate, profit factor, average win/loss, expectancy',
      tags,
      gate: read,
      schemas: { query: analyticsQuery },
      responses: { '200': { description: 'Metrics (definitions per field)', schema: riskMetricsView } },
    },
    async (ctx, { query }) => {
      const d = await load(ctx, query, false);
      ctx.body = { window: d.window, accountIds: d.accountIds, ...riskMetrics(d.startEquity, d.trades) };
    },
  );

  return router;
}

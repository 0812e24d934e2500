/**
 * `/api/v1/analytics/*` (docs/api.md §4.7): derived performance reads over the caller's accounts (all of
 * them combined, or `?accountId`) in a window `[from, to)`:
 * - `GET /performance`: totals: volume from fills, PnL from trades (docs/api.md §2.8).
 * - `GET /per-symbol`: the same per venue symbol.
 * - `GET /equity-curve`: starting equity + cumulative net PnL, per trade close or `?bucket=day`.
 * - `GET /risk-metrics`: daily returns, Sharpe, Sortino, max drawdown, win rate, profit factor,
 *   average win/loss, expectancy (definitions in the OpenAPI schema `RiskMetrics`).
 * Starting equity = the accounts' deposits (`funding.deposit` events, minus `funding.withdrawal`, plus the signed `funding.transfer`)
 * + the net PnL of trades closed before `from` (modules/reports/queries/analytics.ts). The computation is domain/analytics/metrics.ts.
 * Errors: `400 validation_failed`, `404 account_not_found`, `403 forbidden` (another trader's account).
 */
import Router from '@koa/router';
import { dailyEquity, equityCurve, performance, perSymbol, riskMetrics } from '../../../domain/analytics/metrics.js';
import { callerOf, gate, callerEm } from '../../../api/middleware/auth.js';
import type { ApiContext, ApiDeps, ApiState } from '../../../api/context.js';
import type { OpenApiRegistry } from '../../../api/openapi.js';
import { analyticsDataset, type AnalyticsWindow } from '../queries/analytics.js';
import { routesOf } from '../../../api/route.js';
import {
  analyticsQuery,
  equityCurveQuery,
  equityCurveView,
  perSymbolView,
  performanceView,
  riskMetricsView,
} from './analytics.schemas.js';

/** The analytics router (docs/api.md §4.7), trader audience. */
export function analyticsRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1/analytics' });
  const tags = ['analytics'];
  const read = gate({ audience: 'trader' });
  const load = (ctx: ApiContext, q: AnalyticsWindow, withFills: boolean) =>
    analyticsDataset(callerEm(deps.orm, ctx), callerOf(ctx), q, withFills);

  const route = routesOf(router, openapi, { tags });

  route
    .get(
      '/performance',
      'Performance totals over a window: volume from fills, PnL from trades (docs/api.md §2.8)',
      read,
    )
    .input({ query: analyticsQuery })
    .answers({ '200': { description: 'Totals', schema: performanceView } })
    .handle(async (ctx, { query }) => {
      const d = await load(ctx, query, true);
      ctx.body = { window: d.window, accountIds: d.accountIds, ...performance(d.fills, d.trades) };
    });

  route
    .get('/per-symbol', 'Performance per venue symbol over a window', read)
    .input({ query: analyticsQuery })
    .answers({ '200': { description: 'Per symbol', schema: perSymbolView } })
    .handle(async (ctx, { query }) => {
      const d = await load(ctx, query, true);
      ctx.body = { window: d.window, accountIds: d.accountIds, symbols: perSymbol(d.fills, d.trades) };
    });

  route
    .get(
      '/equity-curve',
      'Equity curve: starting equity (deposits + earlier net PnL) plus cumulative realised PnL net of fees, per trade close or per UTC day (`bucket=day`)',
      read,
    )
    .input({ query: equityCurveQuery })
    .answers({ '200': { description: 'Curve, oldest first', schema: equityCurveView } })
    .handle(async (ctx, { query }) => {
      const d = await load(ctx, query, false);
      const points =
        query.bucket === 'day' ? dailyEquity(d.startEquity, d.trades) : equityCurve(d.startEquity, d.trades);
      ctx.body = {
        window: d.window,
        accountIds: d.accountIds,
        bucket: query.bucket,
        startEquityUsd: d.startEquity.toFixed(),
        endEquityUsd: points.at(-1)?.equityUsd ?? d.startEquity.toFixed(),
        points,
      };
    });

  route
    .get(
      '/risk-metrics',
      'Risk metrics over a window: daily returns, Sharpe and Sortino (√365, risk-free 0), max drawdown, win rate, profit factor, average win/loss, expectancy',
      read,
    )
    .input({ query: analyticsQuery })
    .answers({ '200': { description: 'Metrics (definitions per field)', schema: riskMetricsView } })
    .handle(async (ctx, { query }) => {
      const d = await load(ctx, query, false);
      ctx.body = { window: d.window, accountIds: d.accountIds, ...riskMetrics(d.startEquity, d.trades) };
    });

  return router;
}

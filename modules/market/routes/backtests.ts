/**
 * `POST /api/v1/backtests/run` (docs/api.md §4.7): evaluates indicator specs and entry/exit rules against
 * the recorded candles of a pair. Rules on bar close, fills at the next bar's open; PnL and fees in
 * exact decimals (domain/backtest/engine.ts). Bounds: at most 5000 bars and 10 indicators, unknown
 * indicator, param or operand → `400 validation_failed` with every issue in `detail`; more than
 * {@link DEFAULT_BUDGET_MS} ms of evaluation → `422 backtest_too_large`; unknown pair → `400 symbol_unknown`; a pair the
 * caller's tenant does not offer → `403 venue_not_enabled` / `403 symbol_not_enabled` (docs/api.md §2.4).
 */
import Router from '@koa/router';
import { Decimal } from '../../../domain/decimal.js';
import { ApiError } from '../../../domain/errors.js';
import { DEFAULT_BUDGET_MS, checkRules, runBacktest } from '../../../domain/backtest/engine.js';
import { resolveIndicators } from '../../../domain/indicators/registry.js';
import { callerOf, gate } from '../../../api/middleware/auth.js';
import type { ApiDeps, ApiState } from '../../../api/context.js';
import type { OpenApiRegistry } from '../../../api/openapi.js';
import { INTERVAL_MS, loadBars } from '../queries/bars.js';
import { routesOf } from '../../../api/route.js';
import { assertPairEnabled } from '../../tenants/queries/entitlements.js';
import { backtestBody, backtestView } from './backtests.schemas.js';

/** The backtests router (docs/api.md §4.7), trader audience. `budgetMs` overrides the evaluation budget. */
export function backtestRoutes(
  deps: ApiDeps,
  openapi: OpenApiRegistry,
  budgetMs = DEFAULT_BUDGET_MS,
): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1/backtests' });
  const tags = ['backtests'];
  const read = gate({ audience: 'trader' });

  const route = routesOf(router, openapi, { tags });

  route
    .post(
      '/run',
      `Backtests entry/exit rules over indicator specs on recorded candles: rules on bar close, fills at the next bar's open, at most 5000 bars and 10 indicators, ${DEFAULT_BUDGET_MS} ms budget (422 backtest_too_large)`,
      read,
    )
    .input({ body: backtestBody })
    .answers({ '200': { description: 'Trades, equity curve and metrics', schema: backtestView } })
    .handle(async (ctx, { body }) => {
      const { resolved, issues } = resolveIndicators(body.indicators);
      const invalid = body.indicators.map((r) => r.id).filter((id) => !resolved.some((x) => x.id === id));
      issues.push(...checkRules(body, resolved, 'body', invalid));
      if (issues.length) throw new ApiError('validation_failed', issues);
      await assertPairEnabled(deps.auth, callerOf(ctx).tenantId, body.venue, body.symbol);
      const loaded = await loadBars(deps.orm, body);
      const result = runBacktest({
        bars: loaded.bars,
        intervalMs: INTERVAL_MS[body.interval],
        indicators: resolved,
        entry: body.entry,
        exit: body.exit,
        side: body.side,
        qty: new Decimal(body.qty),
        feeBps: new Decimal(body.feeBps),
        initialEquity: new Decimal(body.initialEquityUsd),
        budgetMs,
      });
      ctx.body = {
        venue: body.venue,
        symbol: body.symbol,
        interval: body.interval,
        source: loaded.source,
        window: loaded.window,
        ...result,
      };
    });

  return router;
}

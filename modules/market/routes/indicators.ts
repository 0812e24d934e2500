/**
 * `/api/v1/indicators` (docs/api.md §4.7): the catalogue of declarative indicator specs, and
 * `POST /api/v1/indicators/compute` computing a list of them over the recorded candles of a pair.
 * The catalogue and the computation are domain/indicators/registry.ts; the bars modules/market/queries/bars.ts. Errors: `400
 * validation_failed` (detail lists every issue: unknown indicator or param, out-of-range param,
 * duplicate id, too many bars), `400 symbol_unknown`, `403 venue_not_enabled` / `403 symbol_not_enabled` (a pair
 * the caller's tenant does not offer, docs/api.md §2.4).
 */
import Router from '@koa/router';
import { ApiError } from '../../../domain/errors.js';
import {
  MAX_BARS,
  SIGNIFICANT_DIGITS,
  MAX_INDICATORS,
  catalogue,
  computeSeries,
  resolveIndicators,
} from '../../../domain/indicators/registry.js';
import { callerOf, gate } from '../../../api/middleware/auth.js';
import type { ApiDeps, ApiState } from '../../../api/context.js';
import type { OpenApiRegistry } from '../../../api/openapi.js';
import { loadBars } from '../queries/bars.js';
import { routesOf } from '../../../api/route.js';
import { assertPairEnabled } from '../../tenants/queries/entitlements.js';
import { catalogueView, computeBody, computeView } from './indicators.schemas.js';

/** The indicators router (docs/api.md §4.7), trader audience. */
export function indicatorRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1' });
  const tags = ['indicators'];
  const read = gate({ audience: 'trader' });

  const route = routesOf(router, openapi, { tags });

  route
    .get(
      '/indicators',
      'The catalogue of declarative indicator specs: params (type, default, min, max), inputs, outputs',
      read,
    )
    .answers({ '200': { description: 'Catalogue', schema: catalogueView } })
    .handle(async (ctx) => {
      ctx.body = {
        indicators: catalogue(),
        significantDigits: SIGNIFICANT_DIGITS,
        maxIndicators: MAX_INDICATORS,
        maxBars: MAX_BARS,
      };
    });

  route
    .post(
      '/indicators/compute',
      'Computes indicator specs over the recorded candles of a pair; series aligned with the bar open times (values rounded to 8 significant digits, analytics not money)',
      read,
    )
    .input({ body: computeBody })
    .answers({ '200': { description: 'Series', schema: computeView } })
    .handle(async (ctx, { body }) => {
      const { resolved, issues } = resolveIndicators(body.indicators);
      if (issues.length) throw new ApiError('validation_failed', issues);
      await assertPairEnabled(deps.auth, callerOf(ctx).tenantId, body.venue, body.symbol);
      const loaded = await loadBars(deps.orm, body);
      ctx.body = {
        venue: body.venue,
        symbol: body.symbol,
        interval: body.interval,
        source: loaded.source,
        bars: loaded.bars.length,
        window: loaded.window,
        openTime: loaded.bars.map((b) => new Date(b.openTime).toISOString()),
        close: loaded.bars.map((b) => b.close),
        indicators: computeSeries(loaded.bars, resolved),
      };
    });

  return router;
}

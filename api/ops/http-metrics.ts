/**
 * The outermost middleware (api/app.ts): times every HTTP request into
 * `platform_http_request_duration_seconds{method, route, status}` and counts what the answer says about
 * the business: an `Idempotency-Replay: true` answer (api/middleware/idempotency.ts) is an idempotent
 * replay, an answer of `POST /api/v1/oms/intents` is a compose outcome. `route` is the @koa/router
 * template that matched (`/api/v1/oms/intents/:id`), never the raw URL, or `unmatched`.
 */
import type { ApiMiddleware } from '../context.js';
import type { ApiMetrics } from './metrics.js';
import { matchedRoute } from '../../telemetry/http.js';

/** The `route` label of a request no router matched (the trading page, a 404, a 405). */
export const UNMATCHED_ROUTE = 'unmatched';
/** The compose route (docs/api.md §2.6), whose answers are counted by outcome. */
export const COMPOSE_ROUTE = '/api/v1/oms/intents';

/** Observes every request; never changes the answer. */
export function httpMetrics(metrics: ApiMetrics): ApiMiddleware {
  return async (ctx, next) => {
    const end = metrics.httpDuration.startTimer();
    let threw = false;
    try {
      await next();
    } catch (err) {
      threw = true;
      throw err;
    } finally {
      const route = matchedRoute(ctx) ?? UNMATCHED_ROUTE;
      end({ method: ctx.method, route, status: String(threw ? 500 : ctx.status) });
      if (ctx.response.get('Idempotency-Replay') === 'true') metrics.idempotencyReplays.inc({ route });
      else if (ctx.method === 'POST' && route === COMPOSE_ROUTE) {
        const code = (ctx.body as { error?: unknown } | undefined)?.error;
        const failure =
          code == null
            ? threw
              ? 'internal_error'
              : String(ctx.status)
            : typeof code === 'string'
              ? code
              : JSON.stringify(code);
        metrics.composeOutcomes.inc({ outcome: ctx.status === 201 ? 'created' : failure });
      }
    }
  };
}

/**
 * The api's HTTP server span (README "Operating it → Traces"), a Koa middleware instead of
 * @opentelemetry/instrumentation-http, which cannot patch `node:http` under ESM without loader hooks.
 * Installed first in api/app.ts, and only when tracing is on.
 */
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
} from '@opentelemetry/semantic-conventions';
import type Koa from 'koa';

/**
 * The route template that matched the request, with its router prefix (`/api/v1/oms/intents/:id`),
 * as @koa/router leaves it on the context; undefined when no router matched (the trading page, 404, 405).
 */
export function matchedRoute(ctx: object): string | undefined {
  const route = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
  return typeof route === 'string' ? route : undefined;
}
/**
 * One SERVER span per request, active while the rest of the middleware runs (so the Temporal client
 * spans of the handler are its children). It continues the caller's trace when the request carries
 * a W3C `traceparent`. Name `<METHOD> <route template>` (OpenTelemetry HTTP semantic conventions,
 * e.g. `POST /api/v1/oms/intents`; just `<METHOD>` when no route matched); attributes
 * `http.request.method`, `http.route`, `http.response.status_code`, `url.path`, `url.scheme`;
 * status ERROR for 5xx answers and thrown errors (rethrown).
 */
export function httpServerSpans(tracer: Tracer): Koa.Middleware {
  return async (ctx, next) => {
    const parent = propagation.extract(ROOT_CONTEXT, ctx.headers);
    const span = tracer.startSpan(
      ctx.method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          [ATTR_HTTP_REQUEST_METHOD]: ctx.method,
          [ATTR_URL_PATH]: ctx.path,
          [ATTR_URL_SCHEME]: ctx.protocol,
        },
      },
      parent,
    );
    try {
      await context.with(trace.setSpan(parent, span), next);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw err;
    } finally {
      const route = matchedRoute(ctx);
      if (route !== undefined) {
        span.setAttribute(ATTR_HTTP_ROUTE, route);
        span.updateName(`${ctx.method} ${route}`);
      }
      span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, ctx.status);
      if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
  };
}

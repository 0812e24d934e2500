/** Request ids and access logging (pino): `x-request-id` in, echoed out, on every log line. */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { ApiMiddleware } from '../context.js';

/** Assigns `ctx.state.requestId` (from `x-request-id` when sane) and logs each request once. */
export function requestLog(logger: Logger): ApiMiddleware {
  return async (ctx, next) => {
    const given = ctx.get('x-request-id');
    const requestId = /^[\w.-]{8,100}$/.test(given) ? given : randomUUID();
    ctx.state.requestId = requestId;
    ctx.state.log = logger.child({ requestId });
    ctx.set('x-request-id', requestId);
    const started = performance.now();
    try {
      await next();
    } finally {
      ctx.state.log.info(
        { method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(performance.now() - started) },
        'request',
      );
    }
  };
}

/**
 * The one error middleware (docs/architecture.md "Errors"): ApiError → `{ error, detail?, ...extra }` with its
 * status; malformed JSON → `400 invalid_json`; an unmatched route → `404 not_found`; anything
 * else → `500 internal_error` with the request id as `correlationId`, logged, never leaked.
 */
import { ApiError } from '../../domain/errors.js';
import type { ApiMiddleware } from '../context.js';

/** Body-parser failures carry `status` 400 and a type such as `entity.parse.failed`. */
function isParseError(err: unknown): boolean {
  const e = err as { status?: number; type?: string; name?: string };
  return (
    e?.status === 400 &&
    (e.type === 'entity.parse.failed' || e.name === 'SyntaxError' || e.type === 'entity.verify.failed')
  );
}

export function errorHandler(): ApiMiddleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined)
        throw new ApiError('not_found', `no route ${ctx.method} ${ctx.path}`);
    } catch (err) {
      if (err instanceof ApiError) {
        ctx.status = err.status;
        ctx.body = { error: err.code, ...(err.detail === undefined ? {} : { detail: err.detail }), ...err.extra };
        for (const [k, v] of Object.entries(err.headers)) ctx.set(k, v);
        return;
      }
      if (isParseError(err)) {
        ctx.status = 400;
        ctx.body = { error: 'invalid_json', detail: 'request body is not valid JSON' };
        return;
      }
      ctx.state.log.error({ err }, 'unexpected error');
      ctx.status = 500;
      ctx.body = { error: 'internal_error', correlationId: ctx.state.requestId };
    }
  };
}

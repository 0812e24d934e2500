/**
 * The one error middleware (docs/architecture.md "Errors"): ApiError → `{ error, detail?, ...extra }` with its
 * status; an unmatched route → `404 not_found`; a method the path does not take → `405 method_not_allowed`; a client error raised by Koa or a library (an exposed
 * http-error, e.g. the static files' `400` for a NUL in the path) → its code; anything else → `500
 * internal_error` with the request id as `correlationId`, logged, never leaked. Body-parser failures become
 * ApiErrors in {@link bodyParseError} (`app.ts` hands it to the body parser), so a hostile body is a 4xx, never a 500.
 */
import { ApiError, type ErrorCode } from '../../domain/errors.js';
import type { ApiMiddleware } from '../context.js';

/** What the body parser (co-body → inflation, raw-body, zlib) throws: http-errors carry `status` and `type`. */
interface ParserFailure {
  status?: number;
  type?: string;
  name?: string;
  limit?: number;
  message?: string;
}

/**
 * The `onError` of the body parser: turns its failure into the ApiError the client gets (docs/api.md §7.2).
 * - over the size limit (after decompression) → `413 payload_too_large`;
 * - a `Content-Encoding` other than identity, gzip, deflate, br → `415 unsupported_encoding`;
 * - a body that does not decompress under its `Content-Encoding` → `400 invalid_encoding`;
 * - not JSON (or a `__proto__` key) → `400 invalid_json`;
 * - a length that does not match `Content-Length`, an aborted upload → `400 bad_request`.
 * @throws ApiError always (the body parser rethrows nothing else).
 */
export function bodyParseError(err: unknown, ctx: { get(header: string): string }): never {
  const e = (err ?? {}) as ParserFailure;
  if (e.status === 413 || e.type === 'entity.too.large')
    throw new ApiError(
      'payload_too_large',
      `request body is over ${e.limit ?? 'the limit of'} bytes (counted after decompression)`,
    );
  const encoding = ctx.get('content-encoding') || 'identity';
  if (e.status === 415)
    throw new ApiError(
      'unsupported_encoding',
      `Content-Encoding ${JSON.stringify(encoding)} is not supported (identity, gzip, deflate, br)`,
    );
  if (e.status === 400 && (e.type === 'entity.parse.failed' || e.name === 'SyntaxError'))
    throw new ApiError('invalid_json', 'request body is not valid JSON');
  if (e.status === 400) throw new ApiError('bad_request', 'request body was cut short or its length is wrong');
  if (encoding !== 'identity' && e.status === undefined)
    throw new ApiError('invalid_encoding', `request body is not valid ${encoding} data`);
  throw err;
}

/** The code of an exposed 4xx http-error by its status; any other 4xx is `bad_request`. */
const HTTP_ERROR_CODES: Partial<Record<number, ErrorCode>> = {
  404: 'not_found',
  413: 'payload_too_large',
  415: 'unsupported_encoding',
};

/** An http-error a client caused (`expose`, 4xx: http-errors, `ctx.throw`), as the ApiError answered; else null. */
function clientHttpError(err: unknown): ApiError | null {
  const e = err as { status?: unknown; expose?: unknown; message?: unknown } | null;
  if (!e || e.expose !== true || typeof e.status !== 'number' || e.status < 400 || e.status > 499) return null;
  return new ApiError(
    HTTP_ERROR_CODES[e.status] ?? 'bad_request',
    typeof e.message === 'string' ? e.message : undefined,
  );
}

/** The outermost error boundary of the HTTP app (after request metrics and the request log). */
export function errorHandler(): ApiMiddleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined)
        throw new ApiError('not_found', `no route ${ctx.method} ${ctx.path}`);
      // The routers' allowedMethods(): a path that exists under other methods (405, `Allow` set), or a method no router knows (501).
      if ((ctx.status === 405 || ctx.status === 501) && ctx.body === undefined)
        throw new ApiError('method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}`, {
          allowed: (ctx.response.get('allow') || '').split(/,\s*/).filter(Boolean),
        });
    } catch (caught) {
      const err = caught instanceof ApiError ? caught : (clientHttpError(caught) ?? caught);
      if (err instanceof ApiError) {
        ctx.status = err.status;
        ctx.body = { error: err.code, ...(err.detail === undefined ? {} : { detail: err.detail }), ...err.extra };
        for (const [k, v] of Object.entries(err.headers)) ctx.set(k, v);
        return;
      }
      ctx.state.log.error({ err }, 'unexpected error');
      ctx.status = 500;
      ctx.body = { error: 'internal_error', correlationId: ctx.state.requestId };
    }
  };
}

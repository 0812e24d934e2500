/**
 * The one validation middleware: parses `params`, `query` and `body` with the route's zod
 * schemas and stores the typed result in `ctx.state.input`. A failure is `400 validation_failed`
 * with `detail` an array of field issues `{ path, message, code }`; when a schema attaches its own
 * stable code to an issue (e.g. `stopLimitPrice_required`) and it is the only kind of issue, that
 * code is the `error`.
 */
import { z } from 'zod';
import { ApiError, ERROR_STATUS, type ErrorCode } from '../../domain/errors.js';
import type { ApiContext, ApiMiddleware } from '../context.js';

/** The schemas of one route. */
export interface RouteSchemas {
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
}

/** The typed input of a route with schemas `S`. */
export type Input<S extends RouteSchemas> = {
  [K in keyof S]: S[K] extends z.ZodType ? z.output<S[K]> : never;
};

/** A field issue as it appears in `detail`. */
export interface FieldIssue {
  path: string;
  message: string;
  code: string;
}

function issues(where: string, error: z.ZodError): FieldIssue[] {
  return error.issues.map((i) => {
    const own = (i as { params?: { code?: string } }).params?.code;
    return { path: [where, ...i.path.map(String)].join('.'), message: i.message, code: own ?? i.code };
  });
}

/** Turns field issues into the error: a single schema-specific code wins, else `validation_failed`. */
export function validationError(detail: FieldIssue[]): ApiError {
  const codes = new Set(detail.map((d) => d.code));
  const [only] = codes;
  const code = codes.size === 1 && only in ERROR_STATUS ? (only as ErrorCode) : 'validation_failed';
  return new ApiError(code, detail);
}

export function validate<S extends RouteSchemas>(schemas: S): ApiMiddleware {
  return async (ctx, next) => {
    const out: Record<string, unknown> = {};
    const detail: FieldIssue[] = [];
    const sources = {
      params: (ctx as ApiContext & { params?: unknown }).params ?? {},
      query: ctx.query,
      body: ctx.request.body ?? {},
    };
    for (const where of ['params', 'query', 'body'] as const) {
      const schema = schemas[where];
      if (!schema) continue;
      const r = schema.safeParse(sources[where]);
      if (r.success) out[where] = r.data;
      else detail.push(...issues(where, r.error));
    }
    if (detail.length) throw validationError(detail);
    ctx.state.input = out;
    await next();
  };
}

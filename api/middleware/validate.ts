/**
 * The one validation middleware: parses `params`, `query` and `body` with the route's zod
 * schemas and stores the typed result in `ctx.state.input`. A failure is `400 validation_failed`
 * with `detail` an array of field issues `{ path, message, code }`; when a schema attaches its own
 * stable code to an issue (e.g. `stopLimitPrice_required`) and it is the only kind of issue, that
 * code is the `error`.
 *
 * Before any schema (and before idempotency and the handler) every input is screened, whatever the
 * route's schemas: a body nested deeper than {@link MAX_BODY_DEPTH} is `400 body_too_deep`; a NUL
 * character or an unpaired UTF-16 surrogate in any string or key of the path parameters, the query or
 * the body is `400 invalid_input` (PostgreSQL stores neither in text or jsonb).
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

/** The deepest nesting of objects and arrays a request body may have (`{}` is 1). */
export const MAX_BODY_DEPTH = 32;

/** A NUL, a high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
// eslint-disable-next-line no-control-regex -- NUL is what it looks for
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g');

/** `s` with every NUL and unpaired surrogate replaced by U+FFFD: storable in PostgreSQL text and jsonb. */
export function storable(s: string): string {
  return s.replace(UNSTORABLE_ALL, '\uFFFD');
}

/** The `400 invalid_input` of a string or key at `path` that holds a NUL or an unpaired surrogate. */
const refuse = (path: string[]) =>
  new ApiError('invalid_input', [
    {
      path: path.join('.'),
      message: 'must not contain NUL characters or unpaired UTF-16 surrogates',
      code: 'invalid_characters',
    },
  ]);

/**
 * Walks `value` (iteratively: a hostile depth cannot overflow the stack) and refuses what nothing
 * downstream should see.
 * @throws ApiError `400 body_too_deep` when objects and arrays nest deeper than `maxDepth`;
 *   `400 invalid_input` (detail: one {@link FieldIssue} at the first bad string or key) for a NUL or an
 *   unpaired surrogate.
 */
export function screenInput(where: string, value: unknown, maxDepth = MAX_BODY_DEPTH): void {
  if (value === undefined || value === null) return;
  const stack: { v: unknown; path: string[]; depth: number }[] = [{ v: value, path: [where], depth: 0 }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const { v, path, depth } = item;
    if (typeof v === 'string') {
      if (UNSTORABLE.test(v)) throw refuse(path);
      continue;
    }
    if (!v || typeof v !== 'object') continue;
    if (depth + 1 > maxDepth)
      throw new ApiError('body_too_deep', `objects and arrays may nest at most ${maxDepth} deep`);
    for (const [k, child] of Object.entries(v)) {
      if (UNSTORABLE.test(k)) throw refuse([...path, k.replace(UNSTORABLE, '?')]);
      stack.push({ v: child, path: [...path, k], depth: depth + 1 });
    }
  }
}

/** The route middleware: screens every input ({@link screenInput}), then parses it with `schemas`. */
export function validate<S extends RouteSchemas>(schemas: S): ApiMiddleware {
  return async (ctx, next) => {
    const out: Record<string, unknown> = {};
    const detail: FieldIssue[] = [];
    const sources = {
      params: (ctx as ApiContext & { params?: unknown }).params ?? {},
      query: ctx.query,
      body: ctx.request.body ?? {},
    };
    for (const where of ['params', 'query', 'body'] as const) screenInput(where, sources[where]);
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

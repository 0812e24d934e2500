/**
 * The venue adapters' HTTP (docs/venues.md): the request URL, one exchange through the context's
 * `fetch` read as text, and the answer's JSON checked against a zod schema, so what an adapter
 * reads from a venue is typed and checked (no unchecked `any`). Each adapter keeps its own request
 * bytes (signatures are over them) and its own error mapping; {@link jsonCall} is the whole call of
 * the two JSON REST venues (Kalshi, Polymarket), which map errors alike.
 */
import { request } from 'undici';
import { z } from 'zod';
import { VenueRejected, type VenueContext, type VenueFetch, type VenueRequestInit } from './types.js';

/** Query parameters; undefined values are left out. */
export type Query = Record<string, string | number | undefined>;

/**
 * `baseUrl` without its trailing `/`, then `path`, then `?` and the query when there is one:
 * `query` as an already encoded string (sent byte for byte: Aster signs it) or as parameters
 * (URL-encoded in order, undefined values left out).
 */
export function venueUrl(baseUrl: string, path: string, query: Query | string = ''): string {
  const params = (q: Query) =>
    Object.entries(q).flatMap(([k, v]): [string, string][] => (v === undefined ? [] : [[k, String(v)]]));
  const qs = typeof query === 'string' ? query : new URLSearchParams(params(query)).toString();
  return `${baseUrl.replace(/\/$/, '')}${path}${qs ? `?${qs}` : ''}`;
}

/** What a venue answered: the HTTP status, whether it is 2xx, and the body text. */
export interface VenueAnswer {
  status: number;
  ok: boolean;
  text: string;
}

/**
 * The platform's venue HTTP client (issue 15): undici's `request` on its keep-alive connection pool, a third of the
 * CPU and wall time per request of `fetch` (the same undici underneath, without the WHATWG Request, Response and
 * stream objects; `npm run bench:venues` measures the order path through it).
 * @throws what undici throws on a transport failure (socket closed, refused, timed out): a plain Error the activity
 *   retries, as it retries `fetch`'s TypeError.
 */
export const venueFetch: VenueFetch = async (url, init) => {
  const res = await request(url, {
    method: init.method,
    headers: init.headers,
    body: init.body,
  });
  const text = await res.body.text();
  const status = res.statusCode;
  return { status, ok: status >= 200 && status < 300, text: () => Promise.resolve(text) };
};

/** One request through `ctx.fetch`, its body read as text. @throws what `fetch` throws on transport failure (a plain, retryable Error). */
export async function fetchText(
  ctx: Pick<VenueContext, 'fetch'>,
  url: string,
  init: VenueRequestInit,
): Promise<VenueAnswer> {
  const res = await ctx.fetch(url, init);
  return { status: res.status, ok: res.ok, text: await res.text() };
}

/** The JSON value of `text`, or undefined when it is not JSON (an empty text is not). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * `json` as `schema` reads it (zod output: typed, extra fields kept where the schema is loose).
 * @throws Error `<what> answered an unexpected body: <zod issues>` when the venue broke its
 *   documented shape (a plain Error: the activity retries it like a transport failure).
 */
export function checked<S extends z.ZodType>(schema: S, json: unknown, what: string): z.output<S> {
  const r = schema.safeParse(json);
  if (!r.success) throw new Error(`${what} answered an unexpected body: ${z.prettifyError(r.error)}`);
  return r.data;
}

type Ctx = Pick<VenueContext, 'baseUrl' | 'fetch'>;
/** A venue's refusal reason from its error body, else `fallback` (`HTTP <status>`). */
type Reason = (json: unknown, fallback: string) => string;

/** One JSON REST call of {@link jsonCall}. */
export interface JsonRequest {
  method: string;
  /** Path under the base URL (what the error messages name). */
  path: string;
  query?: Query;
  /** Sent as `JSON.stringify(body)` with `content-type: application/json`; absent = no body. */
  body?: unknown;
  /** The request's own headers (signatures), from the full URL and the exact body text. */
  headers: (url: string, body: string | undefined) => Record<string, string>;
  /** Read a 404 as a null body instead of refusing (the schema must then accept null). */
  allow404?: boolean;
}

/**
 * One call to a JSON REST venue (Kalshi, Polymarket) at `ctx.baseUrl`; its body read by `schema`.
 * The body reads as JSON: empty → null, not JSON → `{ error: <text> }`; a 404 with `allow404` → null.
 * @throws Error `<venue> <METHOD> <path>: HTTP <status> <first 200 characters>` on a 5xx (retryable);
 *   VenueRejected(`reason(json, 'HTTP <status>')`) on any other 4xx; Error from {@link checked}
 *   when the body is not what `schema` expects.
 */
export async function jsonCall<S extends z.ZodType>(
  ctx: Ctx,
  venue: string,
  req: JsonRequest,
  schema: S,
  reason: Reason,
): Promise<z.output<S>> {
  const url = venueUrl(ctx.baseUrl, req.path, req.query);
  const body = req.body === undefined ? undefined : JSON.stringify(req.body);
  const headers = { ...req.headers(url, body), ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
  const res = await fetchText(ctx, url, { method: req.method, headers, body });
  const parsed = res.text ? parseJson(res.text) : null;
  const json = parsed === undefined ? { error: res.text } : parsed;
  const what = `${venue} ${req.method} ${req.path}`;
  if (res.status === 404 && req.allow404) return checked(schema, null, what);
  if (res.status >= 500)
    throw new Error(`${venue} ${req.method} ${req.path}: HTTP ${res.status} ${res.text.slice(0, 200)}`);
  if (res.status >= 400) throw new VenueRejected(reason(json, `HTTP ${res.status}`));
  return checked(schema, json, what);
}

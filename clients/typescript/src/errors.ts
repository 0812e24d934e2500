/**
 * Errors of the client. Every HTTP error of the API is `{ error, detail?, ...extra }` (docs/api.md §2.13, the
 * OpenAPI `Error` schema): {@link ApiError} carries it with the status; {@link ok} turns an openapi-fetch result
 * into its data or that error.
 */
import type { components } from './generated/openapi.js';

/** The API's error body (OpenAPI `Error`): `error` a stable code (docs/api.md §7.2), `detail` text or field issues. */
export type ErrorBody = components['schemas']['Error'];

/**
 * A non-2xx answer of the API.
 * - `status`: the HTTP status (400 … 503).
 * - `error`: the body's stable code (`validation_failed`, `token_expired`, `idempotency_key_conflict`, …;
 *   docs/api.md §7.2); `http_<status>` when the body is not the API's error JSON (a proxy's page).
 * - `detail`: the body's `detail` (text, or `[{ path, message, code }]` for `validation_failed`), if any.
 * - `body`: the whole body, with the extra fields some codes add (`cap`, `requested`, `retryAfter`, …).
 * Branch on `error`, never on `detail` or `message`.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly error: string;
  readonly detail: unknown;
  readonly body: unknown;

  /** `url`: the request's, named in the message. */
  constructor(status: number, body: unknown, url?: string) {
    const error = isErrorBody(body) ? body.error : `http_${status}`;
    const detail = isErrorBody(body) ? body.detail : typeof body === 'string' && body ? body : undefined;
    const text = typeof detail === 'string' ? `: ${detail}` : detail === undefined ? '' : `: ${JSON.stringify(detail)}`;
    super(`${status} ${error}${text}${url ? ` (${new URL(url).pathname})` : ''}`);
    this.status = status;
    this.error = error;
    this.detail = detail;
    this.body = body;
  }
}

/** Whether `body` is the API's error JSON (an object with a string `error`). */
function isErrorBody(body: unknown): body is ErrorBody {
  return typeof body === 'object' && body !== null && typeof (body as { error?: unknown }).error === 'string';
}

/** What an openapi-fetch call resolves to: `data` on a 2xx, `error` (the parsed body) otherwise. */
export interface FetchResult {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/**
 * The data of an openapi-fetch call: `await ok(client.api.GET('/api/v1/accounts'))`.
 * @throws ApiError with the answer's status and `{ error, detail }` when it is not 2xx.
 */
export async function ok<R extends FetchResult>(call: Promise<R>): Promise<Exclude<R['data'], undefined>> {
  const { data, error, response } = await call;
  if (!response.ok) throw new ApiError(response.status, error, response.url);
  return data as Exclude<R['data'], undefined>;
}

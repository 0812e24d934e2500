/**
 * Bearer authentication of the client's requests (docs/api.md §5.1): each request carries
 * `Authorization: Bearer <token>` from a {@link TokenSource}; when the API answers `401` with a code a new
 * bearer cures (`token_expired`, `token_revoked`, `unauthorized`), the token is dropped, a new one minted and
 * the request sent once more, with the same `Idempotency-Key` (so a write is never applied twice). Any other
 * `401` (`credential_revoked`, `invalid_credentials`) is answered as is.
 */
import type { Middleware } from 'openapi-fetch';
import type { TokenSource } from './tokens.js';

/** `401` codes after which one retry with a freshly minted bearer is worth it. */
const CURED_BY_NEW_BEARER: ReadonlySet<string> = new Set(['token_expired', 'token_revoked', 'unauthorized']);

/**
 * The middleware: sets the bearer, keeps a copy of each request until its answer, and on a curable `401`
 * re-sends the copy with a new bearer through `fetch` (the client's). Operations without security
 * (`security: []`) get the bearer too; the API ignores it there.
 */
export function bearerAuth(tokens: TokenSource, fetch: (request: Request) => Promise<Response>): Middleware {
  const pending = new Map<string, { copy: Request; token: string }>();
  return {
    async onRequest({ request, id }) {
      const token = await tokens.bearer();
      request.headers.set('Authorization', `Bearer ${token}`);
      pending.set(id, { copy: request.clone(), token });
      return request;
    },
    async onResponse({ response, id }) {
      const sent = pending.get(id);
      pending.delete(id);
      if (!sent || response.status !== 401) return;
      const body = (await response
        .clone()
        .json()
        .catch(() => ({}))) as { error?: unknown };
      if (typeof body.error !== 'string' || !CURED_BY_NEW_BEARER.has(body.error)) return;
      tokens.invalidate(sent.token);
      sent.copy.headers.set('Authorization', `Bearer ${await tokens.bearer()}`);
      return fetch(sent.copy);
    },
    onError({ id }) {
      pending.delete(id);
    },
  };
}

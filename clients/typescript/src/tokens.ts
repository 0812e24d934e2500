/**
 * The bearer of an API key and secret (docs/api.md §2.2, §4.1): minted with `POST /api/auth/api-token`, kept,
 * and minted again shortly before it expires or when the API says it no longer holds (`401`).
 */
import createFetchClient from 'openapi-fetch';
import { ok } from './errors.js';
import type { components, paths } from './generated/openapi.js';

/** The answer of `POST /api/auth/api-token`: `{ token, tokenType, tier, expiresAt (ISO), audience, tenantId, accountId, scopes }`. */
export type ApiToken = components['schemas']['ApiToken'];

/** How a {@link TokenSource} mints. */
export interface TokenSourceOptions {
  /** The API's base URL, e.g. `http://localhost:3000` (no trailing `/api`). */
  baseUrl: string;
  /** Sent as `X-Tenant-Slug` (the mint itself is tenant-exempt; harmless). */
  tenantSlug?: string;
  /** The credential: `tk_…` (trader) or `ok_…` (operator) and its secret. */
  apiKey: string;
  apiSecret: string;
  /** Mint again when the bearer expires within this long, ms (default 5 minutes; a bearer lives 24 h). */
  refreshBeforeMs?: number;
  /** The clock, epoch ms (default `Date.now`); tests move it to see a refresh. */
  now?: () => number;
  /** The fetch to mint with (default `globalThis.fetch`). */
  fetch?: (request: Request) => Promise<Response>;
}

/**
 * One credential's current bearer. Concurrent callers share one mint in flight.
 * Errors (as {@link ApiError} from the mint): `401 invalid_credentials`, `401 credential_revoked`,
 * `410 tenant_suspended`, `429 rate_limited` (too many wrong secrets).
 */
export class TokenSource {
  private current?: { info: ApiToken; expiresAtMs: number };
  private minting?: Promise<ApiToken>;
  private readonly http;
  private readonly refreshBeforeMs: number;
  private readonly now: () => number;
  /** Bearers minted so far (1 after the first request; each refresh adds one). */
  mints = 0;

  constructor(private readonly opts: TokenSourceOptions) {
    this.http = createFetchClient<paths>({
      baseUrl: opts.baseUrl,
      headers: opts.tenantSlug ? { 'X-Tenant-Slug': opts.tenantSlug } : {},
      ...(opts.fetch ? { fetch: opts.fetch } : {}),
    });
    this.refreshBeforeMs = opts.refreshBeforeMs ?? 5 * 60_000;
    this.now = opts.now ?? Date.now;
  }

  /** The mint's answer of the bearer in use (tier, accountId, scopes, expiresAt), once one was minted. */
  get info(): ApiToken | undefined {
    return this.current?.info;
  }

  /** A bearer valid for at least `refreshBeforeMs` more: the kept one, else a fresh mint. */
  async bearer(): Promise<string> {
    if (this.current && this.current.expiresAtMs - this.now() > this.refreshBeforeMs) return this.current.info.token;
    return (await this.mint()).token;
  }

  /**
   * Forgets `token` when it is the bearer in use (the API answered `401 token_expired`, `token_revoked` or
   * `unauthorized` to it), so the next {@link bearer} mints; a token already replaced is ignored.
   */
  invalidate(token: string): void {
    if (this.current?.info.token === token) this.current = undefined;
  }

  /** Mints a bearer now (one mint at a time; callers meanwhile share it). */
  mint(): Promise<ApiToken> {
    this.minting ??= ok(
      this.http.POST('/api/auth/api-token', { body: { apiKey: this.opts.apiKey, apiSecret: this.opts.apiSecret } }),
    )
      .then((info) => {
        this.mints += 1;
        this.current = { info, expiresAtMs: Date.parse(info.expiresAt) };
        return info;
      })
      .finally(() => (this.minting = undefined));
    return this.minting;
  }
}

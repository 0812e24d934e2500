/**
 * The page's client of the public API (docs/api.md §4, §5): same-origin `fetch`, so the tenant resolves
 * from this host (docs/api.md §5.6) and a `service_session` cookie rides along. Every shape here is the
 * API's own; decimals stay strings.
 */
import type { components } from '../../clients/typescript/src/generated/openapi';

/** An error answer of the API: `{ error, detail }` and the HTTP status (docs/api.md §7). */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: unknown,
  ) {
    super(`${code}${typeof detail === 'string' ? `: ${detail}` : ''}`);
  }
}

/** The API's own schemas (the OpenAPI document, as the TypeScript client generates them); types only, erased from the bundle. */
type Schemas = components['schemas'];

/** Tenant branding, `GET /api/branding` (docs/api.md §2.4). */
export type Branding = Schemas['Branding'];
/** Tenant theme, `GET /api/theme` (docs/api.md §2.4): a palette per mode, typography, radius. */
export type Theme = Schemas['TenantThemeOutput'];
/** Colour tokens of one mode, `#rrggbb`. */
export type Palette = Theme['light'];
/** A trader account (docs/api.md §2.3). */
export type Account = Schemas['Account'];
/** An order intent as REST and `/ws/risk` show it (docs/api.md §3.1), `remainingQty` when it is a working order; decimal strings. */
export type Intent = Schemas['OrderIntent'] & { remainingQty?: string };
/** A position with its mark (docs/api.md §2.7); `flat` arrives on `Position-Changed` when it closes. */
export type Position = Schemas['Position'];
/** An execution (docs/api.md §2.8). */
export type Fill = Schemas['Fill'];
/** A candle (docs/api.md §2.9), times ISO-8601, prices decimal strings. */
export type Bar = Schemas['Candles']['bars'][number];
/** A challenge on sale, `GET /api/v1/prop/offers` (docs/api.md §4.8): USD amounts and fractions (`"0.08"` = 8 %) as decimal strings. */
export type Offer = Schemas['PropOffer'];
/** A bought challenge, `POST`/`GET /api/v1/prop/challenges` (docs/api.md §3.5); `deposit`: what the payer's wallet sends. */
export type Challenge = Schemas['Challenge'];

/**
 * Sends one request. `token`: a bearer; without one, the cookie session (if any) authenticates.
 * `headers`: extra headers (e.g. `Idempotency-Key`). @throws ApiFailure with the answer's `{ error, detail }`
 */
export async function call<T>(
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    credentials: 'same-origin',
  });
  const text = await res.text();
  const json: unknown = text ? JSON.parse(text) : undefined;
  if (!res.ok) {
    const refusal = (json ?? {}) as { error?: string; detail?: string };
    throw new ApiFailure(res.status, refusal.error ?? 'http_error', refusal.detail ?? res.statusText);
  }
  return json as T;
}

/** The signed-in trader: a bearer minted from an API key, or a cookie session (wallet, social or email sign-in). */
export interface Session {
  /** `wallet`: any cookie session (SIWE, social, email), whatever signed it in. */
  kind: 'apiKey' | 'wallet';
  /** Bearer JWT (API-key sessions only). */
  token?: string;
  /** Who is signed in: the API key, the wallet address, or a restored cookie session's identity (App.tsx). */
  label: string;
  account: Account;
}

/** `POST /api/auth/api-token`, then the first account of the credential (docs/api.md §5.1). @throws ApiFailure */
export async function signInWithApiKey(apiKey: string, apiSecret: string): Promise<Session> {
  const { token } = await call<{ token: string }>('POST', '/api/auth/api-token', { body: { apiKey, apiSecret } });
  return { kind: 'apiKey', token, label: apiKey, account: await firstAccount(token) };
}

/** The trader's first account. @throws ApiFailure `404 not_found` when it has none */
export async function firstAccount(token?: string): Promise<Account> {
  const { accounts } = await call<{ accounts: Account[] }>('GET', '/api/v1/accounts', { token });
  if (!accounts.length) throw new ApiFailure(404, 'not_found', 'this trader has no account');
  return accounts[0];
}

/** A bound client for one session's calls. */
export function clientOf(session: Session) {
  return <T>(method: string, path: string, body?: unknown) => call<T>(method, path, { token: session.token, body });
}

/** One line for the user: `code: detail` of an API error (validation issues as `field: message; …`), else the error's message. */
export function describeError(err: unknown): string {
  if (!(err instanceof ApiFailure)) return err instanceof Error ? err.message : String(err);
  const issues = Array.isArray(err.detail)
    ? (err.detail as { path?: string; message?: string }[])
        .map((i) => `${i.path?.replace(/^body\./, '') ?? ''}: ${i.message ?? ''}`)
        .join('; ')
    : null;
  return `${err.code}: ${issues ?? (typeof err.detail === 'string' ? err.detail : JSON.stringify(err.detail))}`;
}

/**
 * The page's client of the public API (docs/api.md §4, §5): same-origin `fetch`, so the tenant resolves
 * from this host (docs/api.md §5.6) and a `service_session` cookie rides along. Every shape here is the
 * API's own; decimals stay strings.
 */

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

/** Tenant branding, `GET /api/branding` (docs/api.md §2.4). */
export interface Branding {
  displayName: string;
  logoUrl: string | null;
  faviconUrl: string | null;
  supportEmail: string | null;
}
/** Colour tokens of one mode, `#rrggbb`. */
export type Palette = Record<
  'background' | 'surface' | 'text' | 'muted' | 'primary' | 'positive' | 'negative' | 'border',
  string
>;
/** Tenant theme, `GET /api/theme` (docs/api.md §2.4). */
export interface Theme {
  light: Palette;
  dark: Palette;
  typography: { fontFamily: string; baseSizePx: number };
  radiusPx: number;
  defaultMode: 'light' | 'dark';
}
/** A trader account (docs/api.md §2.3). */
export interface Account {
  accountId: string;
  accountNumber: string;
  name: string;
}
/** An order intent as REST and `/ws/risk` show it (docs/api.md §3.1); sizes and prices are decimal strings. */
export interface Intent {
  intentId: string;
  venue: string;
  symbol: string;
  side: 'buy' | 'sell';
  type: string;
  qty: string;
  price: string | null;
  state: string;
  orderStatus: string | null;
  filledQty: string;
  remainingQty?: string;
  avgFillPrice: string | null;
  venueOrderId: string | null;
  rejectReason: string | null;
  createdAt: string;
}
/** A position with its mark (docs/api.md §2.7); `flat` arrives on `Position-Changed` when it closes. */
export interface Position {
  venue: string;
  symbol: string;
  side: 'long' | 'short' | 'flat';
  qty: string;
  avgEntryPrice: string;
  markPrice: string | null;
  unrealizedPnlUsd: string | null;
}
/** An execution (docs/api.md §2.8). */
export interface Fill {
  fillId: string;
  intentId: string;
  symbol: string;
  side: 'buy' | 'sell';
  qty: string;
  price: string;
  feeUsd: string;
  executedAt: string;
}
/** A candle (docs/api.md §2.9), times ISO-8601, prices decimal strings. */
export interface Bar {
  openTime: string;
  open: string;
  high: string;
  low: string;
  close: string;
  closed: boolean;
}

/** A challenge on sale, `GET /api/v1/prop/offers` (docs/api.md §4.8): USD amounts and fractions (`"0.08"` = 8 %) as decimal strings. */
export interface Offer {
  templateId: string;
  firmId: string;
  firmName: string;
  name: string;
  priceUsd: string;
  accountSizeUsd: string;
  profitTargetPct: string;
  maxDailyLossPct: string;
  maxDrawdownPct: string;
  minTradingDays: number;
  payoutSplitPct: string;
  venue: string;
  payment: { chainId: number; stablecoin: string; instance: string; amountUnits: string };
}
/** A bought challenge, `POST`/`GET /api/v1/prop/challenges` (docs/api.md §3.5); `deposit`: what the payer's wallet sends. */
export interface Challenge {
  propAccountId: string;
  firmId: string;
  templateId: string;
  accountId: string;
  status: 'pending_payment' | 'active' | 'passed' | 'breached' | 'funded' | 'suspended';
  startingBalanceUsd: string;
  breachReason: string | null;
  createdAt: string;
  deposit: {
    chainId: number;
    instance: string;
    stablecoin: string;
    amountUsd: string;
    amountUnits: string;
    propAccountRef: string;
    calls: string[];
  } | null;
}

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

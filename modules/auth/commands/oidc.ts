/**
 * OpenID Connect sign-in per tenant (docs/api.md §5.1 "Social sign-in"; issue 22): the authorisation code flow with
 * PKCE (S256), `state` and `nonce`, done by `openid-client` against the provider the tenant's operator configured
 * (modules/auth/commands/signin-providers.ts).
 *
 * - {@link startOidcSignIn} (`GET /api/auth/oidc/{provider}/start`): discovers the provider (cached per api process
 *   for {@link DISCOVERY_TTL_MS}), records a login transaction (`signin_transactions`: state, nonce, PKCE verifier,
 *   redirect URI, where to return, 10 minutes, single use) and answers the provider's authorisation URL; the route
 *   binds the state to the browser with the `service_oidc_state` cookie.
 * - {@link finishOidcSignIn} (`GET /api/auth/oidc/{provider}/callback`): uses the transaction once (its state must be
 *   the cookie's), exchanges the code with the PKCE verifier and has `openid-client` check the ID token — its
 *   signature against the provider's JWKS (`enableNonRepudiationChecks`), `iss`, `aud`, `exp`/`iat` and `nonce` —
 *   then signs the identity in (modules/auth/commands/identities.ts: join policy, trader and default account).
 *
 * The redirect URI is `<origin>/api/auth/oidc/<slug>/callback` on the origin the browser started from when it is one
 * of the tenant's registered origins, else on the API's public base URL (`PUBLIC_BASE_URL`): never a host a request
 * merely claims. Register those at the provider.
 *
 * Providers are reached over https only unless `OIDC_ALLOW_INSECURE=true` (dev and tests; refused in production).
 */
import * as oidc from 'openid-client';
import { ApiError } from '../../../domain/errors.js';
import { tokenHash } from '../../../domain/auth/secrets.js';
import { open } from '../../../domain/custody/vault.js';
import { normaliseOrigin } from '../../../domain/tenancy.js';
import { SigninProvider, type SigninProviderRow } from '../../../db/entities.js';
import { platformEm, scoped } from '../../../db/orm.js';
import type { ApiDeps } from '../../../api/context.js';
import { custodyRing, requireRing } from '../../custody/commands/ring.js';
import { signInIdentity, type SignedInTrader } from './identities.js';
import { signinOrigins } from './siwe.js';

/** How long a started login may take to come back (ms): 10 minutes. */
export const LOGIN_TTL_MS = 10 * 60 * 1000;
/** How long a provider's discovery document is reused by an api process (ms): 10 minutes. */
const DISCOVERY_TTL_MS = 10 * 60 * 1000;
/** How long the api waits for the provider (discovery, keys, token endpoint) (seconds). */
const PROVIDER_TIMEOUT_S = 5;

const conn = (deps: ApiDeps) => platformEm(deps.orm).getConnection();

/**
 * The enabled provider `slug` of `kind` in a tenant.
 * @throws ApiError `404 signin_provider_not_found` (none, disabled, or of another kind).
 */
export async function enabledProvider(
  deps: ApiDeps,
  tenantId: string,
  slug: string,
  kind: 'oidc' | 'email',
): Promise<SigninProviderRow> {
  const row = await scoped(deps.orm, tenantId).findOne(SigninProvider, { slug, kind, enabled: true });
  if (!row)
    throw new ApiError('signin_provider_not_found', `this tenant has no enabled ${kind} sign-in provider ${slug}`);
  return row;
}

/** Discovered configurations by provider id and `updatedAt` (a changed provider is discovered again). */
const discovered = new Map<string, { config: oidc.Configuration; until: number }>();

/** Whether an error is the provider not answering (network, timeout, 5xx) rather than answering wrong. */
const unreachable = (err: unknown) =>
  err instanceof TypeError ||
  (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) ||
  (err instanceof oidc.ClientError && err.code === 'OAUTH_RESPONSE_IS_NOT_CONFORM');

/**
 * The provider's `openid-client` configuration: discovery of `issuer` (its metadata's `issuer` must be it), the client
 * id and the unsealed secret (`client_secret_post`; none: a public client, PKCE only), ID token signatures checked.
 * @throws ApiError `502 oidc_provider_unavailable` when discovery fails; `503 custody_unconfigured` when the secret
 *   cannot be unsealed for want of the key ring.
 */
async function configurationOf(deps: ApiDeps, p: SigninProviderRow): Promise<oidc.Configuration> {
  const key = `${p.id}@${p.updatedAt.getTime()}`;
  const cached = discovered.get(key);
  if (cached && cached.until > Date.now()) return cached.config;
  const secret = p.sealedClientSecret
    ? open(requireRing(custodyRing(deps), 'the client secret cannot be unsealed'), p.sealedClientSecret)
    : undefined;
  try {
    const config = await oidc.discovery(
      new URL(p.issuer!),
      p.clientId!,
      secret,
      secret ? oidc.ClientSecretPost(secret) : oidc.None(),
      { execute: deps.config.oidc.allowInsecure ? [oidc.allowInsecureRequests] : [], timeout: PROVIDER_TIMEOUT_S },
    );
    oidc.enableNonRepudiationChecks(config);
    discovered.set(key, { config, until: Date.now() + DISCOVERY_TTL_MS });
    return config;
  } catch (err) {
    throw new ApiError(
      'oidc_provider_unavailable',
      `the sign-in provider ${p.slug} (${p.issuer}) could not be discovered: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

/**
 * The origin a browser sign-in comes back to (`scheme://host[:port]`): `requestOrigin` (the origin the request was
 * made on) when it is one of siwe.ts {@link signinOrigins} (the tenant's registered origins and that of
 * `publicBaseUrl`), else the origin of `publicBaseUrl` — never a host a request merely claims. The session cookie is
 * set there (module doc).
 */
export async function pageOrigin(
  deps: ApiDeps,
  tenantId: string,
  requestOrigin: string,
  publicBaseUrl: string,
): Promise<string> {
  const origin = normaliseOrigin(requestOrigin);
  const allowed = await signinOrigins(deps, tenantId, publicBaseUrl);
  return origin && allowed.includes(origin) ? origin : normaliseOrigin(publicBaseUrl)!;
}

/** A started login: the provider's authorisation URL (the route answers `302` to it) and the state (for the cookie). */
export interface StartedLogin {
  authorizationUrl: string;
  state: string;
  expiresAt: Date;
}

/**
 * Starts a sign-in (or, with `linkOwnerId`, the linking of another identity to that signed-in trader) with the
 * enabled OpenID provider `slug` (module doc). `returnTo`: the page path to come back to (checked by the route).
 * @throws ApiError `404 signin_provider_not_found`, `502 oidc_provider_unavailable`, `503 custody_unconfigured`.
 */
export async function startOidcSignIn(
  deps: ApiDeps,
  o: {
    tenantId: string;
    slug: string;
    returnTo: string;
    requestOrigin: string;
    publicBaseUrl: string;
    linkOwnerId: string | null;
  },
): Promise<StartedLogin> {
  const p = await enabledProvider(deps, o.tenantId, o.slug, 'oidc');
  const config = await configurationOf(deps, p);
  const origin = await pageOrigin(deps, o.tenantId, o.requestOrigin, o.publicBaseUrl);
  const redirectUri = `${origin}/api/auth/oidc/${encodeURIComponent(p.slug)}/callback`;
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const verifier = oidc.randomPKCECodeVerifier();
  const expiresAt = new Date(Date.now() + LOGIN_TTL_MS);
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: p.scopes.join(' '),
    response_type: 'code',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  await conn(deps).execute(
    `insert into signin_transactions (state, tenant_id, provider_id, nonce, code_verifier, redirect_uri, return_to, link_owner_id, expires_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [state, o.tenantId, p.id, nonce, verifier, redirectUri, o.returnTo, o.linkOwnerId, expiresAt],
  );
  await conn(deps).execute(`delete from signin_transactions where expires_at < now() - interval '1 hour'`);
  return { authorizationUrl: url.href, state, expiresAt };
}

/**
 * The page path the login transaction started with `state` in the tenant returns to — used, expired or not (a
 * transaction is kept for an hour past its expiry) — or null when no such transaction exists (a forged or unknown
 * state). The callback route sends a refused browser sign-in back there with the reason (docs/api.md §5.1).
 */
export async function loginReturnTo(
  deps: ApiDeps,
  tenantId: string,
  state: string | undefined,
): Promise<string | null> {
  if (!state) return null;
  const [tx] = await conn(deps).execute<{ return_to: string }[]>(
    `select return_to from signin_transactions where state = ? and tenant_id = ?`,
    [state, tenantId],
  );
  return tx?.return_to ?? null;
}

/** What the callback did: who signed in (or was linked), where the browser returns, and whether it was a link. */
export interface FinishedLogin extends SignedInTrader {
  returnTo: string;
  linked: boolean;
}

/** openid-client's refusals of a callback, mapped to the API's codes (a table; the first match wins). */
const CALLBACK_REFUSALS: {
  test: (err: unknown) => boolean;
  code: 'oidc_authorization_denied' | 'oidc_code_invalid' | 'oidc_id_token_invalid' | 'oidc_provider_unavailable';
  what: string;
}[] = [
  {
    test: (e) => e instanceof oidc.AuthorizationResponseError,
    code: 'oidc_authorization_denied',
    what: 'the provider refused the sign-in',
  },
  {
    test: (e) => e instanceof oidc.ResponseBodyError,
    code: 'oidc_code_invalid',
    what: 'the provider refused the code (used, expired, or not for this login)',
  },
  { test: unreachable, code: 'oidc_provider_unavailable', what: 'the provider did not answer' },
  {
    test: () => true,
    code: 'oidc_id_token_invalid',
    what: 'the ID token is not valid for this login (signature, issuer, audience, expiry or nonce)',
  },
];

/**
 * Finishes a sign-in at the callback: `callbackUrl` is the URL the provider redirected to (its query: `code`, `state`,
 * or `error`), `cookieState` the `service_oidc_state` cookie. The login transaction is used once, first: a refused
 * callback cannot be retried with the same state.
 * @throws ApiError `401 oidc_state_invalid` (unknown, used, expired or another provider's state, or not this browser's
 *   cookie), `401 oidc_authorization_denied` (the provider answered `error`), `401 oidc_code_invalid` (the token
 *   endpoint refused the code: replayed, expired, PKCE mismatch), `401 oidc_id_token_invalid` (signature, `iss`, `aud`,
 *   `exp`, `nonce`, no `sub`), `502 oidc_provider_unavailable`, and as identities.ts `signInIdentity`
 *   (`403 signin_not_allowed`, `409 identity_linked_elsewhere`, `409 plan_limit_reached`).
 */
export async function finishOidcSignIn(
  deps: ApiDeps,
  o: { tenantId: string; slug: string; callbackUrl: URL; cookieState: string | undefined },
): Promise<FinishedLogin> {
  const p = await enabledProvider(deps, o.tenantId, o.slug, 'oidc');
  const state = o.callbackUrl.searchParams.get('state');
  const refuseState = (why: string) =>
    new ApiError('oidc_state_invalid', `${why}: start the sign-in again (GET /api/auth/oidc/${p.slug}/start)`);
  if (!state || !o.cookieState || tokenHash(state) !== tokenHash(o.cookieState))
    throw refuseState('the state is missing or is not the one this browser started');
  const [tx] = await conn(deps).execute<
    { nonce: string; code_verifier: string; redirect_uri: string; return_to: string; link_owner_id: string | null }[]
  >(
    `update signin_transactions set used_at = now() where state = ? and tenant_id = ? and provider_id = ? and used_at is null and expires_at > now()
      returning nonce, code_verifier, redirect_uri, return_to, link_owner_id`,
    [state, o.tenantId, p.id],
  );
  if (!tx) throw refuseState('unknown, used or expired state');
  const config = await configurationOf(deps, p);
  // The provider redirected to redirect_uri: the code grant is checked against that URL, whatever host served it.
  const current = new URL(tx.redirect_uri);
  current.search = o.callbackUrl.search;
  let claims: oidc.IDToken;
  try {
    const tokens = await oidc.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: tx.code_verifier,
      expectedState: state,
      expectedNonce: tx.nonce,
      idTokenExpected: true,
    });
    claims = tokens.claims()!;
  } catch (err) {
    const refusal = CALLBACK_REFUSALS.find((r) => r.test(err))!;
    const reason = err instanceof Error ? err.message : String(err);
    const cause = err instanceof Error && err.cause instanceof Error ? ` (${err.cause.message})` : '';
    throw new ApiError(refusal.code, `${refusal.what}: ${reason}${cause}`);
  }
  const email = typeof claims.email === 'string' ? claims.email.toLowerCase() : null;
  const who = {
    kind: 'oidc' as const,
    issuer: claims.iss,
    subject: claims.sub,
    email,
    emailVerified: claims.email_verified === true,
  };
  const signedIn = await signInIdentity(deps, p, who, tx.link_owner_id);
  return { ...signedIn, returnTo: tx.return_to, linked: tx.link_owner_id !== null };
}

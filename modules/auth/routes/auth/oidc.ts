/**
 * Social and email sign-in for the branded page, and the identities linked to a trader (docs/api.md §5.1 "Social
 * sign-in"; issue 22). Tenant-gated: providers, logins and sessions belong to the tenant the request resolved to.
 * Each ends in the same `service_session` cookie as SIWE (api/auth/session.ts), with the same powers and limits.
 *
 * - `GET /api/auth/providers` → `{ providers }`, the tenant's enabled providers for the sign-in buttons.
 * - `GET /api/auth/oidc/{provider}/start?returnTo&link` → `302` to the provider (authorisation code, PKCE S256, `state`,
 *   `nonce`) and `Set-Cookie: service_oidc_state` (the state, bound to this browser, 10 min). `link=true` with a cookie
 *   session links the identity to its trader instead.
 * - `GET /api/auth/oidc/{provider}/callback?code&state` → `302` to `returnTo` with the `service_session` cookie (24 h;
 *   none when linking). Errors: modules/auth/commands/oidc.ts `finishOidcSignIn`; a refusal of a login this tenant
 *   started goes back to the page instead: `302` to `returnTo?signin_error=<code>`, no cookie (a person in a browser
 *   sees the reason on the page, not a JSON body). Only a state no login started (forged, unknown) answers the JSON
 *   error `{ error, detail }`.
 * - `POST /api/auth/oidc/logout` → `{ ok: true }`: ends the cookie's session (any sign-in) and clears the cookie.
 * - `POST /api/auth/email/start` `{ email, returnTo?, link? }` → `202 { sent, expiresAt }`: mails a magic link (single
 *   use, 15 min; modules/auth/commands/magic-link.ts).
 * - `GET /api/auth/email/verify?token` → `302` to `returnTo` with the session cookie (none when linking); a refused
 *   link that exists (used, expired, the join policy) → `302` to `returnTo?signin_error=<code>`; an unknown token →
 *   the JSON `401 magic_link_invalid`.
 * - `GET /api/auth/identities` (trader: cookie or bearer) → `{ identities }`; `POST /api/auth/identities/wallet`
 *   `{ message, signature }` (SIWE) → `201` the wallet linked; `DELETE /api/auth/identities/{identityId}` → `{ ok }`.
 */
import Router from '@koa/router';
import { ApiError, type ErrorCode } from '../../../../domain/errors.js';
import { SigninProvider } from '../../../../db/entities.js';
import { scoped } from '../../../../db/orm.js';
import { createSession } from '../../../../api/auth/session.js';
import {
  SESSION_SET_COOKIE,
  endSession,
  setCookie,
  setSessionCookie,
  type BrowserCookie,
} from '../../../../api/auth/session-cookie.js';
import type { ApiContext, ApiDeps, ApiState, Caller } from '../../../../api/context.js';
import { callerOf, gate } from '../../../../api/middleware/auth.js';
import { resolvedTenant } from '../../../../api/middleware/tenant.js';
import type { OpenApiRegistry } from '../../../../api/openapi.js';
import { routesOf } from '../../../../api/route.js';
import {
  LOGIN_TTL_MS,
  finishOidcSignIn,
  loginReturnTo,
  pageOrigin,
  startOidcSignIn,
  type FinishedLogin,
} from '../../commands/oidc.js';
import { magicLinks } from '../../commands/magic-link.js';
import { identitiesOf, linkWallet, removeIdentity } from '../../commands/identities.js';
import { signinOrigins } from '../../commands/siwe.js';
import { toIdentityView, toSigninOption } from '../../presenters/signin.js';
import { siweVerifyBody } from './siwe.schemas.js';
import {
  emailStartBody,
  emailStartResponse,
  emailVerifyQuery,
  identityList,
  identityParams,
  linkedIdentity,
  oidcCallbackQuery,
  oidcStartQuery,
  okResponse,
  providerParams,
  signinOptions,
} from './oidc.schemas.js';

/** The cookie binding a started OpenID login to the browser that started it (its `state`); set and cleared alike. */
const STATE_COOKIE: BrowserCookie = { name: 'service_oidc_state', path: '/api/auth/oidc', maxAgeMs: LOGIN_TTL_MS };

/** The query parameter of the page a refused browser sign-in goes back to: the error code (web/src/components/SignIn.tsx). */
const SIGNIN_ERROR = 'signin_error';

/**
 * The origin the request was made on, `scheme://host[:port]` of its URL (Koa's `ctx.origin` is the `Origin` header,
 * which a top-level navigation does not send). Only ever compared with the tenant's registered origins.
 */
const requestOrigin = (ctx: ApiContext) => `${ctx.protocol}://${ctx.host}`;

/** Answers `302` to `location` with no body. */
function redirect(ctx: ApiContext, location: string): void {
  ctx.status = 302;
  ctx.set('Location', location);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = '';
}

/** Sets the session cookie of a finished sign-in (not for a link) and redirects the browser to its page. */
async function landSignIn(deps: ApiDeps, ctx: ApiContext, done: FinishedLogin): Promise<void> {
  if (!done.linked) {
    const session = await createSession(deps.orm, {
      tenantId: done.identity.tenantId,
      ownerId: done.ownerId,
      accountId: done.accountId,
      identityId: done.identity.id,
    });
    setSessionCookie(ctx, session.token);
  }
  redirect(ctx, done.returnTo);
}

/** `returnTo` (a path of this site) with `signin_error=<code>` added to its query. */
function withSigninError(returnTo: string, code: ErrorCode): string {
  const page = new URL(returnTo, 'http://page.invalid');
  page.searchParams.set(SIGNIN_ERROR, code);
  return `${page.pathname}${page.search}${page.hash}`;
}

/**
 * Finishes a browser sign-in (`finish`). A refusal (an ApiError) of a sign-in that has a page to go back to
 * (`returnTo()`: the stored transaction's or link's `returnTo`, null when there is none) answers `302` to that page with
 * `signin_error=<code>` and no session cookie; without one, the ApiError goes on to the JSON error body.
 */
async function finishInBrowser(
  ctx: ApiContext,
  finish: () => Promise<void>,
  returnTo: () => Promise<string | null>,
): Promise<void> {
  try {
    await finish();
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const page = await returnTo();
    if (page === null) throw err;
    ctx.state.log.info({ error: err.code, detail: err.detail }, 'browser sign-in refused; back to the page');
    redirect(ctx, withSigninError(page, err.code));
  }
}

/**
 * The trader a `link` request links to: the caller's owner. @throws ApiError `401 unauthorized` without a session or
 * bearer, `403 wrong_credential_audience` for an operator.
 */
function linkingTrader(ctx: ApiContext): Caller {
  const caller = ctx.state.caller;
  if (!caller) throw new ApiError('unauthorized', 'linking an identity needs a signed-in trader (the session cookie)');
  if (caller.audience !== 'trader')
    throw new ApiError('wrong_credential_audience', 'identities are linked to traders', {
      expected: 'trader',
      actual: caller.audience,
    });
  return caller;
}

/**
 * The router of the endpoints listed in this module's header; each one is also registered in `openapi`.
 * `deps.baseUrl()` is the API's public base URL (`PUBLIC_BASE_URL`): where a sign-in comes back when the browser is not
 * on one of the tenant's registered origins (modules/auth/commands/oidc.ts `pageOrigin`).
 */
export function oidcRoutes(deps: ApiDeps & { baseUrl: () => string }, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/auth' });
  const tags = ['auth'];
  const mail = magicLinks(deps);
  const traderRead = gate({ audience: 'trader' });
  const traderWrite = gate({ audience: 'trader', write: true });

  const route = routesOf(router, openapi, { tags });

  route
    .get('/providers', 'The sign-in providers of this tenant (social and email), for the sign-in buttons')
    .answers({ '200': { description: 'The enabled providers', schema: signinOptions } })
    .handle(async (ctx) => {
      const rows = await scoped(deps.orm, resolvedTenant(ctx).id).find(
        SigninProvider,
        { enabled: true },
        { orderBy: { createdAt: 'asc', id: 'asc' } },
      );
      ctx.body = { providers: rows.map(toSigninOption) };
    });

  route
    .get(
      '/oidc/:provider/start',
      'Start an OpenID Connect sign-in (authorisation code with PKCE): a redirect to the provider',
    )
    .input({ params: providerParams, query: oidcStartQuery })
    .answers({
      '302': {
        description:
          'To the provider’s authorisation endpoint with `state`, `nonce` and a S256 `code_challenge`; the state is bound to this browser by the `service_oidc_state` cookie (10 minutes). 400 validation_failed (returnTo not a path of this site); 401 unauthorized (link=true without a session); 404 signin_provider_not_found',
        headers: {
          Location: 'The provider’s authorisation URL',
          'Set-Cookie': 'service_oidc_state=<state>; HttpOnly; SameSite=Lax; Path=/api/auth/oidc; Max-Age=600',
        },
      },
      '502': { description: 'oidc_provider_unavailable: the provider’s discovery document could not be read' },
      '503': { description: 'custody_unconfigured: the client secret cannot be unsealed' },
    })
    .handle(async (ctx, { params, query }) => {
      const link = query.link === 'true' ? linkingTrader(ctx) : null;
      const started = await startOidcSignIn(deps, {
        tenantId: resolvedTenant(ctx).id,
        slug: params.provider,
        returnTo: query.returnTo ?? '/',
        requestOrigin: requestOrigin(ctx),
        publicBaseUrl: deps.baseUrl(),
        linkOwnerId: link?.ownerId ?? null,
      });
      setCookie(ctx, STATE_COOKIE, started.state);
      redirect(ctx, started.authorizationUrl);
    });

  route
    .get(
      '/oidc/:provider/callback',
      'The provider’s redirect back: checks state, code, the ID token and the join policy; sets the session cookie',
    )
    .input({ params: providerParams, query: oidcCallbackQuery })
    .answers({
      '302': {
        description:
          'Signed in (or, for a link, linked): to the `returnTo` page with the session cookie. Refused, for a login this tenant started (its `state` is known, even used or expired): to the `returnTo` page with `?signin_error=<code>` and no session cookie, the code one of oidc_state_invalid (replayed, expired or another browser’s state), oidc_authorization_denied (the provider answered an error: the person cancelled or was refused there), oidc_code_invalid (the provider refused the code: replayed, expired, PKCE mismatch), oidc_id_token_invalid (signature, issuer, audience, expiry or nonce), signin_not_allowed (the join policy: invite-only, email domains), signin_provider_not_found, identity_linked_elsewhere, plan_limit_reached, oidc_provider_unavailable, custody_unconfigured',
        headers: {
          Location: 'The `returnTo` page; refused: the same page with `signin_error=<code>` added to its query',
          'Set-Cookie': `${SESSION_SET_COOKIE}; only when signed in`,
        },
      },
      '400': { description: 'validation_failed: a query parameter over its length' },
      '401': {
        description:
          'oidc_state_invalid: no state, or one no login of this tenant started (forged): no page to go back to',
      },
      '404': { description: 'signin_provider_not_found, with a state no login of this tenant started' },
    })
    .handle(async (ctx, { params, query }) => {
      const cookieState = ctx.cookies.get(STATE_COOKIE.name);
      setCookie(ctx, STATE_COOKIE, null);
      const tenantId = resolvedTenant(ctx).id;
      await finishInBrowser(
        ctx,
        async () => {
          const done = await finishOidcSignIn(deps, {
            tenantId,
            slug: params.provider,
            callbackUrl: new URL(ctx.href),
            cookieState,
          });
          await landSignIn(deps, ctx, done);
        },
        () => loginReturnTo(deps, tenantId, query.state),
      );
    });

  route
    .post(
      '/oidc/logout',
      "End the cookie's session, whatever it signed in with, and clear the cookie (no session: still ok)",
    )
    .answers({ '200': { description: 'Signed out', schema: okResponse } })
    .handle(async (ctx) => {
      await endSession(deps.orm, ctx);
      ctx.body = { ok: true };
    });

  route
    .post('/email/start', 'Mail a single-use sign-in link (15 minutes) through the outbox')
    .input({ body: emailStartBody })
    .answers({
      '202': {
        description:
          'The link is queued (the answer is the same whether or not the address may sign in). 401 unauthorized (link without a signed-in trader); 404 signin_provider_not_found (no email sign-in here)',
        schema: emailStartResponse,
      },
    })
    .handle(async (ctx, { body }) => {
      const link = body.link ? linkingTrader(ctx) : null;
      const tenantId = resolvedTenant(ctx).id;
      const { expiresAt } = await mail.start({
        tenantId,
        email: body.email,
        returnTo: body.returnTo ?? '/',
        linkOwnerId: link?.ownerId ?? null,
        origin: await pageOrigin(deps, tenantId, ctx.get('origin') || requestOrigin(ctx), deps.baseUrl()),
      });
      ctx.status = 202;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { sent: true, expiresAt: expiresAt.toISOString() };
    });

  route
    .get('/email/verify', 'Use a mailed sign-in link once: sets the session cookie and goes to the page')
    .input({ query: emailVerifyQuery })
    .answers({
      '302': {
        description:
          'Signed in (or linked): to the page the link was asked from, with the session cookie. Refused, for a link that was mailed: to that page with `?signin_error=<code>` and no session cookie, the code one of magic_link_invalid (used or expired, or email sign-in no longer offered), signin_not_allowed (the join policy), identity_linked_elsewhere, plan_limit_reached',
        headers: {
          Location: 'The `returnTo` page; refused: the same page with `signin_error=<code>` added to its query',
          'Set-Cookie': `${SESSION_SET_COOKIE}; only when signed in`,
        },
      },
      '400': { description: 'validation_failed: no token' },
      '401': { description: 'magic_link_invalid: a token no link was mailed with: no page to go back to' },
    })
    .handle(async (ctx, { query }) => {
      const tenantId = resolvedTenant(ctx).id;
      await finishInBrowser(
        ctx,
        async () => landSignIn(deps, ctx, await mail.verify(tenantId, query.token)),
        () => mail.returnTo(tenantId, query.token),
      );
    });

  route
    .get('/identities', 'The identities the signed-in trader signs in with (providers, emails, wallets)', traderRead)
    .answers({ '200': { description: 'Oldest first', schema: identityList } })
    .handle(async (ctx) => {
      ctx.body = { identities: (await identitiesOf(deps, callerOf(ctx))).map(toIdentityView) };
    });

  route
    .post(
      '/identities/wallet',
      'Link a wallet to the signed-in trader by a SIWE message (nonce from POST /api/auth/siwe/nonce)',
      traderWrite,
    )
    .input({ body: siweVerifyBody })
    .answers({
      '201': {
        description:
          'Linked (an already linked wallet of this trader is answered as it is); the wallet then signs in with SIWE as this trader. 400 siwe_message_invalid; 401 siwe_domain_mismatch, siwe_nonce_invalid, siwe_signature_invalid; 409 identity_linked_elsewhere',
        schema: linkedIdentity,
      },
    })
    .handle(async (ctx, { body }) => {
      const caller = callerOf(ctx);
      const origins = await signinOrigins(deps, caller.tenantId, deps.baseUrl());
      ctx.status = 201;
      ctx.body = toIdentityView(await linkWallet(deps, caller, origins, body));
    });

  route
    .delete(
      '/identities/:identityId',
      'Remove one of the signed-in trader’s identities; sessions opened with it end',
      traderWrite,
    )
    .input({ params: identityParams })
    .answers({
      '200': {
        description: 'Removed. 404 identity_not_found; 409 identity_last (the only way this trader signs in)',
        schema: okResponse,
      },
    })
    .handle(async (ctx, { params }) => {
      await removeIdentity(deps, callerOf(ctx), params.identityId);
      ctx.body = { ok: true };
    });

  return router;
}

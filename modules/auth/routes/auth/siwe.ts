/**
 * `/api/auth/siwe/*`: browser sign-in with Ethereum (docs/api.md §5.1; EIP-4361) → the `service_session` cookie.
 * Tenant-gated (docs/api.md §5.6): nonces and sessions belong to the tenant the request resolved to.
 *
 * - `POST /api/auth/siwe/nonce`  → `{ nonce, expiresAt }` (single use, 5 min).
 * - `POST /api/auth/siwe/verify` `{ message, signature }` → `{ sessionId, walletAddress, accountId, tier, expiresAt }`
 *   and `Set-Cookie: service_session=…; HttpOnly; SameSite=Lax; Path=/` (+ `Secure` over https), 24 h.
 *   Errors: modules/auth/commands/siwe.ts.
 * - `POST /api/auth/siwe/logout` → `{ ok: true }`, ends the cookie's session and clears the cookie.
 * Which trader a wallet represents, and what a session may do: api/auth/session.ts.
 */
import Router from '@koa/router';
import { issueNonce } from '../../../../api/auth/session.js';
import { SESSION_SET_COOKIE, endSession, setSessionCookie } from '../../../../api/auth/session-cookie.js';
import { signInWithEthereum } from '../../commands/siwe.js';
import type { ApiDeps, ApiState } from '../../../../api/context.js';
import { resolvedTenant } from '../../../../api/middleware/tenant.js';
import type { OpenApiRegistry } from '../../../../api/openapi.js';
import { routesOf } from '../../../../api/route.js';
import { logoutResponse, sessionView, siweNonceResponse, siweVerifyBody } from './siwe.schemas.js';

/**
 * The router of the endpoints listed in this module's header; each one is also registered in `openapi`.
 * `deps.baseUrl()` is the API's public base URL (`PUBLIC_BASE_URL`, default `http://HOST:PORT`): a SIWE
 * message may name its origin besides the tenant's registered ones (modules/auth/commands/siwe.ts).
 */
export function siweRoutes(deps: ApiDeps & { baseUrl: () => string }, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/auth/siwe' });
  const tags = ['auth'];

  const route = routesOf(router, openapi, { tags });

  route
    .post('/nonce', 'A single-use SIWE nonce (5 minutes) for this tenant')
    .answers({ '200': { description: 'The nonce', schema: siweNonceResponse } })
    .handle(async (ctx) => {
      const { nonce, expiresAt } = await issueNonce(deps.orm, resolvedTenant(ctx).id);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { nonce, expiresAt: expiresAt.toISOString() };
    });

  route
    .post(
      '/verify',
      'Sign in with Ethereum: verify the signed EIP-4361 message and set the service_session cookie (24 h)',
    )
    .input({ body: siweVerifyBody })
    .answers({
      '200': {
        description:
          'Signed in; the cookie acts as the trader whose account has an active Hyperliquid, Aster or Polymarket agent owned by this wallet (a Kalshi agent links no wallet). 400 siwe_message_invalid; 401 siwe_domain_mismatch (the message is not for a registered origin of this tenant nor the API’s public URL), siwe_nonce_invalid, siwe_signature_invalid; 403 wallet_not_linked',
        schema: sessionView,
        headers: { 'Set-Cookie': SESSION_SET_COOKIE },
      },
    })
    .handle(async (ctx, { body }) => {
      const { token, view } = await signInWithEthereum(deps, resolvedTenant(ctx).id, deps.baseUrl(), body);
      setSessionCookie(ctx, token);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = view;
    });

  route
    .post('/logout', "End the cookie's session and clear the cookie (no session: still ok)")
    .answers({ '200': { description: 'Signed out', schema: logoutResponse } })
    .handle(async (ctx) => {
      await endSession(deps.orm, ctx);
      ctx.body = { ok: true };
    });

  return router;
}

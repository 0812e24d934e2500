/**
 * `/api/auth/api-token`, `/api/auth/api-token/revoke`, `/api/auth/bootstrap` (docs/api.md §4.1, §5.1-5.2,
 * §6.2): bearer mint and revoke, WebSocket bootstrap (modules/auth/commands/tokens.ts). Sign-in with
 * Ethereum: auth/siwe.ts.
 */
import Router from '@koa/router';
import {
  bootstrapHandshakes,
  credentialBySecret,
  mintApiToken,
  revokeApiToken,
  type HandshakeOwner,
} from '../../commands/tokens.js';
import type { ApiDeps, ApiState } from '../../../../api/context.js';
import { callerOf } from '../../../../api/middleware/auth.js';
import { assertCallerTenantActive } from '../../../../api/middleware/tenant.js';
import type { OpenApiRegistry } from '../../../../api/openapi.js';
import { routesOf } from '../../../../api/route.js';
import {
  apiTokenBody,
  apiTokenResponse,
  bootstrapBody,
  bootstrapResponse,
  revokeBody,
  revokeResponse,
} from './auth.schemas.js';

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function authRoutes(
  deps: ApiDeps,
  openapi: OpenApiRegistry,
  jwtKey: Uint8Array,
  wsBaseUrl: () => string,
): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/auth' });
  const tags = ['auth'];

  const route = routesOf(router, openapi, { tags });

  route
    .post('/api-token', 'Mint a 24-hour bearer JWT from an API key and secret')
    .input({ body: apiTokenBody })
    .answers({ '200': { description: 'The bearer', schema: apiTokenResponse } })
    .handle(async (ctx, { body }) => {
      ctx.body = await mintApiToken(deps, jwtKey, body, ctx.ip);
    });

  route
    .post('/api-token/revoke', 'Revoke one bearer token (docs/api.md §5.2); reads by it stop at once')
    .input({ body: revokeBody })
    .answers({ '200': { description: 'Revoked (idempotent)', schema: revokeResponse } })
    .handle(async (ctx, { body }) => {
      await revokeApiToken(deps, jwtKey, body.token);
      ctx.body = { ok: true, revoked: true };
    });

  route
    .post('/bootstrap', 'Handshake tokens for /ws/risk and /ws/quotes: single use, 60 s; 10 per minute per API key')
    .input({ body: bootstrapBody })
    .answers({ '200': { description: 'Handshake tokens', schema: bootstrapResponse } })
    .handle(async (ctx, { body }) => {
      // With a key and secret in the body the credential behind them; else the authenticated caller.
      let owner: HandshakeOwner;
      if (body.apiKey || body.apiSecret) {
        const cred = await credentialBySecret(deps, body.apiKey ?? '', body.apiSecret ?? '', ctx.ip);
        await assertCallerTenantActive(deps.auth.tenants, cred.tenantId, ctx.state.tenant);
        owner = { credentialId: cred.id, tenantId: cred.tenantId, accountId: cred.accountId ?? null };
      } else {
        const { credentialId, tenantId, accountId } = callerOf(ctx);
        owner = { credentialId, tenantId, accountId };
      }
      ctx.body = await bootstrapHandshakes(deps, owner, wsBaseUrl());
    });

  return router;
}

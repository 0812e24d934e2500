/**
 * `/api/auth/*` (docs/api.md §4.1, §5.1-5.2, §6.2): bearer mint and revoke, WebSocket bootstrap.
 */
import Router from '@koa/router';
import { ApiError } from '../../domain/errors.js';
import { Credential, HandshakeToken, RevokedToken, Tenant } from '../../db/entities.js';
import { platformEm } from '../../db/orm.js';
import { mintBearer, verifyBearer } from '../auth/bearer.js';
import { opaqueToken, tokenHash, verifySecret } from '../auth/secrets.js';
import { callerOf } from '../middleware/auth.js';
import type { ApiDeps, ApiState } from '../context.js';
import type { OpenApiRegistry } from '../openapi.js';
import { endpoint } from '../route.js';
import { apiTokenBody, apiTokenResponse, bootstrapBody, bootstrapResponse, revokeBody, revokeResponse } from './auth.schemas.js';

/** Handshake token lifetime: 60 s, single use (docs/api.md §8). */
export const HANDSHAKE_TTL_MS = 60_000;
/** Bootstrap hard cap per API key (docs/api.md §8). */
export const BOOTSTRAP_PER_MINUTE = 10;

export function authRoutes(deps: ApiDeps, openapi: OpenApiRegistry, jwtKey: Uint8Array, wsBaseUrl: () => string): Router<ApiState> {
  const router = new Router<ApiState>();
  const { orm } = deps;

  /** Finds a live credential by key and secret. @throws 401 invalid_credentials / credential_revoked. */
  async function credentialBySecret(apiKey: string, apiSecret: string) {
    const cred = await platformEm(orm).findOne(Credential, { apiKey }, { filters: false });
    if (!cred || !(await verifySecret(apiSecret, cred.secretHash))) throw new ApiError('invalid_credentials', 'unknown apiKey or wrong apiSecret');
    if (cred.revokedAt) throw new ApiError('credential_revoked', 'this credential was revoked');
    return cred;
  }

  endpoint(
    router,
    openapi,
    {
      method: 'post',
      path: '/api/auth/api-token',
      summary: 'Mint a 24-hour bearer JWT from an API key and secret',
      tags: ['auth'],
      schemas: { body: apiTokenBody },
      responses: { '200': { description: 'The bearer', schema: apiTokenResponse } },
    },
    async (ctx, { body }) => {
      const cred = await credentialBySecret(body.apiKey, body.apiSecret);
      const tenant = await platformEm(orm).findOneOrFail(Tenant, { id: cred.tenantId });
      if (tenant.suspended) throw new ApiError('tenant_suspended', `tenant ${tenant.slug} is suspended`);
      const { token, expiresAt } = await mintBearer(jwtKey, cred.id, cred.tenantId, { aud: cred.audience, tier: cred.tier });
      ctx.body = {
        token,
        tokenType: 'Bearer',
        tier: cred.tier ?? null,
        expiresAt: expiresAt.toISOString(),
        audience: cred.audience,
        tenantId: cred.tenantId,
        accountId: cred.accountId ?? null,
        scopes: cred.scopes,
      };
    },
  );

  endpoint(
    router,
    openapi,
    {
      method: 'post',
      path: '/api/auth/api-token/revoke',
      summary: 'Revoke one bearer token (docs/api.md §5.2); reads by it stop at once',
      tags: ['auth'],
      schemas: { body: revokeBody },
      responses: { '200': { description: 'Revoked (idempotent)', schema: revokeResponse } },
    },
    async (ctx, { body }) => {
      const claims = await verifyBearer(jwtKey, body.token);
      const em = platformEm(orm);
      await em.upsert(RevokedToken, { jti: claims.jti, expiresAt: new Date(claims.exp * 1000) });
      ctx.body = { ok: true, revoked: true };
    },
  );

  endpoint(
    router,
    openapi,
    {
      method: 'post',
      path: '/api/auth/bootstrap',
      summary: 'Handshake tokens for /ws/risk and /ws/quotes: single use, 60 s; 10 per minute per API key',
      tags: ['auth'],
      schemas: { body: bootstrapBody },
      responses: { '200': { description: 'Handshake tokens', schema: bootstrapResponse } },
    },
    async (ctx, { body }) => {
      let credentialId: string;
      let tenantId: string;
      let accountId: string | null;
      if (body.apiKey || body.apiSecret) {
        const cred = await credentialBySecret(body.apiKey ?? '', body.apiSecret ?? '');
        ({ id: credentialId, tenantId } = cred);
        accountId = cred.accountId ?? null;
      } else {
        const caller = callerOf(ctx);
        ({ credentialId, tenantId, accountId } = caller);
      }
      const now = Date.now();
      const expiresAt = new Date(now + HANDSHAKE_TTL_MS);
      const risk = opaqueToken();
      const quotes = opaqueToken();
      await platformEm(orm).transactional(async (em) => {
        const conn = em.getConnection();
        await conn.execute('select pg_advisory_xact_lock(hashtext(?))', [`bootstrap:${credentialId}`], 'all', em.getTransactionContext());
        const recent = await conn.execute<{ created_at: Date }[]>(
          `select created_at from handshake_tokens where credential_id = ? and channel = 'risk' and created_at > now() - interval '60 seconds' order by created_at asc`,
          [credentialId],
          'all',
          em.getTransactionContext(),
        );
        if (recent.length >= BOOTSTRAP_PER_MINUTE) {
          const retryAfter = Math.max(1, Math.ceil((new Date(recent[0].created_at).getTime() + 60_000 - now) / 1000));
          throw new ApiError('rate_limited', `at most ${BOOTSTRAP_PER_MINUTE} bootstraps per minute per API key`, {}, { 'Retry-After': String(retryAfter) });
        }
        for (const [token, channel] of [[risk, 'risk'], [quotes, 'quotes']] as const) {
          em.create(HandshakeToken, { tokenHash: tokenHash(token), tenantId, credentialId, accountId, channel, expiresAt, consumedAt: null }, { partial: true });
        }
      });
      const ws = wsBaseUrl();
      ctx.body = {
        success: true,
        data: {
          riskEngineWss: { endpoint: `${ws}/ws/risk`, token: risk, expiresAt: expiresAt.toISOString() },
          quoteServiceWss: { endpoint: `${ws}/ws/quotes`, token: quotes, expiresAt: expiresAt.toISOString() },
        },
      };
    },
  );

  return router;
}

/**
 * Authentication and gates (spec §5.2-5.5).
 * `authenticate` reads a bearer: signature, expiry and the per-token revocation list, then the
 * credential row (its tenant must equal the pinned `tid`, else `403 tenant_mismatch`).
 * `gate(rule)` then applies the audience, tier and scope tables of domain/gates.ts; writes also
 * refuse a revoked credential (`401 credential_revoked`), reads do not (spec §5.2).
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { ApiError } from '../../domain/errors.js';
import { checkAudience, checkScope, checkTier, type Audience, type Scope, type Tier } from '../../domain/gates.js';
import { Credential, RevokedToken } from '../../db/entities.js';
import { platformEm } from '../../db/orm.js';
import { verifyBearer } from '../auth/bearer.js';
import type { ApiMiddleware, Caller } from '../context.js';

/** Loads the caller behind a bearer token string. @throws ApiError 401/403 codes above. */
export async function callerFromBearer(orm: MikroORM, key: Uint8Array, token: string): Promise<Caller> {
  const claims = await verifyBearer(key, token);
  const em = platformEm(orm);
  if (await em.findOne(RevokedToken, { jti: claims.jti })) throw new ApiError('token_revoked', 'this bearer token was revoked');
  const cred = await em.findOne(Credential, { id: claims.sub }, { filters: false });
  if (!cred) throw new ApiError('unauthorized', 'credential no longer exists');
  if (cred.tenantId !== claims.tid) throw new ApiError('tenant_mismatch', 'token tenant does not match its credential');
  return {
    credentialId: cred.id,
    tenantId: cred.tenantId,
    ownerId: cred.ownerId,
    audience: cred.audience as Audience,
    tier: cred.tier as Tier | null,
    scopes: cred.scopes,
    accountId: cred.accountId ?? null,
    signerAddress: cred.signerAddress ?? null,
    credentialRevoked: cred.revokedAt != null,
    jti: claims.jti,
    tokenExpiresAt: new Date(claims.exp * 1000),
  };
}

/** Sets `ctx.state.caller` when an `Authorization: Bearer` header is present. */
export function authenticate(orm: MikroORM, key: Uint8Array): ApiMiddleware {
  return async (ctx, next) => {
    const header = ctx.get('authorization');
    if (header) {
      const m = /^Bearer\s+(\S+)$/i.exec(header);
      if (!m) throw new ApiError('unauthorized', 'Authorization must be `Bearer <token>`');
      ctx.state.caller = await callerFromBearer(orm, key, m[1]);
    }
    await next();
  };
}

/** What a route requires of its caller. */
export interface GateRule {
  audience: Audience;
  /** Minimum trader tier (trader routes only). */
  tier?: Tier;
  /** Operator scope (operator routes only). */
  scope?: Scope;
  /** A write: refused for a revoked credential. */
  write?: boolean;
}

/** The gate for one route. @throws ApiError 401 unauthorized/credential_revoked, 403 per the tables. */
export function gate(rule: GateRule): ApiMiddleware {
  return async (ctx, next) => {
    const caller = ctx.state.caller;
    if (!caller) throw new ApiError('unauthorized', 'send Authorization: Bearer <token> (POST /api/auth/api-token)');
    const refusal =
      checkAudience(caller.audience, rule.audience) ??
      (rule.tier ? checkTier(caller.tier ?? 'readonly', rule.tier) : null) ??
      (rule.scope ? checkScope(caller.scopes, rule.scope) : null);
    if (refusal) throw refusal;
    if (rule.write && caller.credentialRevoked) throw new ApiError('credential_revoked', 'this credential was revoked');
    await next();
  };
}

/** The authenticated caller of a gated route. */
export function callerOf(ctx: { state: { caller?: Caller } }): Caller {
  if (!ctx.state.caller) throw new ApiError('unauthorized');
  return ctx.state.caller;
}

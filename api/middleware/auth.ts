/**
 * Authentication and gates (docs/api.md §5.2-5.5).
 * `authenticate` reads a bearer: signature, expiry and the per-token revocation list, then the
 * credential row (its tenant must equal the pinned `tid`, else `403 tenant_mismatch`; its secret version
 * the bearer's `sv`, else `401 token_revoked`: minted before a rotation); the caller's
 * own tenant must be active even when the request names another one (`410 tenant_suspended`).
 * `gate(rule)` then applies the audience, tier and scope tables of domain/gates.ts; writes
 * and operator scope gates refuse a revoked credential (`401 credential_revoked`), trader reads do
 * not (docs/api.md §5.2). The tenant, the credential row and the revoked token list are read through the
 * process's authentication cache (api/auth/auth-cache.ts), kept current by NOTIFY.
 * Without a bearer, a valid `service_session` cookie (docs/api.md §5.1, api/auth/session.ts) makes the
 * caller the trader its wallet is linked to (`caller.session` set). Such a caller is refused on
 * {@link BEARER_ONLY} paths (`401 bearer_required`) and on operator routes
 * (`403 wrong_credential_audience`, expected `operator`, actual `trader`).
 */
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { ApiError } from '../../domain/errors.js';
import { checkAudience, checkScope, checkTier, type Audience, type Scope, type Tier } from '../../domain/gates.js';
import { scoped } from '../../db/orm.js';
import { verifyBearer } from '../auth/bearer.js';
import { SESSION_COOKIE, callerFromSession } from '../auth/session.js';
import type { ApiMiddleware, Caller } from '../context.js';
import type { AuthCache } from '../auth/auth-cache.js';
import { assertCallerTenantActive } from './tenant.js';

/**
 * Loads the caller behind a bearer token string: signature and expiry, then the revoked list and the
 * credential row through `auth` (api/auth/auth-cache.ts). @throws ApiError 401/403 codes above.
 */
export async function callerFromBearer(auth: AuthCache, key: Uint8Array, token: string): Promise<Caller> {
  const claims = await verifyBearer(key, token);
  const [revoked, cred] = await Promise.all([auth.isRevoked(claims.jti), auth.credential(claims.sub)]);
  if (revoked) throw new ApiError('token_revoked', 'this bearer token was revoked');
  if (!cred) throw new ApiError('unauthorized', 'credential no longer exists');
  if (cred.tenantId !== claims.tid) throw new ApiError('tenant_mismatch', 'token tenant does not match its credential');
  if (claims.sv !== (cred.secretVersion ?? 1))
    throw new ApiError('token_revoked', "this bearer was minted before the credential's secret was rotated");
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

/** Paths a cookie session may not call (docs/api.md §4.4, §7.2 `bearer_required`). */
export const BEARER_ONLY: readonly RegExp[] = [/^\/api\/v1\/oms\/intents\/[^/]+\/sign-result$/];

/**
 * Sets `ctx.state.caller` from an `Authorization: Bearer` header, else from a valid
 * `service_session` cookie (a stale cookie is ignored). @throws ApiError `401 bearer_required` for a
 * cookie session on a {@link BEARER_ONLY} path, `410 tenant_suspended` when the caller's own tenant
 * is suspended (api/middleware/tenant.ts `assertCallerTenantActive`), and as {@link callerFromBearer}.
 */
export function authenticate(orm: MikroORM, auth: AuthCache, key: Uint8Array): ApiMiddleware {
  return async (ctx, next) => {
    const header = ctx.get('authorization');
    const cookie = header ? undefined : ctx.cookies.get(SESSION_COOKIE);
    if (header) {
      const m = /^Bearer\s+(\S+)$/i.exec(header);
      if (!m) throw new ApiError('unauthorized', 'Authorization must be `Bearer <token>`');
      ctx.state.caller = await callerFromBearer(auth, key, m[1]);
    } else if (cookie) {
      ctx.state.caller = (await callerFromSession(orm, cookie, ctx.state.tenant?.id)) ?? undefined;
      if (ctx.state.caller && BEARER_ONLY.some((r) => r.test(ctx.path)))
        throw new ApiError(
          'bearer_required',
          'this route needs Authorization: Bearer <token>; a cookie session cannot call it',
        );
    }
    if (ctx.state.caller) await assertCallerTenantActive(auth.tenants, ctx.state.caller.tenantId, ctx.state.tenant);
    await next();
  };
}

/** What a route requires of its caller. */
export interface GateRule {
  /** `any`: every caller, trader or operator (e.g. the tenant reads). */
  audience: Audience | 'any';
  /** Minimum trader tier (trader routes only). */
  tier?: Tier;
  /** Operator scope (operator routes only). */
  scope?: Scope;
  /** A write: refused for a revoked credential. */
  write?: boolean;
}

/** The rule of every gate {@link gate} made: the access the route table shows (api/route.ts, `GET /api/v1/discovery`). */
const GATE_RULES = new WeakMap<ApiMiddleware, GateRule>();

/** The rule the gate `mw` was made with by {@link gate}, or undefined for any other middleware. */
export function gateRule(mw: ApiMiddleware): GateRule | undefined {
  return GATE_RULES.get(mw);
}

/**
 * The gate for one route; `also`, a further check of the caller run once the rule passed (e.g. a wallet
 * session). @throws ApiError 401 unauthorized/credential_revoked, 403 per the tables.
 */
export function gate(rule: GateRule, also?: ApiMiddleware): ApiMiddleware {
  const mw: ApiMiddleware = async (ctx, next) => {
    const caller = ctx.state.caller;
    if (!caller)
      throw new ApiError(
        'unauthorized',
        'send Authorization: Bearer <token> (POST /api/auth/api-token), or sign in (POST /api/auth/siwe/verify)',
      );
    if (caller.session && rule.audience === 'operator')
      throw new ApiError(
        'wrong_credential_audience',
        'a cookie session acts as a trader; the operator surface needs an operator bearer',
        { expected: 'operator', actual: 'trader' },
      );
    const refusal =
      (rule.audience === 'any' ? null : checkAudience(caller.audience, rule.audience)) ??
      (rule.tier ? checkTier(caller.tier ?? 'readonly', rule.tier) : null) ??
      (rule.scope ? checkScope(caller.scopes, rule.scope) : null);
    if (refusal) throw refusal;
    // Writes, and every operator scope gate (docs/api.md §5.2), refuse a revoked credential.
    if ((rule.write || rule.scope) && caller.credentialRevoked)
      throw new ApiError('credential_revoked', 'this credential was revoked');
    await (also ? also(ctx, next) : next());
  };
  GATE_RULES.set(mw, rule);
  return mw;
}

/** The authenticated caller of a gated route. */
export function callerOf(ctx: { state: { caller?: Caller } }): Caller {
  if (!ctx.state.caller) throw new ApiError('unauthorized');
  return ctx.state.caller;
}

/** A fresh unit of work in the caller's tenant (the tenant filter on). @throws ApiError 401 unauthorized without a caller. */
export function callerEm(orm: MikroORM, ctx: { state: { caller?: Caller } }): EntityManager {
  return scoped(orm, callerOf(ctx).tenantId);
}

/**
 * The gates of an operator surface guarded by one scope: `read` for its reads, `write` for its writes
 * (refused for a revoked credential), and `requires`, the scope as the OpenAPI document names it.
 */
export function operatorAccess(scope: Scope): { read: ApiMiddleware; write: ApiMiddleware; requires: Scope } {
  return {
    read: gate({ audience: 'operator', scope }),
    write: gate({ audience: 'operator', scope, write: true }),
    requires: scope,
  };
}

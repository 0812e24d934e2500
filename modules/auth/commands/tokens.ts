/**
 * Bearer tokens and WebSocket handshake tokens (docs/api.md §4.1, §5.1-5.2, §6.2, §8): mint a 24-hour
 * bearer from an API key and secret, revoke one bearer, and bootstrap single-use handshake tokens
 * for /ws/risk and /ws/quotes.
 */
import { ApiError } from '../../../domain/errors.js';
import { opaqueToken, tokenHash, verifySecret } from '../../../domain/auth/secrets.js';
import { Credential, HandshakeToken, RevokedToken, Tenant } from '../../../db/entities.js';
import { platformEm } from '../../../db/orm.js';
import { mintBearer, verifyBearer } from '../../../api/auth/bearer.js';
import type { ApiDeps } from '../../../api/context.js';
import { reserveSecretCheck } from '../../../api/middleware/rate-limit.js';

/** Handshake token lifetime: 60 s, single use (docs/api.md §8). */
const HANDSHAKE_TTL_MS = 60_000;
/** Bootstrap hard cap per API key (docs/api.md §8). */
const BOOTSTRAP_PER_MINUTE = 10;

/**
 * Finds a live credential by key and secret, for a caller at client address `ip`. The secret's scrypt runs
 * only within the failed-check budget of the key and of the IP (api/middleware/rate-limit.ts
 * `reserveSecretCheck`), and is counted in `platform_auth_secret_checks_total` (api/ops/metrics.ts).
 * @throws ApiError `401 invalid_credentials`, `401 credential_revoked`, `429 rate_limited` (too many failed checks;
 *   `Retry-After`).
 */
export async function credentialBySecret(deps: ApiDeps, apiKey: string, apiSecret: string, ip: string) {
  const cred = await platformEm(deps.orm).findOne(Credential, { apiKey }, { filters: false });
  if (!cred) throw new ApiError('invalid_credentials', 'unknown apiKey or wrong apiSecret');
  const settle = await reserveSecretCheck(deps, cred.id, ip);
  const ok = await verifySecret(apiSecret, cred.secretHash);
  deps.metrics.secretChecks.inc({ outcome: ok ? 'ok' : 'failed' });
  await settle(ok);
  if (!ok) throw new ApiError('invalid_credentials', 'unknown apiKey or wrong apiSecret');
  if (cred.revokedAt) throw new ApiError('credential_revoked', 'this credential was revoked');
  return cred;
}

/**
 * A bearer JWT for the credential behind `apiKey`/`apiSecret`, signed with `jwtKey` (apiTokenResponse);
 * `ip` is the caller's client address. @throws ApiError as {@link credentialBySecret}, `410 tenant_suspended`.
 */
export async function mintApiToken(
  deps: ApiDeps,
  jwtKey: Uint8Array,
  body: { apiKey: string; apiSecret: string },
  ip: string,
) {
  const cred = await credentialBySecret(deps, body.apiKey, body.apiSecret, ip);
  const tenant = await platformEm(deps.orm).findOneOrFail(Tenant, { id: cred.tenantId });
  if (tenant.suspended) throw new ApiError('tenant_suspended', `tenant ${tenant.slug} is suspended`);
  const { token, expiresAt } = await mintBearer(jwtKey, cred.id, cred.tenantId, {
    aud: cred.audience,
    tier: cred.tier,
    sv: cred.secretVersion,
  });
  return {
    token,
    tokenType: 'Bearer',
    tier: cred.tier ?? null,
    expiresAt: expiresAt.toISOString(),
    audience: cred.audience,
    tenantId: cred.tenantId,
    accountId: cred.accountId ?? null,
    scopes: cred.scopes,
  };
}

/**
 * Revokes one bearer token until it expires (idempotent): refused at once by this api process, and by
 * every other within the NOTIFY `token_revoked` latency (api/auth/auth-cache.ts).
 * @throws ApiError as verifyBearer (api/auth/bearer.ts).
 */
export async function revokeApiToken(deps: ApiDeps, jwtKey: Uint8Array, token: string): Promise<void> {
  const claims = await verifyBearer(jwtKey, token);
  const expiresAt = new Date(claims.exp * 1000);
  await platformEm(deps.orm).upsert(RevokedToken, { jti: claims.jti, expiresAt });
  deps.auth.revoked(claims.jti, expiresAt);
}

/** Who a handshake token acts for. */
export interface HandshakeOwner {
  credentialId: string;
  tenantId: string;
  accountId: string | null;
}

/**
 * Issues a risk and a quotes handshake token for `owner` (60 s, single use), at most
 * {@link BOOTSTRAP_PER_MINUTE} per credential per minute; answers the bootstrap body with the
 * socket endpoints under `wsBaseUrl`. A credential revoked by then gets none (a cookie session's
 * `wallet:` id has no credential row; its session was checked by authentication).
 * @throws ApiError `401 credential_revoked`, `429 rate_limited` with `Retry-After` and `retryAfter` (s).
 */
export async function bootstrapHandshakes(deps: ApiDeps, owner: HandshakeOwner, wsBaseUrl: string) {
  const { credentialId, tenantId, accountId } = owner;
  const now = Date.now();
  const expiresAt = new Date(now + HANDSHAKE_TTL_MS);
  const risk = opaqueToken();
  const quotes = opaqueToken();
  await platformEm(deps.orm).transactional(async (em) => {
    const conn = em.getConnection();
    await conn.execute(
      'select pg_advisory_xact_lock(hashtext(?))',
      [`bootstrap:${credentialId}`],
      'all',
      em.getTransactionContext(),
    );
    if (!credentialId.startsWith('wallet:')) {
      const [cred] = await conn.execute<{ revoked_at: Date | null }[]>(
        'select revoked_at from credentials where id = ?',
        [credentialId],
        'all',
        em.getTransactionContext(),
      );
      if (!cred || cred.revoked_at) throw new ApiError('credential_revoked', 'this credential was revoked');
    }
    const recent = await conn.execute<{ created_at: Date }[]>(
      `select created_at from handshake_tokens where credential_id = ? and channel = 'risk' and created_at > now() - interval '60 seconds' order by created_at asc`,
      [credentialId],
      'all',
      em.getTransactionContext(),
    );
    if (recent.length >= BOOTSTRAP_PER_MINUTE) {
      const retryAfter = Math.max(1, Math.ceil((new Date(recent[0].created_at).getTime() + 60_000 - now) / 1000));
      throw new ApiError(
        'rate_limited',
        `at most ${BOOTSTRAP_PER_MINUTE} bootstraps per minute per API key`,
        { retryAfter },
        { 'Retry-After': String(retryAfter) },
      );
    }
    for (const [token, channel] of [
      [risk, 'risk'],
      [quotes, 'quotes'],
    ] as const) {
      em.create(
        HandshakeToken,
        { tokenHash: tokenHash(token), tenantId, credentialId, accountId, channel, expiresAt, consumedAt: null },
        { partial: true },
      );
    }
  });
  return {
    success: true,
    data: {
      riskEngineWss: { endpoint: `${wsBaseUrl}/ws/risk`, token: risk, expiresAt: expiresAt.toISOString() },
      quoteServiceWss: { endpoint: `${wsBaseUrl}/ws/quotes`, token: quotes, expiresAt: expiresAt.toISOString() },
    },
  };
}

/**
 * Bearer JWTs (docs/api.md §2.2, §5.1): HS256 via jose, 24 h, claims pin the credential (`sub`), its
 * tenant (`tid`) and the version of its secret (`sv`, refused once rotated), with the audience and tier at
 * mint time for display only (gates re-read the row).
 */
import { SignJWT, jwtVerify, errors } from 'jose';
import { randomUUID } from 'node:crypto';
import { ApiError } from '../../domain/errors.js';
import { BoundedMap } from '../../domain/bounded-map.js';

/** Bearer lifetime: 24 hours (docs/api.md §8). */
export const BEARER_TTL_MS = 24 * 60 * 60 * 1000;
const ISSUER = 'multivenue-platform';

/** The claims this API puts in a bearer. */
export interface BearerClaims {
  sub: string;
  tid: string;
  jti: string;
  exp: number;
  /** The credential's secret version at mint (docs/api.md §5.2 rotation); 1 for a bearer minted before versions existed. */
  sv: number;
}

/** Signs a bearer for a credential; returns the token, its id and expiry. */
export async function mintBearer(
  key: Uint8Array,
  credentialId: string,
  tenantId: string,
  extra: Record<string, unknown>,
) {
  const jti = randomUUID();
  const expiresAt = new Date(Date.now() + BEARER_TTL_MS);
  const token = await new SignJWT({ tid: tenantId, ...extra })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(credentialId)
    .setJti(jti)
    .setIssuer(ISSUER)
    .setIssuedAt()
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .sign(key);
  return { token, jti, expiresAt };
}

/** Tokens kept verified per signing key (a bearer is sent on every request of a session: verify it once). */
const VERIFIED_MAX = 10_000;
const verified = new WeakMap<Uint8Array, BoundedMap<BearerClaims>>();

/**
 * Verifies signature, issuer and expiry. A token that verified under `key` before is answered from
 * memory (at most {@link VERIFIED_MAX} per key, oldest dropped first) until it expires; revocation is
 * checked by the caller on every request (api/middleware/auth.ts).
 * @throws ApiError `401 token_expired` or `401 unauthorized`.
 */
export async function verifyBearer(key: Uint8Array, token: string): Promise<BearerClaims> {
  const known = verified.get(key) ?? verified.set(key, new BoundedMap(VERIFIED_MAX)).get(key)!;
  const hit = known.get(token);
  if (hit) return hit.value;
  const claims = await verifyBearerSignature(key, token);
  known.set(token, claims, claims.exp * 1000);
  return claims;
}

/** {@link verifyBearer} without memory: jose's HS256 check. @throws as verifyBearer. */
async function verifyBearerSignature(key: Uint8Array, token: string): Promise<BearerClaims> {
  try {
    const { payload } = await jwtVerify(token, key, { issuer: ISSUER, algorithms: ['HS256'] });
    if (
      typeof payload.sub !== 'string' ||
      typeof payload.tid !== 'string' ||
      typeof payload.jti !== 'string' ||
      typeof payload.exp !== 'number'
    ) {
      throw new ApiError('unauthorized', 'token is missing required claims');
    }
    const sv = typeof payload.sv === 'number' ? payload.sv : 1;
    return { sub: payload.sub, tid: payload.tid, jti: payload.jti, exp: payload.exp, sv };
  } catch (err) {
    if (err instanceof ApiError) throw err;
    if (err instanceof errors.JWTExpired)
      throw new ApiError('token_expired', 'bearer token has expired; mint a new one');
    throw new ApiError('unauthorized', 'bearer token is not valid');
  }
}

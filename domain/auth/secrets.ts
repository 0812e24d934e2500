/**
 * API key and secret minting and verification (docs/architecture.md "Secrets": scrypt hashes), for
 * the api (bearer mint, handshake tokens) and db/seed.ts (credentials).
 * Uses node:crypto's scrypt and timingSafeEqual; the secret itself is never stored.
 */
import { randomBytes, scrypt as scryptCb, timingSafeEqual, createHash } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCb) as (pw: string, salt: Buffer, len: number) => Promise<Buffer>;

/** A new credential's public id and its secret (shown once). */
export function mintKeyPair(audience: 'trader' | 'operator'): { apiKey: string; apiSecret: string } {
  const prefix = audience === 'trader' ? 'tk' : 'ok';
  return {
    apiKey: `${prefix}_${randomBytes(12).toString('base64url')}`,
    apiSecret: randomBytes(32).toString('base64url'),
  };
}

/** `scrypt$<saltHex>$<hashHex>` of a secret. */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(secret, salt, 32);
  return `scrypt$${salt.toString('hex')}$${hash.toString('hex')}`;
}

/** Constant-time check of a secret against a stored hash. */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [scheme, saltHex, hashHex] = stored.split('$');
  if (scheme !== 'scrypt' || !saltHex || !hashHex) return false;
  const expected = Buffer.from(hashHex, 'hex');
  const actual = await scrypt(secret, Buffer.from(saltHex, 'hex'), expected.length);
  return timingSafeEqual(actual, expected);
}

/** SHA-256 hex of an opaque token (handshake tokens are stored only as this). */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A new opaque random token (handshake tokens). */
export function opaqueToken(): string {
  return randomBytes(24).toString('base64url');
}

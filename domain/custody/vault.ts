/**
 * Encryption at rest of agent keys and venue API credentials (docs/api.md §1 custody, docs/architecture.md
 * "Secrets"): AES-256-GCM (Node `crypto`) under a configured key ring `AGENT_KEY_ENCRYPTION_KEYS`
 * (`<version>:<base64 32 bytes>`, comma-separated, the FIRST encrypts, every one decrypts), so a
 * key rotates by putting a new version first and re-encrypting (`npm run rotate-agent-keys`).
 *
 * Sealed form: `<version>.<iv b64>.<tag b64>.<ciphertext b64>`. The plaintext is never logged.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** A parsed key ring: versions in order, the first is current. */
export interface KeyRing {
  current: string;
  keys: Map<string, Buffer>;
}

/**
 * Parses `v2:<base64>,v1:<base64>`.
 * @throws Error when a key is not 32 bytes or a version repeats.
 */
export function parseKeyRing(spec: string): KeyRing {
  const keys = new Map<string, Buffer>();
  for (const entry of spec
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const at = entry.indexOf(':');
    const version = entry.slice(0, at);
    const key = Buffer.from(entry.slice(at + 1), 'base64');
    if (at <= 0 || !/^[A-Za-z0-9_-]+$/.test(version))
      throw new Error(
        `AGENT_KEY_ENCRYPTION_KEYS: entry "${version || entry.slice(0, 8)}…" is not <version>:<base64 key>`,
      );
    if (key.length !== 32)
      throw new Error(`AGENT_KEY_ENCRYPTION_KEYS: key ${version} is ${key.length} bytes, AES-256 needs 32`);
    if (keys.has(version)) throw new Error(`AGENT_KEY_ENCRYPTION_KEYS: version ${version} appears twice`);
    keys.set(version, key);
  }
  const current = keys.keys().next().value;
  if (!current) throw new Error('AGENT_KEY_ENCRYPTION_KEYS is empty');
  return { current, keys };
}

/** Encrypts `plaintext` under the current key; returns the sealed string. */
export function seal(ring: KeyRing, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', ring.keys.get(ring.current)!, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [ring.current, iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(
    '.',
  );
}

/**
 * Decrypts a sealed string with the key of its version.
 * @throws Error `unknown key version` (the ring lost that key) or a GCM authentication failure (tampered).
 */
export function open(ring: KeyRing, sealed: string): string {
  const [version, iv, tag, body] = sealed.split('.');
  const key = ring.keys.get(version);
  if (!key) throw new Error(`agent key sealed under unknown key version ${version}`);
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
}

/** The key version a sealed string was made with. */
export const sealedVersion = (sealed: string) => sealed.split('.')[0];

/**
 * Business ids of OMS writes (docs/api.md §8 `Idempotency-Key`): a retry after a 503 must reach the
 * same workflow instead of starting a second, so an id derives from the credential, the path and
 * the key when there is one; without a key it is random.
 */
import { createHash, randomBytes } from 'node:crypto';

/** A new random intent id: `int_` + 20 hex characters. */
export const newIntentId = () => `int_${randomBytes(10).toString('hex')}`;

/**
 * The id of a write: `<prefix>_` + 20 hex characters, the first 20 of sha256(credential, path, key)
 * when the request carries an `Idempotency-Key`, else random.
 */
export function writeId(
  prefix: 'int' | 'bat',
  ctx: { path: string; get(h: string): string },
  credentialId: string,
): string {
  const key = ctx.get('idempotency-key');
  if (!key) return `${prefix}_${randomBytes(10).toString('hex')}`;
  return `${prefix}_${createHash('sha256').update(`${credentialId}\n${ctx.path}\n${key}`).digest('hex').slice(0, 20)}`;
}

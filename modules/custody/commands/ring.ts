/** The custody key ring of this api process (docs/api.md §1 custody; domain/custody/vault.ts). */
import { ApiError } from '../../../domain/errors.js';
import { parseKeyRing, type KeyRing } from '../../../domain/custody/vault.js';
import type { ApiDeps } from '../../../api/context.js';

/** The ring that seals agent keys and webhook secrets (`AGENT_KEY_ENCRYPTION_KEYS`), or null when custody is off. */
export const custodyRing = (deps: ApiDeps): KeyRing | null =>
  deps.config.agentKeyEncryptionKeys ? parseKeyRing(deps.config.agentKeyEncryptionKeys) : null;

/**
 * `ring`, for a use that needs it; `use` says what fails without it (the detail reads
 * `AGENT_KEY_ENCRYPTION_KEYS is not set: <use>`).
 * @throws ApiError `503 custody_unconfigured` when `ring` is null.
 */
export function requireRing(ring: KeyRing | null, use: string): KeyRing {
  if (!ring) throw new ApiError('custody_unconfigured', `AGENT_KEY_ENCRYPTION_KEYS is not set: ${use}`);
  return ring;
}

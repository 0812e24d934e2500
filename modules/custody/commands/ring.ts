/** The custody key ring of this api process (docs/api.md §1 custody; domain/custody/vault.ts). */
import { parseKeyRing, type KeyRing } from '../../../domain/custody/vault.js';
import type { ApiDeps } from '../../../api/context.js';

/** The ring that seals agent keys and webhook secrets (`AGENT_KEY_ENCRYPTION_KEYS`), or null when custody is off. */
export const custodyRing = (deps: ApiDeps): KeyRing | null =>
  deps.config.agentKeyEncryptionKeys ? parseKeyRing(deps.config.agentKeyEncryptionKeys) : null;

/**
 * Re-encrypts every agent key and venue API credential that is not sealed under the key ring's
 * current version (domain/custody/vault.ts), one row at a time, each in its own update. Used by
 * `npm run rotate-agent-keys` after a new key version is put first in `AGENT_KEY_ENCRYPTION_KEYS`;
 * the old version must stay in the ring until this reports 0 remaining.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { AgentWallet } from '../../../db/entities.js';
import { platformEm } from '../../../db/orm.js';
import { open, seal, sealedVersion, type KeyRing } from '../../../domain/custody/vault.js';

/** What a rotation did: rows re-encrypted, and rows it could not open (their key version left the ring, or the ciphertext is damaged), left unchanged. */
export interface RotationReport {
  rotated: number;
  failed: { agentId: string; error: string }[];
}

/** Rotates every stale row; a row that cannot be opened is reported and left as it was. */
export async function rotateAgentKeys(orm: MikroORM, ring: KeyRing): Promise<RotationReport> {
  const em = platformEm(orm);
  const stale = await em.find(AgentWallet, { keyVersion: { $ne: ring.current } }, { filters: false });
  const report: RotationReport = { rotated: 0, failed: [] };
  for (const row of stale) {
    try {
      const key = seal(ring, open(ring, row.encryptedKey));
      const creds =
        row.encryptedApiCredentials && sealedVersion(row.encryptedApiCredentials) !== ring.current
          ? seal(ring, open(ring, row.encryptedApiCredentials))
          : row.encryptedApiCredentials;
      Object.assign(row, { encryptedKey: key, encryptedApiCredentials: creds, keyVersion: ring.current });
      await em.flush();
      report.rotated++;
    } catch (err) {
      report.failed.push({ agentId: row.id, error: (err as Error).message });
    }
  }
  return report;
}

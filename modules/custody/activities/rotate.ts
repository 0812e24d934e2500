/**
 * Re-encrypts every secret the platform keeps sealed (domain/custody/vault.ts) that is not sealed under the key
 * ring's current version: agent keys and their venue API credentials, webhook signing secrets and static API keys,
 * and sign-in providers' OpenID client secrets; one row at a time, each in its own update. Used by
 * `npm run rotate-agent-keys` after a new key version is put first in `AGENT_KEY_ENCRYPTION_KEYS`; the old
 * version must stay in the ring until this reports 0 remaining.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { AgentWallet } from '../../../db/entities.js';
import { platformEm } from '../../../db/orm.js';
import { open, seal, sealedVersion, type KeyRing } from '../../../domain/custody/vault.js';

/**
 * What a rotation did: rows re-encrypted, and rows it could not open (their key version left the ring, or the
 * ciphertext is damaged), left unchanged; `row` names the row as `<table>/<id>`.
 */
export interface RotationReport {
  rotated: number;
  failed: { row: string; error: string }[];
}

/** The tables whose sealed columns are rotated by SQL (agent wallets also carry their `key_version`: below). */
const SEALED_COLUMNS: { table: string; columns: string[] }[] = [
  { table: 'webhook_endpoints', columns: ['sealed_secret', 'sealed_api_key'] },
  { table: 'signin_providers', columns: ['sealed_client_secret'] },
];

/** Re-seals `sealed` under the ring's current version, or answers it unchanged when it already is (or is absent). */
const reseal = (ring: KeyRing, sealed: string | null | undefined) =>
  sealed && sealedVersion(sealed) !== ring.current ? seal(ring, open(ring, sealed)) : sealed;

/** Rotates the agent wallets not under the current version (`key_version`), keys and API credentials together. */
async function rotateAgentWallets(orm: MikroORM, ring: KeyRing, report: RotationReport) {
  const em = platformEm(orm);
  const stale = await em.find(AgentWallet, { keyVersion: { $ne: ring.current } }, { filters: false });
  for (const row of stale) {
    try {
      const key = reseal(ring, row.encryptedKey)!;
      const creds = reseal(ring, row.encryptedApiCredentials);
      Object.assign(row, { encryptedKey: key, encryptedApiCredentials: creds, keyVersion: ring.current });
      await em.flush();
      report.rotated++;
    } catch (err) {
      report.failed.push({ row: `agent_wallets/${row.id}`, error: (err as Error).message });
    }
  }
}

/** Rotates the rows of `table` with any of `columns` sealed under another version than the current one. */
async function rotateColumns(orm: MikroORM, ring: KeyRing, table: string, columns: string[], report: RotationReport) {
  const conn = platformEm(orm).getConnection();
  const stale = columns.map((c) => `(${c} is not null and split_part(${c}, '.', 1) <> ?)`).join(' or ');
  const rows = await conn.execute<Record<string, string | null>[]>(
    `select id, ${columns.join(', ')} from ${table} where ${stale}`,
    columns.map(() => ring.current),
  );
  for (const row of rows) {
    try {
      const values = columns.map((c) => reseal(ring, row[c]));
      await conn.execute(`update ${table} set ${columns.map((c) => `${c} = ?`).join(', ')} where id = ?`, [
        ...values,
        row.id,
      ]);
      report.rotated++;
    } catch (err) {
      report.failed.push({ row: `${table}/${row.id}`, error: (err as Error).message });
    }
  }
}

/** Rotates every stale sealed secret; a row that cannot be opened is reported and left as it was. */
export async function rotateSealedSecrets(orm: MikroORM, ring: KeyRing): Promise<RotationReport> {
  const report: RotationReport = { rotated: 0, failed: [] };
  await rotateAgentWallets(orm, ring, report);
  for (const { table, columns } of SEALED_COLUMNS) await rotateColumns(orm, ring, table, columns, report);
  return report;
}

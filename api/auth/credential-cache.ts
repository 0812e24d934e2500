/**
 * The operator scope cache (docs/api.md §5.2: "those scope gates are cached briefly"): an operator
 * credential's row — scopes, tier, revocation — is kept for `ttlMs` after it is read, so operator
 * requests do not read it every time, and dropped at once when it is revoked: PostgreSQL NOTIFYs
 * `credential_revoked` with the credential id on every revocation (trigger of migration PropFirm),
 * and every api process LISTENs. Trader credentials are never cached (their writes must see a
 * revocation at once even if a notification were lost).
 */
import pg from 'pg';
import type { Logger } from 'pino';

/** What the cache keeps of a credential (api/middleware/auth.ts builds the caller from it). */
export interface CachedCredential {
  id: string;
  tenantId: string;
  ownerId: string;
  audience: string;
  tier?: string | null;
  scopes: string[];
  accountId?: string | null;
  signerAddress?: string | null;
  revokedAt?: Date | null;
}

export interface CredentialCache {
  /** The cached row of `id`, or undefined when absent or older than the TTL. */
  get(id: string): CachedCredential | undefined;
  /** Keeps an operator credential's row (others are ignored). */
  put(row: CachedCredential): void;
  /** Drops `id` (revocation in this process). */
  drop(id: string): void;
  stop(): Promise<void>;
}

/** Starts the cache and its LISTEN connection. `ttlMs` 0 disables caching. */
export async function startCredentialCache(
  databaseUrl: string,
  ttlMs: number,
  logger: Logger,
): Promise<CredentialCache> {
  const rows = new Map<string, { row: CachedCredential; at: number }>();
  const listener = new pg.Client({ connectionString: databaseUrl });
  listener.on('error', (err) => {
    logger.error({ err }, 'credential cache connection failed; caching stops');
    ttlMs = 0;
    rows.clear();
  });
  await listener.connect();
  listener.on('notification', (n) => {
    if (n.channel === 'credential_revoked' && n.payload) rows.delete(n.payload);
  });
  await listener.query('LISTEN credential_revoked');
  return {
    get(id) {
      const hit = rows.get(id);
      if (!hit) return undefined;
      if (Date.now() - hit.at >= ttlMs) return void rows.delete(id);
      return hit.row;
    },
    put(row) {
      if (ttlMs > 0 && row.audience === 'operator' && !row.revokedAt) rows.set(row.id, { row, at: Date.now() });
    },
    drop(id) {
      rows.delete(id);
    },
    async stop() {
      rows.clear();
      await listener.end().catch(() => undefined);
    },
  };
}

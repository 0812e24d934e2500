/**
 * Exactly one publisher per symbol across all workers (docs/architecture.md): a PostgreSQL session advisory
 * lock per venue symbol, held on a dedicated connection for as long as the process publishes.
 * A worker that does not hold a symbol's lock retries every `retryMs` and takes over when the
 * holder's connection drops.
 */
import pg from 'pg';

export interface FeedLeadership {
  /** True while this process holds the symbol's publishing lock. */
  holds(key: string): boolean;
  stop(): Promise<void>;
}

/** Starts contending for the locks of `keys` (e.g. `paper BTC.PAPER`). */
export async function contendFeedLocks(databaseUrl: string, keys: string[], retryMs = 5_000): Promise<FeedLeadership> {
  const client = new pg.Client({ connectionString: databaseUrl });
  const held = new Set<string>();
  client.on('error', () => held.clear());
  await client.connect();
  const tryAll = async () => {
    for (const key of keys) {
      if (held.has(key)) continue;
      const { rows } = await client.query<{ ok: boolean }>('select pg_try_advisory_lock(hashtext($1)) as ok', [
        `markfeed:${key}`,
      ]);
      if (rows[0].ok) held.add(key);
    }
  };
  await tryAll();
  const timer = setInterval(() => void tryAll().catch(() => undefined), retryMs);
  return {
    holds: (key) => held.has(key),
    async stop() {
      clearInterval(timer);
      await client.end();
    },
  };
}

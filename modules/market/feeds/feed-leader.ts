/**
 * Exactly one publisher per symbol across all workers (docs/architecture.md): a PostgreSQL session advisory
 * lock per venue symbol, held on a dedicated connection for as long as the process publishes.
 * A worker that does not hold a symbol's lock retries every `retryMs` and takes over when the
 * holder's connection drops.
 *
 * The connection is a reconnecting one (db/notices.ts, no channels): when it is lost (PostgreSQL
 * restarted, the backend terminated) every lock is gone with it, so this process stops publishing at once,
 * and on reconnecting it contends for them again right away (and every `retryMs` after).
 */
import type { Logger } from 'pino';
import { startNotices, type NoticeQuery } from '../../../db/notices.js';

/** The `application_name` of the locks' connection (pg_stat_activity). */
export const FEED_LOCKS_APPLICATION = 'platform-feed-locks';

/** This process's share of the publishing locks, from {@link contendFeedLocks}. */
export interface FeedLeadership {
  /** True while this process holds the symbol's publishing lock (false while its connection is down). */
  holds(key: string): boolean;
  /** Stops contending and ends the connection (releasing every lock). */
  stop(): Promise<void>;
}

/**
 * Starts contending for the locks of `keys` (e.g. `paper BTC.PAPER`), every `retryMs` (ms) for those it
 * does not hold. Resolves after the first round (or after a first connection attempt that failed: it keeps
 * reconnecting with backoff and contends once connected); never rejects.
 */
export async function contendFeedLocks(
  databaseUrl: string,
  keys: string[],
  logger: Logger,
  retryMs = 5_000,
): Promise<FeedLeadership> {
  const held = new Set<string>();
  /** Bumped when the connection is lost: a round that straddles it keeps nothing. */
  let generation = 0;
  /** The generation a round runs in, if any (one round per connection at a time). */
  let trying: number | undefined;
  const tryAll = async (query: NoticeQuery) => {
    if (trying === generation) return;
    const started = (trying = generation);
    try {
      for (const key of keys) {
        if (held.has(key)) continue;
        const { rows } = await query<{ ok: boolean }>('select pg_try_advisory_lock(hashtext($1)) as ok', [
          `markfeed:${key}`,
        ]);
        if (generation !== started) return;
        if (rows[0].ok) held.add(key);
      }
    } finally {
      if (trying === started) trying = undefined;
    }
  };
  const connection = await startNotices(
    databaseUrl,
    [
      {
        channels: {},
        ready: (query) => tryAll(query),
        up: () => undefined,
        lost() {
          generation++;
          held.clear();
        },
      },
    ],
    logger,
    { application: FEED_LOCKS_APPLICATION, name: 'mark feed locks' },
  );
  const timer = setInterval(() => {
    if (connection.up()) void tryAll(connection.query).catch(() => undefined);
  }, retryMs);
  return {
    holds: (key) => held.has(key),
    async stop() {
      clearInterval(timer);
      await connection.stop();
    },
  };
}

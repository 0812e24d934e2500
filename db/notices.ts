/**
 * One PostgreSQL LISTEN connection per api process for its in-memory caches (docs/architecture.md
 * "Caches"): the authentication cache (api/auth/auth-cache.ts) and the account state cache
 * (db/account-state-cache.ts) each hand in a {@link NoticeSubscriber}, the channels it follows and
 * what to do when the connection is up or lost.
 *
 * A cache is only as good as its notifications, so the connection tells its subscribers at once when
 * it is lost (each stops serving from memory and forgets what it held) and reconnects with backoff;
 * after every (re)connect it LISTENs on every channel, lets each subscriber load what the
 * notifications will keep current (`ready`), and only then says it is up.
 */
import pg from 'pg';
import type { Logger } from 'pino';

/** A cache kept current by notifications. */
export interface NoticeSubscriber {
  /** Channel → handler of its payloads (`''` when the NOTIFY has none). */
  channels: Record<string, (payload: string) => void>;
  /**
   * Called after LISTEN on every channel, before the subscriber may serve from memory: a load of what the
   * notifications keep current (a change committed meanwhile is in the load or in a notification).
   * Rejecting counts as a lost connection.
   */
  ready?(): Promise<void>;
  /** The subscriber may serve from memory again (after `ready`). */
  up(): void;
  /** The connection is down (or stopping): stop serving from memory and forget what was held. */
  lost(): void;
}

/** The LISTEN connection. */
export interface Notices {
  /** Whether it LISTENs now (every subscriber is up). */
  up(): boolean;
  /**
   * Resolves once every notification committed before the call has been handled (one round trip on the
   * connection): for a caller that changed a row and must see it served from memory next.
   */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

/** The connection's `application_name` (pg_stat_activity). */
export const NOTICES_APPLICATION = 'platform-notices';
/** Reconnect backoff, ms. */
const RECONNECT_MS = { first: 500, max: 30_000 };

/**
 * Connects, LISTENs on every subscriber's channels and resolves once they are up, or once the first
 * attempt failed (the subscribers then start lost and the connection keeps retrying).
 */
export async function startNotices(
  databaseUrl: string,
  subscribers: NoticeSubscriber[],
  logger: Logger,
): Promise<Notices> {
  const handlers = new Map<string, ((payload: string) => void)[]>();
  for (const s of subscribers)
    for (const [channel, fn] of Object.entries(s.channels))
      handlers.set(channel, [...(handlers.get(channel) ?? []), fn]);
  let up = false;
  let stopped = false;
  let listener: pg.Client | undefined;
  let backoff = RECONNECT_MS.first;
  let reconnectTimer: NodeJS.Timeout | undefined;

  const loseAll = () => {
    up = false;
    for (const s of subscribers) s.lost();
  };
  const schedule = () => {
    clearTimeout(reconnectTimer);
    reconnectTimer = setTimeout(() => void connect(), backoff);
    backoff = Math.min(backoff * 2, RECONNECT_MS.max);
  };
  const connect = async () => {
    const client = new pg.Client({ connectionString: databaseUrl, application_name: NOTICES_APPLICATION });
    client.on('notification', (n) => handlers.get(n.channel)?.forEach((fn) => fn(n.payload ?? '')));
    const lost = (err?: Error) => {
      if (listener !== client) return;
      listener = undefined;
      loseAll();
      if (!stopped) {
        logger.error({ err }, 'notices connection lost; caches read PostgreSQL until it reconnects');
        schedule();
      }
    };
    client.on('error', lost);
    client.on('end', () => lost());
    try {
      await client.connect();
      listener = client;
      for (const channel of handlers.keys()) await client.query(`LISTEN ${channel}`);
      for (const s of subscribers) await s.ready?.();
      if (listener !== client) return;
      for (const s of subscribers) s.up();
      up = true;
      backoff = RECONNECT_MS.first;
    } catch (err) {
      if (listener === client) listener = undefined;
      loseAll();
      await client.end().catch(() => undefined);
      if (!stopped) {
        logger.error({ err }, 'notices could not LISTEN; caches read PostgreSQL until they can');
        schedule();
      }
    }
  };

  await connect();
  return {
    up: () => up,
    async settle() {
      if (listener) await listener.query('select 1').catch(() => undefined);
    },
    async stop() {
      stopped = true;
      clearTimeout(reconnectTimer);
      const client = listener;
      listener = undefined;
      loseAll();
      await client?.end().catch(() => undefined);
    },
  };
}

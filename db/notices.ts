/**
 * The platform's one reconnecting PostgreSQL connection for notifications and session state. One per
 * api process for its in-memory caches (docs/architecture.md "Caches"): the authentication cache
 * (api/auth/auth-cache.ts) and the account state cache (db/account-state-cache.ts) each hand in a
 * {@link NoticeSubscriber}, the channels it follows and what to do when the connection is up or lost.
 * The other long-lived connections are built on it too, each with a connection of its own (its own
 * `application_name`): the api's socket hubs (api/ws/hub.ts, quotes-hub.ts, market-hub.ts), and in the
 * worker the trigger watcher, the mark feed's publishing locks (modules/market/feeds/feed-leader.ts) and
 * the market stream producer (streams.ts), which hold session advisory locks on it ({@link Notices.query}).
 *
 * A cache is only as good as its notifications, so the connection tells its subscribers at once when
 * it is lost (each stops serving from memory and forgets what it held, and what the session held, such
 * as advisory locks, is gone) and reconnects with backoff (PostgreSQL restarted, the backend
 * terminated); after every (re)connect it LISTENs on every channel, lets each subscriber load what the
 * notifications will keep current or catch up on what it missed (`ready`), and only then says it is up.
 */
import pg from 'pg';
import type { Logger } from 'pino';

/** A cache kept current by notifications. */
export interface NoticeSubscriber {
  /** Channel → handler of its payloads (`''` when the NOTIFY has none). */
  channels: Record<string, (payload: string) => void>;
  /**
   * Called after LISTEN on every channel, before the subscriber may serve from memory: a load of what the
   * notifications keep current (a change committed meanwhile is in the load or in a notification), or a
   * catch-up on what was missed while the connection was down. `query` runs on the connection itself
   * (session state such as advisory locks lasts until it is lost). Rejecting counts as a lost connection.
   */
  ready?(query: NoticeQuery): Promise<void>;
  /** The subscriber may serve from memory again (after `ready`). */
  up(): void;
  /** The connection is down (or stopping): stop serving from memory and forget what was held. */
  lost(): void;
}

/**
 * One query on the connection (`text` with `$1`… placeholders, `values` for them), as pg's `Client.query`.
 * @throws Error when the connection is not there now (lost, reconnecting, stopped), or from PostgreSQL.
 */
export type NoticeQuery = <R extends pg.QueryResultRow = pg.QueryResultRow>(
  text: string,
  values?: unknown[],
) => Promise<pg.QueryResult<R>>;

/** Options of {@link startNotices}. */
export interface NoticesOptions {
  /** The connection's `application_name` (pg_stat_activity); default {@link NOTICES_APPLICATION}. */
  application?: string;
  /** What the log lines call the connection, e.g. `trigger watcher`; default: the caches' notices connection. */
  name?: string;
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
  /** One query on the connection itself (session advisory locks); rejects while it is not connected. */
  query: NoticeQuery;
  /** Ends the connection for good (subscribers are told `lost`); no reconnect follows. */
  stop(): Promise<void>;
}

/** The connection's `application_name` (pg_stat_activity). */
export const NOTICES_APPLICATION = 'platform-notices';
/** Reconnect backoff, ms. */
const RECONNECT_MS = { first: 500, max: 30_000 };
/** A connection attempt that has not completed in this long fails (and is retried), ms. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * Connects, LISTENs on every subscriber's channels and resolves once they are up, or once the first
 * attempt failed (the subscribers then start lost and the connection keeps retrying: 0.5 s, doubling up
 * to 30 s). Never rejects.
 */
export async function startNotices(
  databaseUrl: string,
  subscribers: NoticeSubscriber[],
  logger: Logger,
  opts: NoticesOptions = {},
): Promise<Notices> {
  const application = opts.application ?? NOTICES_APPLICATION;
  const lostLine = opts.name
    ? `${opts.name} connection lost; reconnecting`
    : 'notices connection lost; caches read PostgreSQL until it reconnects';
  const failedLine = opts.name
    ? `${opts.name} could not connect and LISTEN; retrying`
    : 'notices could not LISTEN; caches read PostgreSQL until they can';
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
    const client = new pg.Client({
      connectionString: databaseUrl,
      application_name: application,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    });
    const query: NoticeQuery = (text, values) => client.query(text, values);
    client.on('notification', (n) => handlers.get(n.channel)?.forEach((fn) => fn(n.payload ?? '')));
    const lost = (err?: Error) => {
      if (listener !== client) return;
      listener = undefined;
      loseAll();
      if (!stopped) {
        logger.error({ err }, lostLine);
        schedule();
      }
    };
    client.on('error', lost);
    client.on('end', () => lost());
    try {
      await client.connect();
      listener = client;
      for (const channel of handlers.keys()) await client.query(`LISTEN ${channel}`);
      for (const s of subscribers) await s.ready?.(query);
      if (listener !== client) return;
      for (const s of subscribers) s.up();
      up = true;
      backoff = RECONNECT_MS.first;
    } catch (err) {
      if (listener === client) listener = undefined;
      loseAll();
      await client.end().catch(() => undefined);
      if (!stopped) {
        logger.error({ err }, failedLine);
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
    query(text, values) {
      if (!listener) return Promise.reject(new Error(`${opts.name ?? 'notices'} connection is not connected`));
      return listener.query(text, values);
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

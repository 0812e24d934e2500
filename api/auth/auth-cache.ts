/**
 * The authentication cache of one api process (docs/api.md §5.2 "Caching"; README "Configuration"
 * `AUTH_CACHE_MS`): what every authenticated request reads before its route runs — the tenant (by
 * slug, origin, host, id), the bearer's credential row and whether its token id was revoked — kept
 * in memory so a request does not go to PostgreSQL for it.
 *
 * Correctness rests on PostgreSQL NOTIFY (triggers of migration AuthCache), which every api process
 * LISTENs to on one connection:
 * - `credential_changed` (payload: the id) on any update or delete of a credential: its row is dropped;
 * - `tenant_changed` on any insert, update or delete of a tenant: every tenant entry is dropped;
 * - `token_revoked` (payload: `<jti> <expiry, epoch ms>`) on every revoked token: it joins this
 *   process's revoked set until it expires.
 *
 * So a revocation, a suspension or a changed scope is seen by every api process within the
 * notification's latency (a few ms). The revoked set is the whole table's unexpired rows, loaded
 * when the LISTEN starts, so "not in the set" means "not revoked". A row read from the database is
 * kept only if no notification of its kind arrived while it was being read (no stale put). Entries
 * also expire after `ttlMs`, and each map is bounded ({@link MAX_ENTRIES}; past it the oldest go).
 * Should the LISTEN connection fail, the process stops caching at once (every read goes to the
 * database, as with `ttlMs` 0) and reconnects with backoff; caching resumes once it LISTENs again.
 */
import pg from 'pg';
import type { Logger } from 'pino';
import type { TenantLookup, TenantRef } from '../../domain/tenancy.js';

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

/** The database reads the cache stands in front of (api/middleware/tenant.ts, api/middleware/auth.ts). */
export interface AuthSource {
  tenants: TenantLookup & { byId(id: string): Promise<TenantRef | null> };
  credential(id: string): Promise<CachedCredential | null>;
  isRevoked(jti: string): Promise<boolean>;
  /** Every unexpired revoked token id, at most `limit` + 1 of them (more than `limit` = too many to keep). */
  revokedTokens(limit: number): Promise<{ jti: string; expiresAt: Date }[]>;
}

/** The cached reads, with the same answers as {@link AuthSource}. */
export interface AuthCache {
  tenants: AuthSource['tenants'];
  credential(id: string): Promise<CachedCredential | null>;
  isRevoked(jti: string): Promise<boolean>;
  /** Whether reads are served from memory now: caching on and the LISTEN connection up (else from PostgreSQL). */
  listening(): boolean;
  /** This process revoked `jti` (seen at once here; the others learn it from the NOTIFY). */
  revoked(jti: string, expiresAt: Date): void;
  /**
   * Resolves once every notification committed before the call has been applied (one round trip on
   * the LISTEN connection): for a caller that changed a tenant or credential and must see it here next.
   */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

/** Entries per map (credentials; tenant lookups) before the oldest are dropped. */
export const MAX_ENTRIES = 50_000;
/** Revoked token ids kept in memory; past it revocation is read from the database per request. */
export const MAX_REVOKED = 200_000;
/** The LISTEN connection's `application_name` (pg_stat_activity). */
export const AUTH_CACHE_APPLICATION = 'platform-auth-cache';
/** Reconnect backoff of the LISTEN connection, ms. */
const RECONNECT_MS = { first: 500, max: 30_000 };

const CHANNELS = ['credential_changed', 'tenant_changed', 'token_revoked'] as const;

/** A bounded map with expiry: `Map` keeps insertion order, so the first key is the oldest. */
class Entries<V> {
  private readonly map = new Map<string, { value: V; at: number }>();
  constructor(private readonly ttlMs: () => number) {}
  get(key: string): { value: V } | undefined {
    const hit = this.map.get(key);
    if (hit && Date.now() - hit.at < this.ttlMs()) return hit;
    if (hit) this.map.delete(key);
    return undefined;
  }
  set(key: string, value: V): void {
    this.map.delete(key);
    if (this.map.size >= MAX_ENTRIES) this.map.delete(this.map.keys().next().value!);
    this.map.set(key, { value, at: Date.now() });
  }
  delete(key: string): void {
    this.map.delete(key);
  }
  clear(): void {
    this.map.clear();
  }
}

/**
 * Starts the cache in front of `source` and its LISTEN connection to `databaseUrl`. `ttlMs` 0 turns
 * caching off (every read goes to `source`). Resolves once the first LISTEN is up (or failed: the
 * cache then starts off and keeps reconnecting).
 */
export async function startAuthCache(
  databaseUrl: string,
  source: AuthSource,
  ttlMs: number,
  logger: Logger,
): Promise<AuthCache> {
  let listening = false;
  let stopped = false;
  let listener: pg.Client | undefined;
  let backoff = RECONNECT_MS.first;
  let reconnectTimer: NodeJS.Timeout | undefined;
  /** Bumped by every notification of the kind: a read that straddles one is not kept. */
  const epoch = { credential: 0, tenant: 0 };
  const on = () => listening && ttlMs > 0;
  const credentials = new Entries<CachedCredential | null>(() => ttlMs);
  const tenantHits = new Entries<TenantRef | null>(() => ttlMs);
  /** Unexpired revoked token ids → expiry (ms); null when there are too many to keep. */
  let revoked: Map<string, number> | null = null;

  const forgetAll = () => {
    listening = false;
    epoch.credential++;
    epoch.tenant++;
    credentials.clear();
    tenantHits.clear();
    revoked = null;
  };

  const apply = (channel: string, payload: string) => {
    if (channel === 'credential_changed') {
      epoch.credential++;
      credentials.delete(payload);
    } else if (channel === 'tenant_changed') {
      epoch.tenant++;
      tenantHits.clear();
    } else if (channel === 'token_revoked') {
      const [jti, expiresMs] = payload.split(' ');
      revoked?.set(jti, Number(expiresMs) || Number.MAX_SAFE_INTEGER);
    }
  };

  const connect = async () => {
    const client = new pg.Client({ connectionString: databaseUrl, application_name: AUTH_CACHE_APPLICATION });
    client.on('notification', (n) => apply(n.channel, n.payload ?? ''));
    const lost = (err?: Error) => {
      if (listener !== client) return;
      listener = undefined;
      forgetAll();
      if (!stopped) {
        logger.error({ err }, 'auth cache connection lost; reading from PostgreSQL until it reconnects');
        schedule();
      }
    };
    client.on('error', lost);
    client.on('end', () => lost());
    try {
      await client.connect();
      listener = client;
      for (const c of CHANNELS) await client.query(`LISTEN ${c}`);
      // Loaded after LISTEN: a revocation committed in between is in the rows or in a notification.
      const rows = await source.revokedTokens(MAX_REVOKED);
      if (listener !== client) return;
      revoked = rows.length > MAX_REVOKED ? null : new Map(rows.map((r) => [r.jti, r.expiresAt.getTime()]));
      listening = true;
      backoff = RECONNECT_MS.first;
    } catch (err) {
      if (listener === client) listener = undefined;
      forgetAll();
      await client.end().catch(() => undefined);
      if (!stopped) {
        logger.error({ err }, 'auth cache could not LISTEN; reading from PostgreSQL until it can');
        schedule();
      }
    }
  };
  const schedule = () => {
    clearTimeout(reconnectTimer);
    reconnectTimer = setTimeout(() => void connect(), backoff);
    backoff = Math.min(backoff * 2, RECONNECT_MS.max);
  };
  const prune = setInterval(() => {
    const now = Date.now();
    revoked?.forEach((exp, jti) => exp <= now && revoked!.delete(jti));
  }, 60_000);
  prune.unref();

  /** Reads through the cache: a hit, else the source, kept unless a notification of `kind` arrived meanwhile. */
  const through = async <V>(
    entries: Entries<V>,
    kind: keyof typeof epoch,
    key: string,
    read: () => Promise<V>,
    keep: (value: V) => boolean = () => true,
  ): Promise<V> => {
    if (!on()) return read();
    const hit = entries.get(key);
    if (hit) return hit.value;
    const before = epoch[kind];
    const value = await read();
    if (on() && epoch[kind] === before && keep(value)) entries.set(key, value);
    return value;
  };

  if (ttlMs > 0) await connect();
  return {
    tenants: {
      bySlug: (slug) => through(tenantHits, 'tenant', `slug ${slug}`, () => source.tenants.bySlug(slug)),
      byOrigins: (origins) =>
        through(tenantHits, 'tenant', `origins ${origins.join(' ')}`, () => source.tenants.byOrigins(origins)),
      platform: () => through(tenantHits, 'tenant', 'platform', () => source.tenants.platform()),
      byId: (id) => through(tenantHits, 'tenant', `id ${id}`, () => source.tenants.byId(id)),
    },
    // A missing credential is not kept: its id may yet be written (an id never names two credentials).
    listening: on,
    credential: (id) =>
      through(
        credentials,
        'credential',
        id,
        () => source.credential(id),
        (row) => row !== null,
      ),
    async isRevoked(jti) {
      if (on() && revoked) return revoked.has(jti);
      return source.isRevoked(jti);
    },
    revoked(jti, expiresAt) {
      revoked?.set(jti, expiresAt.getTime());
    },
    async settle() {
      if (listener) await listener.query('select 1').catch(() => undefined);
    },
    async stop() {
      stopped = true;
      clearTimeout(reconnectTimer);
      clearInterval(prune);
      const client = listener;
      listener = undefined;
      forgetAll();
      await client?.end().catch(() => undefined);
    },
  };
}

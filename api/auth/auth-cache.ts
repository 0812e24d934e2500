/**
 * The authentication cache of one api process (docs/api.md §5.2 "Caching"; README "Configuration"
 * `AUTH_CACHE_MS`): what every authenticated request reads before its route runs — the tenant (by
 * slug, origin, host, id), the bearer's credential row and whether its token id was revoked — kept
 * in memory so a request does not go to PostgreSQL for it.
 *
 * Correctness rests on PostgreSQL NOTIFY (triggers of migration AuthCache), which every api process
 * LISTENs to on its notices connection (db/notices.ts):
 * - `credential_changed` (payload: the id) on any update or delete of a credential: its row is dropped;
 * - `tenant_changed` on any insert, update or delete of a tenant: every tenant entry (and rules) is dropped;
 * - `token_revoked` (payload: `<jti> <expiry, epoch ms>`) on every revoked token: it joins this
 *   process's revoked set until it expires.
 *
 * So a revocation, a suspension or a changed scope is seen by every api process within the
 * notification's latency (a few ms). The revoked set is the whole table's unexpired rows, loaded
 * when the LISTEN starts, so "not in the set" means "not revoked". A row read from the database is
 * kept only if no notification of its kind arrived while it was being read (no stale put). Entries
 * also expire after `ttlMs`, and each map is bounded ({@link MAX_ENTRIES}; past it the oldest go).
 * Should that connection fail, the process stops caching at once (every read goes to the database, as
 * with `ttlMs` 0) until it LISTENs again.
 */
import { BoundedMap } from '../../domain/bounded-map.js';
import type { NoticeSubscriber } from '../../db/notices.js';
import type { TenantLookup, TenantRef } from '../../domain/tenancy.js';
import type { TenantRules, TenantRulesReader } from '../../domain/tenant/entitlements.js';
import type { RiskEnvelope } from '../../domain/auth/envelope.js';

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
  /** The secret's version: a bearer minted under another one is refused (docs/api.md §5.2 rotation). */
  secretVersion?: number;
  /** A trader's risk envelope and allowlists, checked at compose (modules/oms/commands/credential-envelope.ts). */
  envelope?: RiskEnvelope;
  allowedVenues?: string[] | null;
  allowedSymbols?: string[] | null;
}

/** The database reads the cache stands in front of (api/middleware/tenant.ts, api/middleware/auth.ts). */
export interface AuthSource extends TenantRulesReader {
  tenants: TenantLookup & { byId(id: string): Promise<TenantRef | null> };
  credential(id: string): Promise<CachedCredential | null>;
  isRevoked(jti: string): Promise<boolean>;
  /** Every unexpired revoked token id, at most `limit` + 1 of them (more than `limit` = too many to keep). */
  revokedTokens(limit: number): Promise<{ jti: string; expiresAt: Date }[]>;
}

/** The cached reads, with the same answers as {@link AuthSource}. */
export interface AuthCache extends TenantRulesReader {
  tenants: AuthSource['tenants'];
  credential(id: string): Promise<CachedCredential | null>;
  isRevoked(jti: string): Promise<boolean>;
  /** Whether reads are served from memory now: caching on and the LISTEN connection up (else from PostgreSQL). */
  listening(): boolean;
  /** This process revoked `jti` (seen at once here; the others learn it from the NOTIFY). */
  revoked(jti: string, expiresAt: Date): void;
}

/** Entries per map (credentials; tenant lookups) before the oldest are dropped. */
export const MAX_ENTRIES = 50_000;
/** Revoked token ids kept in memory; past it revocation is read from the database per request. */
export const MAX_REVOKED = 200_000;

/**
 * The cache in front of `source`, and the subscriber that keeps it current (hand it to
 * `startNotices`, db/notices.ts). `ttlMs` 0 turns caching off (every read goes to `source`). Until
 * the notices connection is up, and whenever it is lost, every read goes to `source`.
 */
export function createAuthCache(source: AuthSource, ttlMs: number): { cache: AuthCache; subscriber: NoticeSubscriber } {
  let listening = false;
  /** Bumped by every notification of the kind: a read that straddles one is not kept. */
  const epoch = { credential: 0, tenant: 0 };
  const on = () => listening && ttlMs > 0;
  const credentials = new BoundedMap<CachedCredential | null>(MAX_ENTRIES);
  const tenantHits = new BoundedMap<TenantRef | null>(MAX_ENTRIES);
  const rules = new BoundedMap<TenantRules>(MAX_ENTRIES);
  /** Unexpired revoked token ids → expiry (ms); null when there are too many to keep, or not loaded. */
  let revoked: Map<string, number> | null = null;
  /** Revocations notified while the set loads (kept in it once it is up). */
  let arriving: Map<string, number> | null = null;
  let loaded: Map<string, number> | null = null;

  /** Drops expired revocations, at most once a minute (on the next revocation: the set only grows then). */
  let prunedAt = Date.now();
  const prune = () => {
    const now = Date.now();
    if (now - prunedAt < 60_000) return;
    prunedAt = now;
    revoked?.forEach((exp, jti) => exp <= now && revoked!.delete(jti));
  };

  const subscriber: NoticeSubscriber = {
    channels: {
      credential_changed(id) {
        epoch.credential++;
        credentials.delete(id);
      },
      tenant_changed() {
        epoch.tenant++;
        tenantHits.clear();
        rules.clear();
      },
      token_revoked(payload) {
        const [jti, expiresMs] = payload.split(' ');
        prune();
        (revoked ?? arriving)?.set(jti, Number(expiresMs) || Number.MAX_SAFE_INTEGER);
      },
    },
    // Loaded after LISTEN: a revocation committed in between is in the rows or in a notification.
    async ready() {
      arriving = new Map();
      const rows = await source.revokedTokens(MAX_REVOKED);
      loaded = rows.length > MAX_REVOKED ? null : new Map(rows.map((r) => [r.jti, r.expiresAt.getTime()]));
    },
    up() {
      revoked = loaded && new Map([...loaded, ...arriving!]);
      loaded = arriving = null;
      listening = true;
    },
    lost() {
      listening = false;
      epoch.credential++;
      epoch.tenant++;
      credentials.clear();
      tenantHits.clear();
      rules.clear();
      revoked = loaded = arriving = null;
    },
  };

  /** Reads through the cache: a hit, else the source, kept unless a notification of `kind` arrived meanwhile. */
  const through = async <V>(
    entries: BoundedMap<V>,
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
    if (on() && epoch[kind] === before && keep(value)) entries.set(key, value, Date.now() + ttlMs);
    return value;
  };

  const cache: AuthCache = {
    tenants: {
      bySlug: (slug) => through(tenantHits, 'tenant', `slug ${slug}`, () => source.tenants.bySlug(slug)),
      byOrigins: (origins) =>
        through(tenantHits, 'tenant', `origins ${origins.join(' ')}`, () => source.tenants.byOrigins(origins)),
      platform: () => through(tenantHits, 'tenant', 'platform', () => source.tenants.platform()),
      byId: (id) => through(tenantHits, 'tenant', `id ${id}`, () => source.tenants.byId(id)),
    },
    tenantRules: (id) => through(rules, 'tenant', id, () => source.tenantRules(id)),
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
  };
  return { cache, subscriber };
}

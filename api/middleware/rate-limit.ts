/**
 * Request rate limits (docs/api.md §8 "Rate limits"; README "Configuration"), counted in PostgreSQL
 * (rate-limiter-flexible's `RateLimiterPostgres` over the ORM's own `pg` pool, table `rate_limits`), so a
 * limit holds across every api process of a deployment.
 *
 * - {@link rateLimit}: every `/api/*` request after authentication is counted against its caller: a bearer
 *   by its credential (`cred:<credentialId>`), a cookie session by its trader (`trader:<tenantId>:<ownerId>`),
 *   anything else by client IP (`ip:<address>`). A caller gets `perSecond` requests per one-second window
 *   and, beyond that, a burst allowance of `burst` requests refilled every {@link BURST_WINDOW_S} s
 *   (`BurstyRateLimiter`). Defaults per deployment (`RATE_LIMIT_PER_SECOND`, `RATE_LIMIT_BURST`,
 *   `RATE_LIMIT_IP_PER_SECOND`, `RATE_LIMIT_IP_BURST`); a credential's `rate_limit_per_second` and
 *   `rate_limit_burst` columns override the first two for it (read again after {@link OVERRIDE_CACHE_MS}).
 *   Every counted answer carries `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset`; over
 *   the limit: `429 rate_limited` with `Retry-After`. `/healthz`, `/readyz`, `/metrics`, the trading
 *   page and the sockets are not counted.
 * - {@link reserveSecretCheck}: failed secret checks (each one an scrypt) per API key and per client IP,
 *   at most `RATE_LIMIT_SECRET_FAILURES_PER_MINUTE` each per minute, refused before the scrypt runs.
 *
 * A counter's key carries its limit and window (`rl:50/1:cred:…`), so processes configured alike share
 * counters and a changed limit starts fresh ones. A caller past its limit is also refused from this
 * process's memory until the window ends (no database round trip). Should PostgreSQL fail, each process
 * falls back to counting in its own memory (`insuranceLimiter`).
 *
 * Far below its limit a caller does not wait for PostgreSQL (issue 15: the counter's upsert halved the
 * api's throughput): while the shared count as this process last saw it, plus what it admitted since,
 * stays within {@link FAST_SHARE} of the per-second allowance, a request is admitted from memory and
 * counted with the others of its key in one `consume(key, n)` every {@link FLUSH_MS} ms. Past that share
 * every request is counted in PostgreSQL before it is answered (this process's batch first), exactly as
 * the limit is documented. So with P processes a window can admit at most P × {@link FAST_SHARE} of the
 * allowance before they see each other's counts.
 */
import { createHash } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Pool } from 'pg';
import { BurstyRateLimiter, RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { ApiError } from '../../domain/errors.js';
import type { Config } from '../../config.js';
import type { ApiMiddleware, Caller } from '../context.js';

/** The counters' table (migration RateLimits). */
export const RATE_LIMIT_TABLE = 'rate_limits';
/** How often the burst allowance refills (s). */
export const BURST_WINDOW_S = 10;
/** How long a credential's own limits are kept by a process before they are read again (ms). */
export const OVERRIDE_CACHE_MS = 30_000;
/** The failed secret check window (s). */
const SECRET_FAILURE_WINDOW_S = 60;

/** Share of the per-second allowance a caller may use, as this process sees the shared count, before each request waits for PostgreSQL. */
export const FAST_SHARE = 0.5;
/** How often a process sends the counts it admitted from memory (ms). */
export const FLUSH_MS = 20;

/** A request rate: `perSecond` per one-second window plus `burst` more per {@link BURST_WINDOW_S} s. */
export interface RateLimit {
  perSecond: number;
  burst: number;
}

/** What one process knows of one limiter's keys: the shared count after its last batch, and what it admitted since. */
interface Batch {
  /** Per key: the points the window had used (PostgreSQL's answer to the last batch) and when it ends (epoch ms). */
  seen: Map<string, { consumed: number; resetAt: number }>;
  /** Per key: requests admitted from memory, not yet sent. */
  pending: Map<string, number>;
  /** Per key: requests sent and not yet answered (still counted here until `seen` includes them). */
  sending: Map<string, number>;
}

/** A process's limiters over one ORM's pool, the credential overrides it has read, and its batches. */
interface Store {
  pool: Pool;
  limiters: Map<string, RateLimiterPostgres>;
  overrides: Map<string, { limit: RateLimit; at: number }>;
  batches: Map<RateLimiterPostgres, Batch>;
  flushing?: NodeJS.Timeout;
}

const stores = new WeakMap<MikroORM, Promise<Store>>();

/** The store of `orm` (its `pg` pool), made on first use; a failure is not kept (the next call tries again). */
function storeOf(orm: MikroORM): Promise<Store> {
  let store = stores.get(orm);
  if (!store) {
    store = orm.em
      .getConnection()
      .getNativeClient()
      .then((pool) => ({ pool, limiters: new Map(), overrides: new Map(), batches: new Map() }));
    store.catch(() => stores.delete(orm));
    stores.set(orm, store);
  }
  return store;
}

/**
 * The PostgreSQL limiter of `points` per `durationS` under `prefix`, one per process and shape. The first
 * one made sweeps rows expired for an hour every 5 minutes (for the whole table).
 */
function limiter(store: Store, prefix: string, points: number, durationS: number): RateLimiterPostgres {
  const keyPrefix = `${prefix}:${points}/${durationS}`;
  let l = store.limiters.get(keyPrefix);
  if (!l) {
    const shape = { keyPrefix, points, duration: durationS, inMemoryBlockOnConsumed: points + 1 };
    l = new RateLimiterPostgres({
      ...shape,
      storeClient: store.pool,
      storeType: 'pool',
      tableName: RATE_LIMIT_TABLE,
      tableCreated: true,
      clearExpiredByTimeout: store.limiters.size === 0,
      insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration: durationS }),
    });
    store.limiters.set(keyPrefix, l);
  }
  return l;
}

/** Sends `n` requests of `key` admitted from memory to `l` and keeps PostgreSQL's answer (refusals included). */
async function send(batch: Batch, l: RateLimiterPostgres, key: string, n: number): Promise<void> {
  const add = (d: number) => {
    const left = (batch.sending.get(key) ?? 0) + d;
    if (left) batch.sending.set(key, left);
    else batch.sending.delete(key);
  };
  const kept = (res: RateLimiterRes) =>
    batch.seen.set(key, { consumed: res.consumedPoints, resetAt: Date.now() + res.msBeforeNext });
  add(n);
  await l
    .consume(key, n)
    .then(kept, (err: unknown) => {
      if (err instanceof RateLimiterRes) kept(err);
      // Anything else: the insurance limiter counted them, or nothing could.
    })
    .finally(() => add(-n));
}

/** Sends every key's admitted requests of every limiter of `store` (each key's count once). */
function flushAll(store: Store): void {
  store.flushing = undefined;
  for (const [l, batch] of store.batches)
    for (const [key, n] of batch.pending) {
      batch.pending.delete(key);
      void send(batch, l, key, n);
    }
}

/** The batch of `l` in `store`, made on first use. */
const batchOf = (store: Store, l: RateLimiterPostgres): Batch =>
  store.batches.get(l) ?? store.batches.set(l, { seen: new Map(), pending: new Map(), sending: new Map() }).get(l)!;

/**
 * Admits one request of `key` from memory when, as this process sees it, the window has used at most
 * {@link FAST_SHARE} of `points` (module doc): its counter after the request, else null (count it in
 * PostgreSQL now, after sending the key's batch: {@link sendPending}).
 */
function admitFromMemory(store: Store, l: RateLimiterPostgres, key: string, points: number): RateLimiterRes | null {
  const batch = batchOf(store, l);
  const now = Date.now();
  let seen = batch.seen.get(key);
  if (seen && now >= seen.resetAt) {
    batch.seen.delete(key);
    seen = undefined;
  }
  const pending = batch.pending.get(key) ?? 0;
  const used = (seen?.consumed ?? 0) + (batch.sending.get(key) ?? 0) + pending + 1;
  if (used > points * FAST_SHARE) return null;
  batch.pending.set(key, pending + 1);
  store.flushing ??= setTimeout(() => flushAll(store), FLUSH_MS).unref();
  return new RateLimiterRes(points - used, seen ? seen.resetAt - now : l.duration * 1000, used, !seen);
}

/** Sends the requests of `key` admitted from memory by `l` before counting one more in PostgreSQL. */
async function sendPending(store: Store, l: RateLimiterPostgres, key: string): Promise<void> {
  const batch = batchOf(store, l);
  const n = batch.pending.get(key);
  if (!n) return;
  batch.pending.delete(key);
  await send(batch, l, key, n);
}

/** An IP as a counter key: as it is when it looks like an address, else its hash (a forwarded value is the client's text). */
const ipKey = (ip: string) =>
  /^[0-9a-fA-F:.]{1,45}$/.test(ip) ? ip : `h-${createHash('sha256').update(ip).digest('hex').slice(0, 32)}`;

/** Whole seconds until `ms` have passed, at least 1 (`Retry-After`, `X-RateLimit-Reset`). */
const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/**
 * A credential's own limits over `defaults` (its columns, kept for {@link OVERRIDE_CACHE_MS}); `defaults` for
 * this request when they cannot be read (the counting then falls back as the module doc says).
 */
async function credentialLimit(store: Store, credentialId: string, defaults: RateLimit): Promise<RateLimit> {
  const hit = store.overrides.get(credentialId);
  if (hit && Date.now() - hit.at < OVERRIDE_CACHE_MS) return hit.limit;
  const read = await store.pool
    .query<{ rate_limit_per_second: number | null; rate_limit_burst: number | null }>(
      'select rate_limit_per_second, rate_limit_burst from credentials where id = $1',
      [credentialId],
    )
    .catch(() => null);
  if (!read) return defaults;
  const { rows } = read;
  const limit = {
    perSecond: rows[0]?.rate_limit_per_second ?? defaults.perSecond,
    burst: rows[0]?.rate_limit_burst ?? defaults.burst,
  };
  if (store.overrides.size >= 10_000) store.overrides.clear();
  store.overrides.set(credentialId, { limit, at: Date.now() });
  return limit;
}

/** Who a request is counted as, and under which limit. */
async function subjectOf(
  store: Store,
  caller: Caller | undefined,
  ip: string,
  limits: Config['rateLimits'],
): Promise<{ key: string; limit: RateLimit; who: string }> {
  const perCredential = { perSecond: limits.perSecond, burst: limits.burst };
  if (caller?.session)
    return { key: `trader:${caller.tenantId}:${caller.ownerId}`, limit: perCredential, who: 'this session' };
  if (caller)
    return {
      key: `cred:${caller.credentialId}`,
      limit: await credentialLimit(store, caller.credentialId, perCredential),
      who: 'this credential',
    };
  return {
    key: `ip:${ipKey(ip)}`,
    limit: { perSecond: limits.ipPerSecond, burst: limits.ipBurst },
    who: 'this client IP',
  };
}

/** Counts one request of `caller` from `ip`: its limit, who it is counted as, and the counter after it. */
async function count(
  orm: MikroORM,
  caller: Caller | undefined,
  ip: string,
  limits: Config['rateLimits'],
): Promise<{ limit: RateLimit; who: string; res: RateLimiterRes; refused: boolean }> {
  const store = await storeOf(orm);
  const { key, limit, who } = await subjectOf(store, caller, ip, limits);
  const perSecond = limiter(store, 'rl', limit.perSecond, 1);
  const fast = admitFromMemory(store, perSecond, key, limit.perSecond);
  if (fast) return { limit, who, res: fast, refused: false };
  await sendPending(store, perSecond, key);
  const bursty = new BurstyRateLimiter(perSecond, limiter(store, 'rlb', limit.burst, BURST_WINDOW_S));
  return bursty.consume(key).then(
    (res) => ({ limit, who, res, refused: false }),
    (err: unknown) => {
      if (err instanceof RateLimiterRes) return { limit, who, res: err, refused: true };
      throw err;
    },
  );
}

/**
 * The rate limit middleware (module doc); register it after authentication. Sets the `X-RateLimit-*`
 * headers on every counted answer. A request that cannot be counted at all (no pool; a failure the
 * in-memory fallback did not absorb) goes through uncounted and is logged.
 * @throws ApiError `429 rate_limited` with `Retry-After` (s) and `retryAfter` (s) in the body.
 */
export function rateLimit(deps: { orm: MikroORM; config: Config }): ApiMiddleware {
  const limits = deps.config.rateLimits;
  return async (ctx, next) => {
    if (!ctx.path.startsWith('/api/')) {
      await next();
      return;
    }
    const counted = await count(deps.orm, ctx.state.caller, ctx.ip, limits).catch((err: unknown) => {
      ctx.state.log.error({ err }, 'rate limit not counted');
      return null;
    });
    if (!counted) {
      await next();
      return;
    }
    const { limit, who, res, refused } = counted;
    ctx.set('X-RateLimit-Limit', String(limit.perSecond));
    ctx.set('X-RateLimit-Remaining', String(Math.max(0, res.remainingPoints)));
    ctx.set('X-RateLimit-Reset', String(seconds(res.msBeforeNext)));
    if (refused) {
      const retryAfter = seconds(res.msBeforeNext);
      throw new ApiError(
        'rate_limited',
        `over ${limit.perSecond} requests per second (burst ${limit.burst} per ${BURST_WINDOW_S} s) for ${who}; retry after ${retryAfter} s`,
        { retryAfter },
        { 'Retry-After': String(retryAfter) },
      );
    }
    await next();
  };
}

/**
 * Reserves one secret check of the credential `credentialId` from client `ip` before its scrypt runs
 * (`RATE_LIMIT_SECRET_FAILURES_PER_MINUTE` per API key and per IP, per minute). Call the returned
 * `settle(ok)` once the secret is checked: a correct secret clears the key's failures and gives the IP
 * its attempt back; a wrong one stays counted.
 * @throws ApiError `429 rate_limited` with `Retry-After` (s) and `retryAfter` when the key or the IP has
 *   used its failures (nothing is counted for this attempt then).
 */
export async function reserveSecretCheck(
  deps: { orm: MikroORM; config: Config },
  credentialId: string,
  ip: string,
): Promise<(ok: boolean) => Promise<void>> {
  const store = await storeOf(deps.orm);
  const failures = limiter(store, 'auth', deps.config.rateLimits.secretFailuresPerMinute, SECRET_FAILURE_WINDOW_S);
  const keys = [`key:${credentialId}`, `ip:${ipKey(ip)}`];
  const taken = await Promise.allSettled(keys.map((k) => failures.consume(k)));
  const refusals = taken.flatMap((t) =>
    t.status === 'rejected' && t.reason instanceof RateLimiterRes ? [t.reason] : [],
  );
  if (refusals.length) {
    // This attempt is refused unchecked: what it took from the other counter goes back.
    await Promise.all(keys.filter((_, i) => taken[i].status === 'fulfilled').map((k) => failures.reward(k)));
    const retryAfter = seconds(Math.max(...refusals.map((r) => r.msBeforeNext)));
    throw new ApiError(
      'rate_limited',
      `too many failed secret checks for this API key or from this client IP; retry after ${retryAfter} s`,
      { retryAfter },
      { 'Retry-After': String(retryAfter) },
    );
  }
  return async (ok) => {
    if (ok) await Promise.all([failures.delete(keys[0]), failures.reward(keys[1])]);
  };
}

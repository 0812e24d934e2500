/**
 * What the benchmarks share (scripts/bench.ts, scripts/bench/venues.ts; scripts/bench/market.ts its
 * configuration): the self-contained platform an order bench runs against (an in-memory Temporal
 * dev server, a fresh database on DATABASE_URL's server or embedded PostgreSQL, the api and the
 * worker in this process) and a trader session on it through the TypeScript client (clients/typescript/: REST
 * calls with the trader's bearer, /ws/risk subscribed to `Order-Intent-Changed`).
 */
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Tier } from '../../domain/gates.js';
import { pino } from 'pino';
import { createClient } from '@multivenue/client';
import { loadConfig } from '../../config.js';
import { openOrm } from '../../db/orm.js';
import { ensureTenant, issueCredential, type IssuedCredential } from '../../db/seed.js';
import type { ExecutionMode } from '../../domain/oms/execution.js';
import { startApi } from '../../api/server.js';
import { createWorker } from '../../worker/worker.js';
import { ensurePostgres, freshDatabase } from './postgres.js';
import { freePort, startTemporalDev } from './temporal-dev.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * The request rate limit of the benchmarks' credentials (`issueCredential({ rateLimit })`, docs/api.md §8
 * "Rate limits"): far above what any bench sends, so the deployment's default limit never throttles a measurement.
 */
const BENCH_RATE_LIMIT = { perSecond: 1_000_000, burst: 1_000_000 };

/**
 * The platform's configuration for a bench on `databaseUrl` and the Temporal server at
 * `temporalAddress`: a random JWT secret, free ports (api and worker HTTP), MARK_FEED off, silent
 * logs, and the per-IP rate limit of unauthenticated requests at {@link BENCH_RATE_LIMIT} (the market
 * bench's discovery floor is loaded from one address); `extra` (config.ts names) on top.
 */
export function benchConfig(databaseUrl: string, temporalAddress: string, extra: Record<string, string> = {}) {
  const secret = randomBytes(32).toString('hex');
  const base = {
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    JWT_SECRET: secret,
    PORT: '0',
    WORKER_HTTP_PORT: '0',
  };
  const unthrottled = {
    RATE_LIMIT_IP_PER_SECOND: String(BENCH_RATE_LIMIT.perSecond),
    RATE_LIMIT_IP_BURST: String(BENCH_RATE_LIMIT.burst),
  };
  return loadConfig({ ...base, MARK_FEED: 'off', LOG_LEVEL: 'silent', ...unthrottled, ...extra });
}

/**
 * A trader credential of tier `tier` on tenant `tenant.slug` (created when missing, no origins) with a paper
 * account of `depositUsd` (USD), or with `executionMode: 'routed'` a routed one (no deposit), and the
 * {@link BENCH_RATE_LIMIT}: what every bench trades or reads with.
 */
export async function benchCredential(
  orm: MikroORM,
  tenant: { slug: string; displayName: string },
  tier: Tier,
  depositUsd: string,
  executionMode: ExecutionMode = 'internalised',
): Promise<IssuedCredential> {
  const t = await ensureTenant(orm, { ...tenant, origins: [] });
  return issueCredential(orm, {
    tenantId: t.id,
    audience: 'trader',
    tier,
    account: { depositUsd, executionMode },
    rateLimit: BENCH_RATE_LIMIT,
  });
}

/** The running platform of an order bench. */
export type BenchPlatform = Awaited<ReturnType<typeof startBenchPlatform>>;

/**
 * Starts the platform in this process on database `dbName` (created fresh, dropped by `stop()`):
 * Temporal dev server (in memory, free port), the api (`api.baseUrl`) and the worker, MARK_FEED
 * off, silent logs. `env(orm)` adds configuration once the database is open (the venue bench
 * points the routed venues at simulators that read marks from it).
 */
export async function startBenchPlatform(
  dbName: string,
  env: (orm: MikroORM) => Promise<Record<string, string>> = async () => ({}),
) {
  const temporalDev = await startTemporalDev({ port: await freePort(), uiPort: null, dbFilename: null });
  const pgServer = await ensurePostgres({ dataDir: path.join(ROOT, '.data/pg') });
  const db = await freshDatabase(pgServer.url, dbName);
  const orm = await openOrm(db.url);
  const config = benchConfig(db.url, temporalDev.address, await env(orm));
  const logger = pino({ level: 'silent' });
  const api = await startApi({ config, orm, logger });
  const worker = await createWorker({ config, orm, logger });
  const running = worker.run();
  return {
    orm,
    api,
    /** The Temporal dev server's `host:port`. */
    temporalAddress: temporalDev.address,
    /** The Temporal dev server's pid. */
    temporalPid: temporalDev.pid,
    /** Stops the worker, the api, the database (dropped) and both servers, in that order. */
    async stop() {
      worker.shutdown();
      await running;
      await api.stop();
      await orm.close();
      await db.drop();
      await temporalDev.stop();
      await pgServer.stop();
    },
  };
}

/** What an `Order-Intent-Update` frame carries that the benches read. */
export interface IntentUpdate {
  state: string;
  clientOrderId: string;
  rejectReason?: string;
}

/**
 * A trader on tenant `slug` (created when missing) with a full-trading account of 100,000,000 USD (or a
 * routed one, `executionMode`) and the {@link BENCH_RATE_LIMIT}:
 * the credential (`prepare(cred)` runs before the session opens: the venue bench authorises agents
 * there), its `client` (@multivenue/client), `call(method, path, body?)` with the trader's bearer (the JSON
 * answer, whatever the status), and a /ws/risk socket subscribed to `Order-Intent-Changed` handing every
 * `Order-Intent-Update` frame's `data` to `onIntent`. `close()` closes the socket.
 */
export async function benchTrader(
  platform: Pick<BenchPlatform, 'orm'> & { api: { baseUrl: string } },
  tenant: { slug: string; displayName: string },
  onIntent: (data: IntentUpdate) => void,
  prepare: (cred: IssuedCredential) => Promise<unknown> = async () => undefined,
  executionMode: ExecutionMode = 'internalised',
) {
  const cred = await benchCredential(platform.orm, tenant, 'fullTrading', '100000000', executionMode);
  await prepare(cred);
  // The TypeScript client (clients/typescript/); no automatic Idempotency-Key, so a compose measures the same
  // request as before the client (a key adds the idempotency bookkeeping to every write).
  const client = createClient({
    baseUrl: platform.api.baseUrl,
    tenantSlug: tenant.slug,
    apiKey: cred.apiKey,
    apiSecret: cred.apiSecret,
    idempotencyKey: false,
  });
  await client.tokens.mint();
  const risk = client.risk({ topics: ['Order-Intent-Changed'] });
  risk.on('frame', (f) => {
    if (f.type !== 'Order-Intent-Update') return;
    const { state, clientOrderId, rejectReason } = f.data;
    onIntent({ state, clientOrderId: clientOrderId ?? '', rejectReason: rejectReason ?? undefined });
  });
  await risk.ready;
  /** Any route by method and path, its JSON answer whatever the status (the benches check the fields they need). */
  const request = client.api.request as unknown as (
    method: string,
    path: string,
    init: { body?: unknown },
  ) => Promise<{ data?: unknown; error?: unknown }>;
  return {
    cred,
    client,
    call: async (method: string, p: string, body?: unknown) => {
      const { data, error } = await request(method.toLowerCase(), p, body === undefined ? {} : { body });
      return (data ?? error) as Record<string, unknown>;
    },
    close: () => void risk.close(),
  };
}

/** The benches' order `i`: a paper market order of 0.001 BTC.PAPER, buy on even `i` and sell on odd, with `clientOrderId`. */
export const paperMarketOrder = (i: number, clientOrderId: string) => ({
  venue: 'paper',
  symbol: 'BTC.PAPER',
  side: i % 2 ? 'sell' : 'buy',
  type: 'market',
  qty: '0.001',
  clientOrderId,
});

/**
 * What the benchmarks share (scripts/bench.ts, scripts/bench/venues.ts; scripts/bench/market.ts its
 * configuration): the self-contained platform an order bench runs against (an in-memory Temporal
 * dev server, a fresh database on DATABASE_URL's server or embedded PostgreSQL, the api and the
 * worker in this process) and a trader session on it (REST calls with the trader's bearer token,
 * /ws/risk subscribed to `Order-Intent-Changed`).
 */
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Tier } from '../../domain/gates.js';
import { pino } from 'pino';
import WebSocket from 'ws';
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
 * there), `call(method, path, body?)` with the trader's bearer token (the JSON answer), and a
 * /ws/risk socket subscribed to `Order-Intent-Changed` handing every `Order-Intent-Update` frame's
 * `data` to `onIntent`. `close()` closes the socket.
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
  const request = async (
    method: string,
    p: string,
    token?: string,
    body?: unknown,
  ): Promise<Record<string, unknown>> => {
    const headers = {
      'x-tenant-slug': tenant.slug,
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    };
    const res = await fetch(`${platform.api.baseUrl}${p}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await res.json()) as Record<string, unknown>;
  };
  const minted = await request('POST', '/api/auth/api-token', undefined, {
    apiKey: cred.apiKey,
    apiSecret: cred.apiSecret,
  });
  const token = minted.token as string;
  const boot = (await request('POST', '/api/auth/bootstrap', token)) as {
    data: { riskEngineWss: { endpoint: string; token: string } };
  };
  const ws = new WebSocket(boot.data.riskEngineWss.endpoint, { headers: { 'x-tenant-slug': tenant.slug } });
  await new Promise((r) => ws.once('open', r));
  ws.on('message', (raw) => {
    const f = JSON.parse(String(raw)) as { type: string; data: IntentUpdate };
    if (f.type === 'Order-Intent-Update') onIntent(f.data);
  });
  ws.send(JSON.stringify({ type: 'Authenticate', token: boot.data.riskEngineWss.token }));
  await new Promise((r) => setTimeout(r, 200));
  ws.send(JSON.stringify({ type: 'Subscribe', topics: ['Order-Intent-Changed'] }));
  await new Promise((r) => setTimeout(r, 200));
  return {
    cred,
    call: (method: string, p: string, body?: unknown) => request(method, p, token, body),
    close: () => ws.close(),
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

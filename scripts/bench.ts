/**
 * `npm run bench`: compose → `filled` frame latency of N paper market orders at fixed concurrency,
 * and beside it, on the same Temporal server in the same run, the floor: an empty workflow running
 * one no-op activity. Prints p50/p99 of both and their ratio. Self-contained: its own in-memory
 * Temporal dev server, a fresh database (DATABASE_URL's server, else embedded PostgreSQL), the api
 * and the worker in this process. BENCH_N (default 200), BENCH_CONCURRENCY (default 8).
 */
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import WebSocket from 'ws';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { loadConfig } from '../config.js';
import { temporalConnectionOptions } from '../temporal-connection.js';
import { openOrm } from '../db/orm.js';
import { ensureTenant, issueCredential } from '../db/seed.js';
import { startApi } from '../api/server.js';
import { createWorker } from '../worker/worker.js';
import { publishMark } from '../activities/market/marks.js';
import { loadRecordedMarket } from '../activities/market/recorded.js';
import { tickAt } from '../domain/market/replay.js';
import { Decimal } from '../domain/decimal.js';
import { ensurePostgres, freshDatabase } from './lib/postgres.js';
import { freePort, startTemporalDev } from './lib/temporal-dev.js';

const N = Number(process.env.BENCH_N ?? 200);
const C = Number(process.env.BENCH_CONCURRENCY ?? 8);
const ROOT = path.resolve(import.meta.dirname, '..');
Runtime.install({ logger: new DefaultLogger('ERROR') });

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
async function pool<T>(n: number, c: number, job: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: c }, async () => {
    while (next < n) {
      const i = next++;
      out[i] = await job(i);
    }
  }));
  return out;
}

console.log(`bench: N=${N} orders, concurrency ${C}; starting an in-memory Temporal dev server and a fresh database`);
const temporalDev = await startTemporalDev({ port: await freePort(), uiPort: null, dbFilename: null });
const pgServer = await ensurePostgres({ dataDir: path.join(ROOT, '.data/pg') });
const db = await freshDatabase(pgServer.url, 'platform_bench');

const config = loadConfig({ DATABASE_URL: db.url, TEMPORAL_ADDRESS: temporalDev.address, JWT_SECRET: randomBytes(32).toString('hex'), PORT: '0', WORKER_HTTP_PORT: '0', MARK_FEED: 'off', LOG_LEVEL: 'silent' });
const logger = pino({ level: 'silent' });
const orm = await openOrm(config.databaseUrl);
const api = await startApi({ config, orm, logger });
const worker = await createWorker({ config, orm, logger });
const running = worker.run();

// A real recorded BTC mark, refreshed so it never goes stale.
const market = await loadRecordedMarket('BTC');
const tick = tickAt(market, market.startMs, 'paper', 'BTC.PAPER', Date.now(), new Decimal(1));
await publishMark(orm, { ...tick, ts: Date.now() });
const refresh = setInterval(() => void publishMark(orm, { ...tick, ts: Date.now() }), 1000);

const tenant = await ensureTenant(orm, { slug: 'bench', displayName: 'Bench', origins: [] });
const cred = await issueCredential(orm, { tenantId: tenant.id, audience: 'trader', tier: 'fullTrading', account: { depositUsd: '100000000' } });
const call = async (method: string, p: string, token?: string, body?: unknown): Promise<any> => {
  const res = await fetch(`${api.baseUrl}${p}`, { method, headers: { 'x-tenant-slug': 'bench', 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: body === undefined ? undefined : JSON.stringify(body) });
  return res.json();
};
const { token } = await call('POST', '/api/auth/api-token', undefined, { apiKey: cred.apiKey, apiSecret: cred.apiSecret });
const boot = await call('POST', '/api/auth/bootstrap', token);
const ws = new WebSocket(boot.data.riskEngineWss.endpoint, { headers: { 'x-tenant-slug': 'bench' } });
await new Promise((r) => ws.once('open', r));
const filledAt = new Map<string, (t: number) => void>();
ws.on('message', (raw) => {
  const f = JSON.parse(String(raw));
  if (f.type === 'Order-Intent-Update' && f.data.state === 'filled') filledAt.get(f.data.clientOrderId)?.(performance.now());
});
ws.send(JSON.stringify({ type: 'Authenticate', token: boot.data.riskEngineWss.token }));
await new Promise((r) => setTimeout(r, 200));
ws.send(JSON.stringify({ type: 'Subscribe', topics: ['Order-Intent-Changed'] }));
await new Promise((r) => setTimeout(r, 200));

// Warm-up (bundle caches, connections), not measured.
await pool(C, C, async (i) => call('POST', '/api/v1/oms/intents', token, { venue: 'paper', symbol: 'BTC.PAPER', side: i % 2 ? 'sell' : 'buy', type: 'market', qty: '0.001', clientOrderId: `warm-${i}` }));
await new Promise((r) => setTimeout(r, 2000));

const t0 = performance.now();
const orderMs = await pool(N, C, async (i) => {
  const clientOrderId = `bench-${i}`;
  const done = new Promise<number>((resolve) => filledAt.set(clientOrderId, resolve));
  const start = performance.now();
  const res = await call('POST', '/api/v1/oms/intents', token, { venue: 'paper', symbol: 'BTC.PAPER', side: i % 2 ? 'sell' : 'buy', type: 'market', qty: '0.001', clientOrderId });
  if (!res.intentId) throw new Error(`compose failed: ${JSON.stringify(res)}`);
  return (await done) - start;
});
const orderWall = performance.now() - t0;

// The floor: empty workflow + one no-op activity, same server, same concurrency.
const floorConn = await NativeConnection.connect(temporalConnectionOptions({ address: temporalDev.address }));
const floorWorker = await Worker.create({ connection: floorConn, taskQueue: 'bench-floor', workflowsPath: path.join(ROOT, 'scripts/bench/noop-workflow.ts'), activities: { noop: async () => undefined } });
const floorRun = floorWorker.run();
const clientConn = await Connection.connect(temporalConnectionOptions({ address: temporalDev.address }));
const client = new Client({ connection: clientConn });
await pool(C, C, async (i) => client.workflow.execute('noopWorkflow', { taskQueue: 'bench-floor', workflowId: `floor-warm-${i}` }));
const f0 = performance.now();
const floorMs = await pool(N, C, async (i) => {
  const start = performance.now();
  await client.workflow.execute('noopWorkflow', { taskQueue: 'bench-floor', workflowId: `floor-${i}` });
  return performance.now() - start;
});
const floorWall = performance.now() - f0;

const row = (name: string, xs: number[], wall: number) =>
  `${name.padEnd(44)} p50 ${pct(xs, 50).toFixed(1).padStart(7)} ms   p99 ${pct(xs, 99).toFixed(1).padStart(7)} ms   ${(xs.length / (wall / 1000)).toFixed(1).padStart(6)} /s`;
console.log('');
console.log(row('paper market order, compose → filled frame', orderMs, orderWall));
console.log(row('floor: empty workflow + one no-op activity', floorMs, floorWall));
console.log(`${'ratio (order / floor)'.padEnd(44)} p50 ${(pct(orderMs, 50) / pct(floorMs, 50)).toFixed(2).padStart(7)} x    p99 ${(pct(orderMs, 99) / pct(floorMs, 99)).toFixed(2).padStart(7)} x`);

clearInterval(refresh);
ws.close();
floorWorker.shutdown();
await floorRun;
await floorConn.close();
await clientConn.close();
worker.shutdown();
await running;
await api.stop();
await orm.close();
await db.drop();
await temporalDev.stop();
await pgServer.stop();

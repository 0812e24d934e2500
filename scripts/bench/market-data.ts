/**
 * Market-data benchmark (issue 5), printed and written to `.data/bench-market.json`:
 *
 * 1. `/ws/quotes` fan-out: BENCH_SOCKETS (2,000) clients on one api process subscribe to
 *    `paper:BTC.PAPER`; BENCH_TICKS (200) marks are published at 20/s through `publishMark` (the
 *    feed's path: upsert → NOTIFY → quotes hub → outbox). Per socket: share of ticks delivered;
 *    latency publish → receipt from the quote's `ts` (the publish wall time). Beside it, in the same
 *    run, a bare `ws` server broadcasting the same payloads to the same number of clients.
 *    Clients run in this process (their event loop is shared with the server: both sides pay it
 *    equally, so the comparison is fair; absolute latencies are pessimistic).
 * 2. HTTP: candles, tape and quotes through the real api (auth, tenant, validation, PostgreSQL)
 *    beside a Koa hello-world, same load loop, BENCH_HTTP_CONCURRENCY (50) for BENCH_HTTP_MS (5 s).
 *
 * Self-contained: a fresh database on DATABASE_URL's server (else embedded PostgreSQL) and an
 * in-memory Temporal dev server (the api connects to one; no workflow runs here).
 */
import path from 'node:path';
import { mkdirSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { pino } from 'pino';
import Koa from 'koa';
import WebSocket, { WebSocketServer } from 'ws';
import { loadConfig } from '../../config.js';
import { openOrm, migrateUp } from '../../db/orm.js';
import { ensureTenant, issueCredential } from '../../db/seed.js';
import { startApi } from '../../api/server.js';
import { publishMark } from '../../activities/market/marks.js';
import { loadRecordedMarket } from '../../activities/market/recorded.js';
import { loadRecordedCandles } from '../../activities/market/candles.js';
import { startStreamProducer } from '../../activities/market/streams.js';
import { tickAt } from '../../domain/market/replay.js';
import { Decimal } from '../../domain/decimal.js';
import { ensurePostgres } from '../lib/postgres.js';
import { freePort, startTemporalDev } from '../lib/temporal-dev.js';

const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 2000);
const TICKS = Number(process.env.BENCH_TICKS ?? 200);
const TICK_EVERY_MS = 50;
const HTTP_C = Number(process.env.BENCH_HTTP_CONCURRENCY ?? 50);
const HTTP_MS = Number(process.env.BENCH_HTTP_MS ?? 5000);
const ROOT = path.resolve(import.meta.dirname, '../..');

const pct = (xs: number[], p: number) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

/** Opens `n` clients to `url`, each sending `hello` once open; resolves when all are open. */
async function openClients(url: string, n: number, hello: string | null, onFrame: (i: number, data: string) => void): Promise<WebSocket[]> {
  const out: WebSocket[] = [];
  for (let start = 0; start < n; start += 200) {
    await Promise.all(
      Array.from({ length: Math.min(200, n - start) }, (_, k) => {
        const i = start + k;
        const ws = new WebSocket(url, { headers: { 'x-tenant-slug': 'bench' } });
        out[i] = ws;
        ws.on('message', (d) => onFrame(i, String(d)));
        return new Promise<void>((resolve, reject) => {
          ws.once('open', () => (hello && ws.send(hello), resolve()));
          ws.once('error', reject);
        });
      }),
    );
  }
  return out;
}

/** Per-socket delivery and latency figures of one fan-out run. */
function fanoutFigures(received: number[][], ticks: number) {
  const counts = received.map((r) => r.length).sort((a, b) => a - b);
  const all = received.flat();
  return { sockets: received.length, ticks, deliveredMinPct: (100 * counts[0]) / ticks, deliveredMedianPct: (100 * pct(counts, 50)) / ticks, frames: all.length, p50Ms: pct(all, 50), p99Ms: pct(all, 99), maxMs: all.reduce((m, x) => Math.max(m, x), 0) };
}

/** Fixed-concurrency GET loop for `ms`: req/s and latency percentiles; non-2xx answers are counted. */
async function load(url: string, headers: Record<string, string>) {
  const lat: number[] = [];
  let errors = 0;
  const end = Date.now() + HTTP_MS;
  await Promise.all(
    Array.from({ length: HTTP_C }, async () => {
      while (Date.now() < end) {
        const t = performance.now();
        const res = await fetch(url, { headers });
        await res.arrayBuffer();
        if (!res.ok) errors++;
        lat.push(performance.now() - t);
      }
    }),
  );
  return { requests: lat.length, reqPerSec: Math.round(lat.length / (HTTP_MS / 1000)), p50Ms: +pct(lat, 50).toFixed(2), p99Ms: +pct(lat, 99).toFixed(2), errors };
}

console.log(`bench market: ${SOCKETS} sockets × ${TICKS} ticks at ${1000 / TICK_EVERY_MS}/s; HTTP ${HTTP_C} concurrent for ${HTTP_MS} ms per route`);
const temporalDev = await startTemporalDev({ port: await freePort(), uiPort: null, dbFilename: null }); // the api's Temporal client needs a server; no workflow runs
const pgServer = await ensurePostgres({ dataDir: path.join(ROOT, '.data/pg') });
const dbName = `platform_bench_market_${Date.now()}`;
const admin = new pg.Client({ connectionString: pgServer.url });
await admin.connect();
await admin.query(`create database "${dbName}"`);
const url = new URL(pgServer.url);
url.pathname = `/${dbName}`;
const config = loadConfig({ DATABASE_URL: url.toString(), TEMPORAL_ADDRESS: temporalDev.address, JWT_SECRET: randomBytes(32).toString('hex'), PORT: '0', MARK_FEED: 'off', LOG_LEVEL: 'silent' });
const logger = pino({ level: 'silent' });
const orm = await openOrm(config.databaseUrl);
await migrateUp(orm);
await loadRecordedCandles(config.databaseUrl);
const api = await startApi({ config, orm, logger });
const producer = await startStreamProducer({ databaseUrl: config.databaseUrl, logger });
const market = await loadRecordedMarket('BTC');
const ticks = Array.from({ length: TICKS }, (_, i) => tickAt(market, market.startMs + Math.round(((market.endMs - market.startMs) * i) / TICKS), 'paper', 'BTC.PAPER', 0, new Decimal(1)));
await publishMark(orm, { ...ticks[0], ts: Date.now() });

// 1a. /ws/quotes through the platform
const received: number[][] = Array.from({ length: SOCKETS }, () => []);
const platformClients = await openClients(`${api.baseUrl.replace('http', 'ws')}/ws/quotes`, SOCKETS, JSON.stringify({ type: 'Subscribe', topics: ['paper:BTC.PAPER'] }), (i, d) => {
  const f = JSON.parse(d);
  if (f.type === 'Quote' && f.mark !== ticks[0].mark.toFixed()) received[i].push(Date.now() - Date.parse(f.ts));
});
await sleep(1000);
for (let i = 1; i <= TICKS; i++) {
  const t = ticks[i % TICKS];
  await publishMark(orm, { ...t, mark: t.mark.plus(new Decimal(i).div(1000)), ts: Date.now() }); // every tick a distinct mark
  await sleep(TICK_EVERY_MS);
}
await sleep(2000);
const platform = fanoutFigures(received, TICKS);
platformClients.forEach((ws) => ws.terminate());

// 1b. bare ws broadcast, same payloads and clients
const wss = new WebSocketServer({ port: 0 });
const bareReceived: number[][] = Array.from({ length: SOCKETS }, () => []);
const bareClients = await openClients(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, SOCKETS, null, (i, d) => bareReceived[i].push(Date.now() - Date.parse(JSON.parse(d).ts)));
for (let i = 1; i <= TICKS; i++) {
  const t = ticks[i % TICKS];
  const payload = JSON.stringify({ type: 'Quote', seq: i, venue: 'paper', symbol: 'BTC.PAPER', mark: t.mark.toFixed(), bid: t.bid.toFixed(), ask: t.ask.toFixed(), ts: new Date().toISOString() });
  for (const c of wss.clients) c.send(payload);
  await sleep(TICK_EVERY_MS);
}
await sleep(2000);
const bare = fanoutFigures(bareReceived, TICKS);
bareClients.forEach((ws) => ws.terminate());
await new Promise((r) => wss.close(r));

// 2. HTTP
const tenant = await ensureTenant(orm, { slug: 'bench', displayName: 'Bench', origins: [] });
const cred = await issueCredential(orm, { tenantId: tenant.id, audience: 'trader', tier: 'readonly', account: { depositUsd: '1000' } });
const { token } = (await (await fetch(`${api.baseUrl}/api/auth/api-token`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-tenant-slug': 'bench' }, body: JSON.stringify({ apiKey: cred.apiKey, apiSecret: cred.apiSecret }) })).json()) as { token: string };
const headers = { 'x-tenant-slug': 'bench', authorization: `Bearer ${token}` };
await fetch(`${api.baseUrl}/api/v1/market/tape/paper/BTC.PAPER`, { headers }); // opens the stream (cold cache)
await sleep(600);
const hello = new Koa().use((ctx) => void (ctx.body = { hello: 'world' }));
const helloServer = hello.listen(0, '127.0.0.1');
await new Promise((r) => helloServer.once('listening', r));
const http = {
  koaHelloWorld: await load(`http://127.0.0.1:${(helloServer.address() as AddressInfo).port}/`, {}),
  candles1m100: await load(`${api.baseUrl}/api/v1/market/candles/paper/BTC.PAPER?interval=1m&limit=100`, headers),
  tape50: await load(`${api.baseUrl}/api/v1/market/tape/paper/BTC.PAPER?limit=50`, headers),
  quote: await load(`${api.baseUrl}/api/v1/market/quotes/paper/BTC.PAPER`, headers),
};
helloServer.close();

const figures = { at: new Date().toISOString(), node: process.version, fanout: { platformWsQuotes: platform, bareWs: bare }, http };
console.log('\n/ws/quotes fan-out (same process, same clients)');
console.table({ '/ws/quotes': platform, 'bare ws': bare });
console.log('\nHTTP (fixed concurrency loop)');
console.table(http);
mkdirSync(path.join(ROOT, '.data'), { recursive: true });
writeFileSync(path.join(ROOT, '.data/bench-market.json'), JSON.stringify(figures, null, 2));
console.log('written to .data/bench-market.json');

await producer.stop();
await api.stop();
await orm.close();
await admin.query(`drop database "${dbName}" with (force)`).catch(() => undefined);
await admin.end();
await pgServer.stop();
await temporalDev.stop();
process.exit(0);

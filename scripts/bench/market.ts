/**
 * Market-data benchmark (`npm run bench` runs it after the order benchmark; alone:
 * `bash scripts/run.sh scripts/bench/market.ts` or `npm run bench:market`). Prints a table and
 * writes `.data/bench-market.json`:
 *
 * 1. `/ws/quotes` fan-out: BENCH_SOCKETS (2,000) clients on ONE api process (`startApi`, MARK_FEED
 *    off, no worker) subscribe to `paper:BTC.PAPER`; BENCH_TICKS (200) marks are published at 20/s
 *    through `publishMark` (the feed's path: upsert → NOTIFY → quotes hub → outbox) with `ts` = the
 *    publish wall time. Per socket: share of the published ticks it received (quotes coalesce
 *    "latest wins" for a slow socket, so < 100 % is possible and is reported as measured);
 *    latency publish → receipt from each frame's `ts`. Beside it, a bare `ws` WebSocketServer in the
 *    api's process broadcasting the same 200 payloads to the same number of clients.
 * 2. HTTP: candles, tape and quotes through the real api (trader bearer token, tenant, validation,
 *    PostgreSQL) beside a Koa hello-world and two api floors (discovery: no tenant, no bearer;
 *    venues: full middleware, static answer), autocannon at BENCH_HTTP_CONCURRENCY (50)
 *    connections for BENCH_HTTP_SECONDS (5) each. A route answering 404 is reported as "route not
 *    present" (not measured, no crash); tape's first calls answer 503 cold_cache and are retried.
 *
 * The load side (the 2,000 WebSocket clients and autocannon) runs in a CHILD process (this file
 * forked with `--clients`), so the servers' event loop is not shared with the clients' JSON parsing
 * and timers; both share one machine and clock (latency = child's Date.now() − frame ts).
 *
 * Self-contained: a fresh database on DATABASE_URL's server (else embedded PostgreSQL) and an
 * in-memory Temporal dev server (the api's client needs one; no workflow runs).
 */
import path from 'node:path';
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket, { WebSocketServer } from 'ws';
import { pct } from '../lib/measure.js';

const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 2000);
const TICKS = Number(process.env.BENCH_TICKS ?? 200);
const TICK_EVERY_MS = 50;
const HTTP_C = Number(process.env.BENCH_HTTP_CONCURRENCY ?? 50);
const HTTP_SECONDS = Number(process.env.BENCH_HTTP_SECONDS ?? 5);
const ROOT = path.resolve(import.meta.dirname, '../..');

type Msg =
  | { id: number; cmd: 'open'; url: string; n: number; hello: string | null }
  | { id: number; cmd: 'collect'; since: number; ticks: number }
  | { id: number; cmd: 'http'; url: string; headers: Record<string, string> };

/** The child's answer to `collect`: per-socket delivery (frames, % of published ticks) and latency (ms). */
interface FanoutFigures {
  sockets: number;
  ticks: number;
  frames: number;
  framesPerSocketMin: number;
  framesPerSocketMedian: number;
  deliveredMinPct: number;
  deliveredMedianPct: number;
  socketsWithAllTicks: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** The child's answer to `http` (autocannon): requests, req/s, latency (ms), non-2xx answers and errors. */
interface HttpFigures {
  requests: number;
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

// ---------------------------------------------------------------- child: the load generator
if (process.argv.includes('--clients')) {
  const { default: autocannon } = await import('autocannon');
  let sockets: WebSocket[] = [];
  let received: { ts: number; at: number }[][] = [];
  const reply = (id: number, data: unknown) => process.send!({ id, data });
  const handle = async (m: Msg) => {
    if (m.cmd === 'open') {
      sockets = [];
      received = Array.from({ length: m.n }, () => []);
      for (let start = 0; start < m.n; start += 200) {
        await Promise.all(
          Array.from({ length: Math.min(200, m.n - start) }, (_, k) => {
            const i = start + k;
            const ws = new WebSocket(m.url, { headers: { 'x-tenant-slug': 'bench' } });
            sockets[i] = ws;
            ws.on('message', (d) => {
              const at = Date.now();
              const f = JSON.parse(String(d));
              if (f.type === 'Quote') received[i].push({ ts: Date.parse(f.ts), at });
            });
            return new Promise<void>((resolve, reject) => {
              ws.once('open', () => (m.hello && ws.send(m.hello), resolve()));
              ws.once('error', reject);
            });
          }),
        );
      }
      reply(m.id, { opened: sockets.length });
    } else if (m.cmd === 'collect') {
      // Only quotes published during the run (ts ≥ since): the snapshot sent on Subscribe is not a tick.
      const per = received.map((r) => r.filter((q) => q.ts >= m.since));
      const counts = per.map((r) => new Set(r.map((q) => q.ts)).size).sort((a, b) => a - b);
      const lat = per.flatMap((r) => r.map((q) => q.at - q.ts));
      sockets.forEach((ws) => ws.terminate());
      reply(m.id, {
        sockets: per.length,
        ticks: m.ticks,
        frames: lat.length,
        framesPerSocketMin: counts[0],
        framesPerSocketMedian: pct(counts, 50),
        deliveredMinPct: +((100 * counts[0]) / m.ticks).toFixed(1),
        deliveredMedianPct: +((100 * pct(counts, 50)) / m.ticks).toFixed(1),
        socketsWithAllTicks: counts.filter((c) => c >= m.ticks).length,
        p50Ms: pct(lat, 50),
        p99Ms: pct(lat, 99),
        maxMs: lat.reduce((a, b) => Math.max(a, b), 0),
      });
    } else if (m.cmd === 'http') {
      const r = await autocannon({ url: m.url, headers: m.headers, connections: HTTP_C, duration: HTTP_SECONDS });
      reply(m.id, {
        requests: r.requests.total,
        reqPerSec: Math.round(r.requests.average),
        p50Ms: r.latency.p50,
        p99Ms: r.latency.p99,
        non2xx: r.non2xx,
        errors: r.errors + r.timeouts,
      });
    }
  };
  // A failed command ends the child as an unhandled rejection would: the error printed, exit code 1.
  process.on('message', (m: Msg) => {
    handle(m).catch((err: unknown) => {
      console.error('bench market (clients):', err);
      process.exit(1);
    });
  });
  process.send!({ id: 0, data: 'ready' });
} else {
  await main();
}

async function main() {
  const { pino } = await import('pino');
  const { default: Koa } = await import('koa');
  const { benchConfig, benchCredential } = await import('../lib/bench.js');
  const { openOrm } = await import('../../db/orm.js');
  const { startApi } = await import('../../api/server.js');
  const { publishMark } = await import('../../modules/market/feeds/marks.js');
  const { loadRecordedMarket } = await import('../../modules/market/feeds/recorded.js');
  const { loadRecordedCandles } = await import('../../modules/market/feeds/candles.js');
  const { startStreamProducer } = await import('../../modules/market/feeds/streams.js');
  const { tickAt } = await import('../../domain/market/replay.js');
  const { Decimal } = await import('../../domain/decimal.js');
  const { ensurePostgres, freshDatabase } = await import('../lib/postgres.js');
  const { freePort, startTemporalDev } = await import('../lib/temporal-dev.js');

  // The load generator, in its own process.
  const child: ChildProcess = fork(import.meta.filename, ['--clients'], {
    execArgv: ['--import', 'tsx'],
    stdio: 'inherit',
  });
  const pending = new Map<number, (d: unknown) => void>();
  let nextId = 1;
  const ready = new Promise((r) => pending.set(0, r));
  child.on('message', (raw) => {
    const m = raw as { id: number; data: unknown };
    pending.get(m.id)?.(m.data);
    pending.delete(m.id);
  });
  /** Sends a command to the child; resolves its answer (`T`: the command's figures). */
  const ask = <T>(m: Record<string, unknown>): Promise<T> =>
    new Promise<T>((r) => {
      const id = nextId++;
      pending.set(id, (d) => r(d as T));
      child.send({ ...m, id });
    });
  await ready;

  console.log(
    `bench market: ${SOCKETS} sockets × ${TICKS} ticks at ${1000 / TICK_EVERY_MS}/s; HTTP autocannon ${HTTP_C} connections × ${HTTP_SECONDS} s per route; clients in a child process`,
  );
  const temporalDev = await startTemporalDev({ port: await freePort(), uiPort: null, dbFilename: null });
  const pgServer = await ensurePostgres({ dataDir: path.join(ROOT, '.data/pg') });
  const db = await freshDatabase(pgServer.url, 'platform_bench_market');
  const config = benchConfig(db.url, temporalDev.address);
  const logger = pino({ level: 'silent' });
  const orm = await openOrm(config.databaseUrl);
  await loadRecordedCandles(config.databaseUrl);
  const api = await startApi({ config, orm, logger });
  const producer = await startStreamProducer({ databaseUrl: config.databaseUrl, logger });
  const market = await loadRecordedMarket('BTC');
  const ticks = Array.from({ length: TICKS }, (_, i) =>
    tickAt(
      market,
      market.startMs + Math.round(((market.endMs - market.startMs) * i) / TICKS),
      'paper',
      'BTC.PAPER',
      0,
      new Decimal(1),
    ),
  );
  await publishMark(orm, { ...ticks[0], ts: Date.now() - 10_000 });

  // 1a. /ws/quotes through the platform
  await ask({
    cmd: 'open',
    url: `${api.baseUrl.replace('http', 'ws')}/ws/quotes`,
    n: SOCKETS,
    hello: JSON.stringify({ type: 'Subscribe', topics: ['paper:BTC.PAPER'] }),
  });
  await sleep(1000);
  let since = Date.now();
  let last = 0;
  for (let i = 0; i < TICKS; i++) {
    const t = ticks[i];
    let ts = Date.now();
    if (ts <= last) ts = last + 1; // distinct ts per tick (ms resolution): counts identify ticks
    last = ts;
    await publishMark(orm, { ...t, mark: t.mark.plus(new Decimal(i + 1).div(1000)), ts }); // every tick a distinct mark
    await sleep(TICK_EVERY_MS);
  }
  await sleep(2000);
  const platform = await ask<FanoutFigures>({ cmd: 'collect', since, ticks: TICKS });

  // 1b. bare ws broadcast from this (the api's) process, same payloads, same client process
  const wss = new WebSocketServer({ port: 0 });
  await ask({ cmd: 'open', url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, n: SOCKETS, hello: null });
  await sleep(1000);
  since = Date.now();
  last = 0;
  for (let i = 0; i < TICKS; i++) {
    const t = ticks[i];
    let ts = Date.now();
    if (ts <= last) ts = last + 1;
    last = ts;
    const payload = JSON.stringify({
      type: 'Quote',
      seq: i + 1,
      venue: 'paper',
      symbol: 'BTC.PAPER',
      mark: t.mark.toFixed(),
      bid: t.bid.toFixed(),
      ask: t.ask.toFixed(),
      ts: new Date(ts).toISOString(),
    });
    for (const c of wss.clients) c.send(payload);
    await sleep(TICK_EVERY_MS);
  }
  await sleep(2000);
  const bare = await ask<FanoutFigures>({ cmd: 'collect', since, ticks: TICKS });
  await new Promise((r) => wss.close(r));

  // 2. HTTP
  const cred = await benchCredential(orm, { slug: 'bench', displayName: 'Bench' }, 'readonly', '1000');
  const { token } = (await (
    await fetch(`${api.baseUrl}/api/auth/api-token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-tenant-slug': 'bench' },
      body: JSON.stringify({ apiKey: cred.apiKey, apiSecret: cred.apiSecret }),
    })
  ).json()) as { token: string };
  const headers = { 'x-tenant-slug': 'bench', authorization: `Bearer ${token}` };
  const routes = {
    // Floors, to tell the api's middleware cost from each market route's own work: the api's Koa
    // stack with no tenant and no bearer (static catalog; sent without headers), then the full
    // middleware (tenant lookup; bearer: JWT verify, revocation and credential lookups; gate) in
    // front of a static answer.
    discoveryNoAuth: [`${api.baseUrl}/api/v1/discovery`, {}],
    venuesAuthFloor: [`${api.baseUrl}/api/v1/venues`, headers],
    candles1m100: [`${api.baseUrl}/api/v1/market/candles/paper/BTC.PAPER?interval=1m&limit=100`, headers],
    tape50: [`${api.baseUrl}/api/v1/market/tape/paper/BTC.PAPER?limit=50`, headers],
    quote: [`${api.baseUrl}/api/v1/market/quotes/paper/BTC.PAPER`, headers],
  } satisfies Record<string, [string, Record<string, string>]>;
  const hello = new Koa().use((ctx) => void (ctx.body = { hello: 'world' }));
  const helloServer = hello.listen(0, '127.0.0.1');
  await new Promise((r) => helloServer.once('listening', r));
  const http: Record<string, (HttpFigures & { bodyBytes: number }) | { status: string }> = {
    koaHelloWorld: {
      ...(await ask<HttpFigures>({
        cmd: 'http',
        url: `http://127.0.0.1:${(helloServer.address() as AddressInfo).port}/`,
        headers: {},
      })),
      bodyBytes: 17,
    },
  };
  helloServer.close();
  for (const [k, [u, h]] of Object.entries(routes)) {
    // Warm up: the first tape call answers 503 cold_cache until the stream opens. A 404 means the
    // route is not in this tree (yet): reported, not measured; any other failure is reported too.
    let status = 0;
    let bytes = 0;
    for (let tries = 0; tries < 20; tries++) {
      const res = await fetch(u, { headers: h });
      bytes = (await res.arrayBuffer()).byteLength;
      status = res.status;
      if (status !== 503) break;
      await sleep(500);
    }
    if (status === 404) http[k] = { status: 'route not present (404)' };
    else if (status < 200 || status > 299) http[k] = { status: `not measured: warm-up answered ${status}` };
    else http[k] = { ...(await ask<HttpFigures>({ cmd: 'http', url: u, headers: h })), bodyBytes: bytes };
  }

  const figures = {
    at: new Date().toISOString(),
    node: process.version,
    clients: 'child process',
    fanout: { platformWsQuotes: platform, bareWs: bare },
    http,
  };
  const fanRow = (name: string, f: FanoutFigures) => [
    name,
    f.ticks,
    `${f.framesPerSocketMin} / ${f.framesPerSocketMedian}`,
    `${f.deliveredMinPct} % / ${f.deliveredMedianPct} %`,
    `${f.socketsWithAllTicks}/${f.sockets}`,
    `${f.p50Ms} ms`,
    `${f.p99Ms} ms`,
    `${f.maxMs} ms`,
  ];
  console.log(
    `\n/ws/quotes fan-out: ${SOCKETS} sockets, ${TICKS} ticks published at ${1000 / TICK_EVERY_MS}/s (server: one process; clients: child process; latency = receipt − publish wall time, 1 ms resolution)`,
  );
  printTable(
    [
      '',
      'ticks published',
      'frames/socket min / median',
      'delivered min / median',
      'sockets with all',
      'p50',
      'p99',
      'max',
    ],
    [fanRow('/ws/quotes (publishMark → NOTIFY → hub)', platform), fanRow('bare ws broadcast', bare)],
  );
  console.log(
    `\nHTTP (autocannon, ${HTTP_C} connections, ${HTTP_SECONDS} s each; load generator in the child process)`,
  );
  printTable(
    ['route', 'req/s', 'p50', 'p99', 'requests', 'non-2xx', 'errors', 'body bytes'],
    Object.entries(http).map(([k, r]) =>
      'status' in r
        ? [k, r.status, '', '', '', '', '', '']
        : [k, r.reqPerSec, `${r.p50Ms} ms`, `${r.p99Ms} ms`, r.requests, r.non2xx, r.errors, r.bodyBytes],
    ),
  );
  mkdirSync(path.join(ROOT, '.data'), { recursive: true });
  writeFileSync(path.join(ROOT, '.data/bench-market.json'), JSON.stringify(figures, null, 2));
  console.log('written to .data/bench-market.json');

  child.kill();
  await producer.stop();
  await api.stop();
  await orm.close();
  await db.drop().catch(() => undefined);
  await pgServer.stop();
  await temporalDev.stop();
  process.exit(0);
}

function printTable(head: string[], rows: unknown[][]): void {
  const cells = [head, ...rows.map((r) => r.map(String))];
  const w = head.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(w[i]) : c.padStart(w[i]))).join('  ');
  console.log(line(head));
  console.log(w.map((n) => '-'.repeat(n)).join('  '));
  for (const r of cells.slice(1)) console.log(line(r));
}

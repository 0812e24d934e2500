/**
 * Market-data benchmark (`npm run bench` runs it after the order benchmark; alone:
 * `bash scripts/run.sh scripts/bench/market.ts` or `npm run bench:market`). Prints a table and
 * writes `.data/bench-market.json`:
 *
 * 1. `/ws/quotes` fan-out: BENCH_SOCKETS (10,000, goal P3) clients on ONE api process (`startApi`, MARK_FEED
 *    off, no worker) subscribe to `paper:BTC.PAPER`; BENCH_TICKS (200) marks are published on a
 *    fixed 20/s schedule (tick i due 50·i ms after the first; a tick that overruns its slot delays
 *    the next, so the achieved rate is reported) through `publishMark` (the feed's path: upsert →
 *    NOTIFY → quotes hub → outbox) with `ts` = the publish wall time. Per socket: the ticks it
 *    received (quotes coalesce "latest wins" for a slow socket, so < 100 % is possible and is
 *    reported as measured); latency publish → receipt from each frame's `ts`; sockets the server
 *    closed. Per run: time to open the sockets, ticks/s achieved, the server process's CPU time per
 *    frame and the event-loop utilisation of server and clients over the ticks (a loop near 1 is
 *    the bottleneck). Beside it, a bare `ws` WebSocketServer in the api's process broadcasting the
 *    same payloads on the same schedule to the same number of clients, and the goal line
 *    `P3 /ws/quotes <N> sockets: … PASS|FAIL` (every socket got every tick and p99 ≤ 1.2 × bare's;
 *    `p3` in the JSON), with a note when even the bare broadcast could not hold 20 ticks/s.
 * 2. HTTP: candles, tape and quotes through the real api (trader bearer token, tenant, validation,
 *    PostgreSQL) beside a Koa hello-world and two api floors (discovery: no tenant, no bearer;
 *    venues: full middleware, static answer), autocannon at BENCH_HTTP_CONCURRENCY (50)
 *    connections for BENCH_HTTP_SECONDS (5; 0 skips part 2) each. A route answering 404 is reported
 *    as "route not present" (not measured, no crash); tape's first calls answer 503 cold_cache and
 *    are retried.
 *
 * The load side runs in BENCH_CLIENT_PROCS (1) CHILD processes (this file forked with `--clients`;
 * the sockets split evenly, autocannon in the first), so the servers' event loop is not shared with
 * the clients' parsing and timers; all share one machine and clock (latency = child's Date.now() −
 * frame ts). Clients read only a quote's `ts` (no JSON.parse), the same work for both servers, and
 * send `Ping` every 30 s as docs/api.md §6.3 rule 5 asks (else the api closes them after 60 s).
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
import { goalLine, recordBench } from '../lib/bench-report.js';

const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 10_000);
const TICKS = Number(process.env.BENCH_TICKS ?? 200);
const TICK_EVERY_MS = 50;
/** Client processes the fan-out's sockets are split over (the HTTP load runs in the first). */
const CLIENT_PROCS = Number(process.env.BENCH_CLIENT_PROCS ?? 1);
/** Each client socket sends this every KEEPALIVE_MS (both servers get it; the bare one ignores it). */
const PING = JSON.stringify({ type: 'Ping' });
const KEEPALIVE_MS = 30_000;
/** Goal P3: the platform's p99 at most this multiple of the bare broadcast's. */
const P3_RATIO = 1.2;
const HTTP_C = Number(process.env.BENCH_HTTP_CONCURRENCY ?? 50);
const HTTP_SECONDS = Number(process.env.BENCH_HTTP_SECONDS ?? 5);
const ROOT = path.resolve(import.meta.dirname, '../..');

type Msg =
  | { id: number; cmd: 'open'; url: string; n: number; hello: string | null }
  | { id: number; cmd: 'start' }
  | { id: number; cmd: 'collect'; since: number }
  | { id: number; cmd: 'http'; url: string; headers: Record<string, string> };

/**
 * One client process's answer to `collect`: per socket the distinct ticks (quotes with `ts` ≥ `since`)
 * it received; `latencyMs[k]`: frames received k ms after their publish; sockets the server closed
 * before `collect`, by `<code> <reason>`; the process's event-loop utilisation (0–1) since `start`.
 */
interface ClientShare {
  ticksPerSocket: number[];
  latencyMs: number[];
  closed: Record<string, number>;
  eventLoopUtilisation: number;
}

/** Per-socket delivery (frames, % of published ticks) and latency (ms) over every client process. */
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
  /** Sockets closed by the server before the figures were collected, by `<code> <reason>`. */
  closedByServer: Record<string, number>;
  /** Time to open and subscribe every socket, s. */
  openSeconds: number;
  /**
   * CPU time (user + system) of the server's process from the first tick to 2 s after the last, per frame received,
   * µs: the cost of a frame whatever else the machine runs.
   */
  serverCpuUsPerFrame: number;
  /** Ticks published per second, achieved (the schedule is 20/s; less when a tick's publish overran its slot). */
  ticksPerSecond: number;
  /** Event-loop utilisation (0–1) over the ticks: the server's process and each client process. */
  eventLoopUtilisation: { server: number; clients: number[] };
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
  /** Per socket, the frames received as flat pairs: publish ts, receipt time (epoch ms). */
  let received: number[][] = [];
  let closed: Record<string, number> = {};
  let keepAlive: NodeJS.Timeout | undefined;
  let elu = performance.eventLoopUtilization();
  const reply = (id: number, data: unknown) => process.send!({ id, data });
  const handle = async (m: Msg) => {
    if (m.cmd === 'open') {
      sockets = [];
      received = Array.from({ length: m.n }, () => []);
      closed = {};
      // Keep-alive as docs/api.md §6.3 rule 5 asks (the server closes a socket after 60 s of client
      // silence): each open socket sends Ping every 30 s, spread evenly (a slice of them every 100 ms).
      let next = 0;
      const slice = Math.ceil(m.n / (KEEPALIVE_MS / 100));
      keepAlive = setInterval(() => {
        for (let k = 0; k < slice; k++) {
          const ws = sockets[(next + k) % m.n];
          if (ws?.readyState === WebSocket.OPEN) ws.send(PING);
        }
        next = (next + slice) % m.n;
      }, 100);
      for (let start = 0; start < m.n; start += 200) {
        await Promise.all(
          Array.from({ length: Math.min(200, m.n - start) }, (_, k) => {
            const i = start + k;
            const ws = new WebSocket(m.url, { headers: { 'x-tenant-slug': 'bench' } });
            sockets[i] = ws;
            // Only the quote's ts is read, without JSON.parse: the same (cheap) work for both servers.
            ws.on('message', (d) => {
              const at = Date.now();
              const s = String(d);
              if (!s.includes('"type":"Quote"')) return;
              const from = s.indexOf('"ts":"') + 6;
              received[i].push(Date.parse(s.slice(from, s.indexOf('"', from))), at);
            });
            ws.on('close', (code, reason) => {
              const why = `${code} ${String(reason)}`.trim();
              closed[why] = (closed[why] ?? 0) + 1;
            });
            return new Promise<void>((resolve, reject) => {
              ws.once('open', () => (m.hello && ws.send(m.hello), resolve()));
              ws.once('error', reject);
            });
          }),
        );
      }
      reply(m.id, { opened: sockets.length });
    } else if (m.cmd === 'start') {
      elu = performance.eventLoopUtilization();
      reply(m.id, null);
    } else if (m.cmd === 'collect') {
      const eventLoopUtilisation = +performance.eventLoopUtilization(elu).utilization.toFixed(2);
      const byServer = closed;
      clearInterval(keepAlive);
      sockets.forEach((ws) => ws.removeAllListeners('close').terminate());
      // Only quotes published during the run (ts ≥ since): the snapshot sent on Subscribe is not a tick.
      const latencyMs: number[] = [];
      const ticksPerSocket = received.map((r) => {
        const ticks = new Set<number>();
        for (let k = 0; k < r.length; k += 2) {
          if (r[k] < m.since) continue;
          ticks.add(r[k]);
          const ms = Math.max(0, r[k + 1] - r[k]);
          latencyMs[ms] = (latencyMs[ms] ?? 0) + 1;
        }
        return ticks.size;
      });
      reply(m.id, {
        ticksPerSocket,
        latencyMs: Array.from(latencyMs, (c) => c ?? 0),
        closed: byServer,
        eventLoopUtilisation,
      } satisfies ClientShare);
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

  // The load generator, in its own processes (BENCH_CLIENT_PROCS), each holding a share of the sockets.
  const children = Array.from({ length: CLIENT_PROCS }, () => {
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
    /** Sends a command to this child; resolves its answer (`T`: the command's figures). */
    const ask = <T>(m: Record<string, unknown>): Promise<T> =>
      new Promise<T>((r) => {
        const id = nextId++;
        pending.set(id, (d) => r(d as T));
        child.send({ ...m, id });
      });
    return { child, ready, ask };
  });
  await Promise.all(children.map((c) => c.ready));
  /** The HTTP load runs in the first child. */
  const ask = children[0].ask;
  /** Sends a command to every child; their answers in child order. */
  const askAll = <T>(m: (k: number) => Record<string, unknown>): Promise<T[]> =>
    Promise.all(children.map((c, k) => c.ask<T>(m(k))));

  /**
   * One fan-out run: SOCKETS clients (split over the children) open `url` and send `hello`; after 1 s,
   * TICKS ticks on a fixed 20/s schedule, `tick(i, ts)` publishing tick i with publish time `ts`
   * (distinct per tick, ms resolution: counts identify ticks); 2 s later the children's figures, merged.
   */
  const fanout = async (
    url: string,
    hello: string | null,
    tick: (i: number, ts: number) => Promise<void> | void,
  ): Promise<FanoutFigures> => {
    const opening = Date.now();
    await askAll((k) => ({ cmd: 'open', url, hello, n: share(k) }));
    const openSeconds = +((Date.now() - opening) / 1000).toFixed(1);
    await sleep(1000);
    await askAll(() => ({ cmd: 'start' }));
    const elu = performance.eventLoopUtilization();
    const cpu = process.cpuUsage();
    const since = Date.now();
    let last = 0;
    for (let i = 0; i < TICKS; i++) {
      const ts = Math.max(Date.now(), last + 1);
      last = ts;
      await tick(i, ts);
      await sleep(Math.max(0, since + (i + 1) * TICK_EVERY_MS - Date.now()));
    }
    const server = +performance.eventLoopUtilization(elu).utilization.toFixed(2);
    const ticksPerSecond = +((1000 * TICKS) / (Date.now() - since)).toFixed(1);
    await sleep(2000);
    const used = process.cpuUsage(cpu);
    const shares = await askAll<ClientShare>(() => ({ cmd: 'collect', since }));
    return merge(shares, { openSeconds, server, ticksPerSecond, serverCpuMs: (used.user + used.system) / 1000 });
  };

  console.log(
    `bench market: ${SOCKETS} sockets × ${TICKS} ticks at ${1000 / TICK_EVERY_MS}/s; HTTP autocannon ${HTTP_C} connections × ${HTTP_SECONDS} s per route; clients in ${CLIENT_PROCS} child process(es)`,
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

  // 1a. /ws/quotes through the platform; every tick a distinct mark
  const platform = await fanout(
    `${api.baseUrl.replace('http', 'ws')}/ws/quotes`,
    JSON.stringify({ type: 'Subscribe', topics: ['paper:BTC.PAPER'] }),
    (i, ts) => publishMark(orm, { ...ticks[i], mark: ticks[i].mark.plus(new Decimal(i + 1).div(1000)), ts }),
  );

  // 1b. bare ws broadcast from this (the api's) process, same payloads, same client processes
  const wss = new WebSocketServer({ port: 0 });
  const bare = await fanout(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, null, (i, ts) => {
    const t = ticks[i];
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
  });
  await new Promise((r) => wss.close(r));

  // 2. HTTP (BENCH_HTTP_SECONDS=0 skips it)
  /** Per route: the child's figures, the body size and this process's CPU time per request, µs. */
  const http: Record<string, (HttpFigures & { bodyBytes: number; cpuUsPerRequest: number }) | { status: string }> = {};
  /** Runs the child's autocannon on `url`, timing this process's CPU (the server's: the load runs in the child). */
  const measureHttp = async (url: string, headers: Record<string, string>) => {
    const cpu = process.cpuUsage();
    const figures = await ask<HttpFigures>({ cmd: 'http', url, headers });
    const used = process.cpuUsage(cpu);
    return { ...figures, cpuUsPerRequest: Math.round((used.user + used.system) / Math.max(1, figures.requests)) };
  };
  if (HTTP_SECONDS > 0) {
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
      accountState: [`${api.baseUrl}/api/v1/accounts/${cred.accountId}/state`, headers],
    } satisfies Record<string, [string, Record<string, string>]>;
    const hello = new Koa().use((ctx) => void (ctx.body = { hello: 'world' }));
    const helloServer = hello.listen(0, '127.0.0.1');
    await new Promise((r) => helloServer.once('listening', r));
    http.koaHelloWorld = {
      ...(await measureHttp(`http://127.0.0.1:${(helloServer.address() as AddressInfo).port}/`, {})),
      bodyBytes: 17,
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
      else http[k] = { ...(await measureHttp(u, h)), bodyBytes: bytes };
    }
  }

  const ratio = platform.p99Ms / bare.p99Ms;
  const p3Pass = ratio <= P3_RATIO && platform.socketsWithAllTicks === SOCKETS;
  const figures = {
    at: new Date().toISOString(),
    node: process.version,
    clients: `${CLIENT_PROCS} child process${CLIENT_PROCS > 1 ? 'es' : ''}`,
    fanout: { platformWsQuotes: platform, bareWs: bare },
    /** Goal P3: every socket gets every tick, p99 ≤ 1.2 × the bare ws broadcast's of the same run. */
    p3: {
      sockets: SOCKETS,
      socketsWithAll: platform.socketsWithAllTicks,
      p99Ms: platform.p99Ms,
      bareP99Ms: bare.p99Ms,
    },
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
    Object.entries(f.closedByServer)
      .map(([why, n]) => `${n} (${why})`)
      .join(', ') || '0',
    `${f.openSeconds} s`,
    f.ticksPerSecond,
    `${f.serverCpuUsPerFrame} µs`,
    `${f.eventLoopUtilisation.server} / ${f.eventLoopUtilisation.clients.join(' ')}`,
  ];
  console.log(
    `\n/ws/quotes fan-out: ${SOCKETS} sockets, ${TICKS} ticks published at ${1000 / TICK_EVERY_MS}/s (server: one process; clients: ${figures.clients}; latency = receipt − publish wall time, 1 ms resolution; event loop busy = utilisation over the ticks)`,
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
      'closed by server',
      'open',
      'ticks/s',
      'server CPU/frame',
      'event loop busy server / clients',
    ],
    [fanRow('/ws/quotes (publishMark → NOTIFY → hub)', platform), fanRow('bare ws broadcast', bare)],
  );
  goalLine(
    `P3 /ws/quotes ${SOCKETS} sockets`,
    `sockets with every tick ${platform.socketsWithAllTicks}/${SOCKETS}, p99 ${platform.p99Ms} ms vs bare ${bare.p99Ms} ms (ratio ${ratio.toFixed(2)})`,
    `≤ ${P3_RATIO} and all sockets`,
    p3Pass,
  );
  if (bare.ticksPerSecond < 0.97 * (1000 / TICK_EVERY_MS))
    console.log(
      `P3 note: the bare ws broadcast itself held only ${bare.ticksPerSecond} of ${1000 / TICK_EVERY_MS} ticks/s (server event loop ${bare.eventLoopUtilisation.server} busy, ${bare.serverCpuUsPerFrame} µs CPU per frame): this machine cannot fan out ${SOCKETS} sockets at ${1000 / TICK_EVERY_MS} ticks/s, so the goal cannot be shown here`,
    );
  if (HTTP_SECONDS > 0) {
    console.log(
      `\nHTTP (autocannon, ${HTTP_C} connections, ${HTTP_SECONDS} s each; load generator in the first child process)`,
    );
    printTable(
      ['route', 'req/s', 'p50', 'p99', 'requests', 'non-2xx', 'errors', 'body bytes', 'server CPU/request'],
      Object.entries(http).map(([k, r]) =>
        'status' in r
          ? [k, r.status, '', '', '', '', '', '', '']
          : [
              k,
              r.reqPerSec,
              `${r.p50Ms} ms`,
              `${r.p99Ms} ms`,
              r.requests,
              r.non2xx,
              r.errors,
              r.bodyBytes,
              `${r.cpuUsPerRequest} µs`,
            ],
      ),
    );
  }
  const rps = (k: string) => {
    const r = http[k];
    return r && !('status' in r) ? r : undefined;
  };
  const [helloRps, quoteRps, stateRps] = ['koaHelloWorld', 'quote', 'accountState'].map((k) => rps(k));
  if (helloRps && quoteRps && stateRps) {
    const p4 = { helloRps: helloRps.reqPerSec, quoteRps: quoteRps.reqPerSec, stateRps: stateRps.reqPerSec };
    const share = (x: number) => Math.round((1000 * x) / p4.helloRps) / 10;
    console.log('');
    goalLine(
      'P4 GET /market/quotes/paper/BTC.PAPER',
      `${p4.quoteRps} req/s = ${share(p4.quoteRps)} % of hello-world's ${p4.helloRps}, ${quoteRps.non2xx} non-2xx`,
      '≥ 25 %, 0 non-2xx',
      share(p4.quoteRps) >= 25 && quoteRps.non2xx === 0,
    );
    goalLine(
      'P4 GET /accounts/{id}/state',
      `${p4.stateRps} req/s = ${share(p4.stateRps)} % of hello-world's ${p4.helloRps}, ${stateRps.non2xx} non-2xx`,
      '≥ 15 %, 0 non-2xx',
      share(p4.stateRps) >= 15 && stateRps.non2xx === 0,
    );
    recordBench({ p3: figures.p3, p4 });
  } else recordBench({ p3: figures.p3 });
  console.log('p3, p4 written to .data/bench.json');
  mkdirSync(path.join(ROOT, '.data'), { recursive: true });
  writeFileSync(path.join(ROOT, '.data/bench-market.json'), JSON.stringify(figures, null, 2));
  console.log('written to .data/bench-market.json');

  for (const c of children) c.child.kill();
  await producer.stop();
  await api.stop();
  await orm.close();
  await db.drop().catch(() => undefined);
  await pgServer.stop();
  await temporalDev.stop();
  process.exit(0);
}

/** Sockets held by client process `k` (of CLIENT_PROCS). */
function share(k: number): number {
  return Math.floor(SOCKETS / CLIENT_PROCS) + (k < SOCKETS % CLIENT_PROCS ? 1 : 0);
}

/** The fan-out figures of a run from every client process's share (percentiles: nearest rank over all frames). */
function merge(
  shares: ClientShare[],
  run: { openSeconds: number; server: number; ticksPerSecond: number; serverCpuMs: number },
): FanoutFigures {
  const counts = shares.flatMap((s) => s.ticksPerSocket).sort((a, b) => a - b);
  const latency: number[] = [];
  for (const s of shares) s.latencyMs.forEach((n, ms) => (latency[ms] = (latency[ms] ?? 0) + n));
  const frames = latency.reduce((a, n) => a + (n ?? 0), 0);
  /** The p-th percentile latency, ms: the smallest ms with at least ⌈p % of frames⌉ frames at or below it. */
  const at = (p: number) => {
    const rank = Math.max(1, Math.ceil((p / 100) * frames));
    let seen = 0;
    for (let ms = 0; ms < latency.length; ms++) if ((seen += latency[ms] ?? 0) >= rank) return ms;
    return NaN;
  };
  const closedByServer: Record<string, number> = {};
  for (const s of shares)
    for (const [why, n] of Object.entries(s.closed)) closedByServer[why] = (closedByServer[why] ?? 0) + n;
  return {
    sockets: counts.length,
    ticks: TICKS,
    frames,
    framesPerSocketMin: counts[0],
    framesPerSocketMedian: pct(counts, 50),
    deliveredMinPct: +((100 * counts[0]) / TICKS).toFixed(1),
    deliveredMedianPct: +((100 * pct(counts, 50)) / TICKS).toFixed(1),
    socketsWithAllTicks: counts.filter((c) => c >= TICKS).length,
    p50Ms: at(50),
    p99Ms: at(99),
    maxMs: frames ? latency.length - 1 : NaN,
    closedByServer,
    openSeconds: run.openSeconds,
    ticksPerSecond: run.ticksPerSecond,
    serverCpuUsPerFrame: +((1000 * run.serverCpuMs) / frames).toFixed(1),
    eventLoopUtilisation: { server: run.server, clients: shares.map((s) => s.eventLoopUtilisation) },
  };
}

function printTable(head: string[], rows: unknown[][]): void {
  const cells = [head, ...rows.map((r) => r.map(String))];
  const w = head.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(w[i]) : c.padStart(w[i]))).join('  ');
  console.log(line(head));
  console.log(w.map((n) => '-'.repeat(n)).join('  '));
  for (const r of cells.slice(1)) console.log(line(r));
}

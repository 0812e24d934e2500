/**
 * `npm run bench:processes` (README "Processes and ports"): start time and resident memory of the api
 * and the worker, run from the sources with tsx (`node --import tsx api/server.ts`, `worker/main.ts`)
 * and compiled (`node dist/api/server.js`, `dist/worker/main.js` with the prebuilt workflow bundle;
 * `npm run build` runs first when `dist/` has no bundle).
 *
 * Against its own in-memory Temporal dev server (temporal-dev.yml's search attributes) and a fresh
 * database on DATABASE_URL's server (else embedded PostgreSQL), dropped at the end. Each mode is
 * started once unmeasured (tsx's transform cache, the recorded candles loaded into the database),
 * then BENCH_PROC_RUNS times (default 3), each run with the defaults of production (replay mark feed
 * and market streams on) on a task queue of its own:
 * - start: from spawn to `GET /healthz` answering 200 (api, polled every 20 ms), and to the worker's
 *   `worker started` log line (Temporal worker created, feeds started, schedules ensured);
 * - RSS idle: VmRSS of each process (/proc/<pid>/status) 2 s after both have started;
 * - RSS after load: once BENCH_PROC_ORDERS (default 200) paper market orders of 0.001 BTC.PAPER,
 *   BENCH_PROC_CONCURRENCY (default 8) at a time, composed through the api, have all filled
 *   (polled in `order_intents`), plus 1 s;
 * - stop: SIGTERM → exit, and the exit code (0 expected).
 * Prints one line per run and the medians; writes `.data/bench-processes.json`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { openOrm } from '../../db/orm.js';
import { fromRoot } from '../../project-root.js';
import { ensurePostgres, freshDatabase } from '../lib/postgres.js';
import { benchCredential } from '../lib/bench.js';
import { freePort, startTemporalDev } from '../lib/temporal-dev.js';
import { killOnExit } from '../lib/children.js';

const RUNS = Number(process.env.BENCH_PROC_RUNS ?? 3);
const ORDERS = Number(process.env.BENCH_PROC_ORDERS ?? 200);
const CONCURRENCY = Number(process.env.BENCH_PROC_CONCURRENCY ?? 8);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The two ways of running a process: its command line per entry point. */
const MODES = {
  tsx: { api: ['--import', 'tsx', 'api/server.ts'], worker: ['--import', 'tsx', 'worker/main.ts'] },
  dist: { api: ['dist/api/server.js'], worker: ['dist/worker/main.js'] },
} as const;
type Mode = keyof typeof MODES;

interface Run {
  mode: Mode;
  run: number;
  apiStartMs: number;
  workerStartMs: number;
  apiRssIdleMb: number;
  workerRssIdleMb: number;
  apiRssLoadMb: number;
  workerRssLoadMb: number;
  loadMs: number;
  apiStopMs: number;
  workerStopMs: number;
  apiExit: number | string | null;
  workerExit: number | string | null;
}

/** Resident set size of `pid` in MB (VmRSS). */
function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return Math.round((kb / 1024) * 10) / 10;
}

/** Sends SIGTERM and resolves with the time to exit (ms) and the exit code or signal. */
function stop(c: ChildProcess): Promise<{ ms: number; exit: number | string | null }> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    c.once('exit', (code, signal) => resolve({ ms: Math.round(performance.now() - t0), exit: code ?? signal }));
    c.kill('SIGTERM');
  });
}

if (!existsSync(fromRoot('dist/workflows-bundle.js'))) {
  console.log('bench:processes: no dist/ yet, running npm run build');
  const b = spawnSync(process.execPath, ['--import', 'tsx', fromRoot('scripts/build.ts')], {
    cwd: fromRoot(),
    stdio: 'inherit',
  });
  if (b.status !== 0) process.exit(1);
}

console.log(
  `bench:processes: ${RUNS} runs per mode, ${ORDERS} orders at concurrency ${CONCURRENCY}; starting an in-memory Temporal dev server and a fresh database`,
);
const temporal = await startTemporalDev({ port: await freePort(), uiPort: null, dbFilename: null });
const pgServer = await ensurePostgres({ dataDir: fromRoot('.data/pg') });
const fresh = await freshDatabase(pgServer.url, 'platform_bench_proc');
const databaseUrl = fresh.url;
const orm = await openOrm(databaseUrl);
const cred = await benchCredential(
  orm,
  { slug: 'bench-proc', displayName: 'Bench processes' },
  'fullTrading',
  '100000000',
);
await orm.close();
const db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
db.on('error', (err) => console.error(`bench:processes: idle database connection lost: ${err.message}`));
const jwtSecret = randomBytes(32).toString('hex');

/** Starts the api and worker of `mode`, measures, loads (unless `load` is false: the warm-up), measures, stops. */
async function cycle(mode: Mode, run: number, load: boolean): Promise<Run> {
  const port = await freePort();
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: `oms-bench-${mode}-${run}`,
    JWT_SECRET: jwtSecret,
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'info',
    WORKER_HTTP_PORT: '0', // the worker's ops server on any free port
  };
  const base = `http://127.0.0.1:${port}`;
  const spawnOf = (args: readonly string[]) =>
    killOnExit(spawn(process.execPath, [...args], { cwd: fromRoot(), env, stdio: ['ignore', 'pipe', 'pipe'] }));

  const apiT0 = performance.now();
  const api = spawnOf(MODES[mode].api);
  const workerT0 = performance.now();
  const worker = spawnOf(MODES[mode].worker);
  api.stderr.resume();
  worker.stderr.resume(); // the Temporal SDK's own log lines
  api.stdout.resume();
  const workerStarted = new Promise<number>((resolve, reject) => {
    createInterface({ input: worker.stdout }).on(
      'line',
      (l) => l.includes('"worker started"') && resolve(performance.now() - workerT0),
    );
    worker.once('exit', (code) => reject(new Error(`${mode} worker exited (${code}) before starting`)));
  });
  for (;;) {
    if (
      await fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (api.exitCode !== null) throw new Error(`${mode} api exited (${api.exitCode}) before answering /healthz`);
    await sleep(20);
  }
  const apiStartMs = performance.now() - apiT0;
  const workerStartMs = await workerStarted;
  await sleep(2000);
  const idle = { api: rssMb(api.pid!), worker: rssMb(worker.pid!) };

  let loadMs = 0;
  let loaded = idle;
  if (load) {
    const call = async (method: string, p: string, token?: string, body?: unknown) => {
      const res = await fetch(`${base}${p}`, {
        method,
        headers: {
          'x-tenant-slug': 'bench-proc',
          'content-type': 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      // Of the answers only the mint's `token` is read (the others are checked by status, printed on failure).
      return { status: res.status, body: (await res.json()) as { token?: string } };
    };
    const { body: minted } = await call('POST', '/api/auth/api-token', undefined, {
      apiKey: cred.apiKey,
      apiSecret: cred.apiSecret,
    });
    for (let i = 0; (await call('GET', '/api/v1/market/quotes/paper/BTC.PAPER', minted.token)).status !== 200; i++) {
      if (i > 300) throw new Error('no BTC.PAPER mark from the replay feed within 30 s');
      await sleep(100);
    }
    const t0 = performance.now();
    const prefix = `${mode}-${run}-`;
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < ORDERS) {
          const i = next++;
          const res = await call('POST', '/api/v1/oms/intents', minted.token, {
            venue: 'paper',
            symbol: 'BTC.PAPER',
            side: i % 2 ? 'sell' : 'buy',
            type: 'market',
            qty: '0.001',
            clientOrderId: `${prefix}${i}`,
          });
          if (res.status !== 201) throw new Error(`compose failed: ${res.status} ${JSON.stringify(res.body)}`);
        }
      }),
    );
    for (;;) {
      const { rows } = await db.query(
        `select count(*)::int as n from order_intents where client_order_id like $1 and state in ('filled', 'rejected', 'canceled')`,
        [`${prefix}%`],
      );
      if (rows[0].n >= ORDERS) break;
      await sleep(100);
    }
    loadMs = performance.now() - t0;
    await sleep(1000);
    loaded = { api: rssMb(api.pid!), worker: rssMb(worker.pid!) };
  }
  const [apiStop, workerStop] = await Promise.all([stop(api), stop(worker)]);
  return {
    mode,
    run,
    apiStartMs: Math.round(apiStartMs),
    workerStartMs: Math.round(workerStartMs),
    apiRssIdleMb: idle.api,
    workerRssIdleMb: idle.worker,
    apiRssLoadMb: loaded.api,
    workerRssLoadMb: loaded.worker,
    loadMs: Math.round(loadMs),
    apiStopMs: apiStop.ms,
    workerStopMs: workerStop.ms,
    apiExit: apiStop.exit,
    workerExit: workerStop.exit,
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const runs: Run[] = [];
try {
  for (const mode of Object.keys(MODES) as Mode[]) {
    await cycle(mode, 0, false); // warm-up, not reported
    for (let run = 1; run <= RUNS; run++) {
      const r = await cycle(mode, run, true);
      runs.push(r);
      console.log(
        `${mode.padEnd(4)} #${run}  api start ${String(r.apiStartMs).padStart(5)} ms, RSS ${r.apiRssIdleMb} → ${r.apiRssLoadMb} MB, stop ${r.apiStopMs} ms (exit ${r.apiExit})` +
          ` | worker start ${String(r.workerStartMs).padStart(5)} ms, RSS ${r.workerRssIdleMb} → ${r.workerRssLoadMb} MB, stop ${r.workerStopMs} ms (exit ${r.workerExit}) | ${ORDERS} orders filled in ${r.loadMs} ms`,
      );
    }
  }
  console.log(
    '\nmedians                          api start   api RSS idle / after load   worker start   worker RSS idle / after load',
  );
  for (const mode of Object.keys(MODES) as Mode[]) {
    const of = (k: keyof Run) => median(runs.filter((r) => r.mode === mode).map((r) => r[k] as number));
    console.log(
      `${mode.padEnd(32)} ${String(of('apiStartMs')).padStart(6)} ms   ${String(of('apiRssIdleMb')).padStart(7)} / ${String(of('apiRssLoadMb')).padEnd(7)} MB   ${String(of('workerStartMs')).padStart(9)} ms   ${String(of('workerRssIdleMb')).padStart(7)} / ${of('workerRssLoadMb')} MB`,
    );
  }
  mkdirSync(fromRoot('.data'), { recursive: true });
  writeFileSync(
    fromRoot('.data/bench-processes.json'),
    JSON.stringify({ orders: ORDERS, concurrency: CONCURRENCY, runs }, null, 2),
  );
} finally {
  await db.end();
  await fresh.drop();
  await pgServer.stop();
  await temporal.stop();
}

/**
 * `npm run bench:cluster` (README "Running at scale"): paper market orders on the reference cluster
 * (scripts/lib/cluster.ts: the Temporal server with PostgreSQL persistence) with 1, 2 and 3 workers and
 * 1 or 2 api processes, beside the same load on the dev server (`npm run bench`'s platform: the CLI's
 * dev server, api and worker in one process). Each shape runs BENCH_CLUSTER_CONCURRENCY (32) loops for
 * BENCH_CLUSTER_SECONDS (20), each loop composing an order and waiting for its `filled` frame on
 * `/ws/risk`, spread over 8 accounts (each account's orders take turns on its row lock). Per shape:
 * intents/s, compose → filled p50/p99 (ms), and where the CPU went (seconds of CPU per second of
 * wall time, from /proc, per process group: Temporal server, PostgreSQL, apis, workers, this driver).
 * Prints a table and merges `cluster` into `.data/bench.json`. PostgreSQL: the dev server's platform on
 * `DATABASE_URL`'s server, else the embedded one of `.data/pg`; the cluster on an embedded server of its own
 * (the Temporal databases and the platform's beside each other, as `npm run cluster` has them).
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { Decimal } from '../../domain/decimal.js';
import { tickAt } from '../../domain/market/replay.js';
import { openOrm } from '../../db/orm.js';
import { publishMark } from '../../modules/market/feeds/marks.js';
import { loadRecordedMarket } from '../../modules/market/feeds/recorded.js';
import { benchTrader, paperMarketOrder, startBenchPlatform, type IntentUpdate } from '../lib/bench.js';
import { recordBench } from '../lib/bench-report.js';
import { startCluster } from '../lib/cluster.js';
import { cpuMeter, pct, postgresPids, sustain } from '../lib/measure.js';
import { freshDatabase, startRestartablePostgres } from '../lib/postgres.js';

const C = Number(process.env.BENCH_CLUSTER_CONCURRENCY ?? 32);
const SECONDS = Number(process.env.BENCH_CLUSTER_SECONDS ?? 20);
const ACCOUNTS = 8;
Runtime.install({ logger: new DefaultLogger('ERROR') });

/** One shape's figures. */
interface ShapeFigures {
  shape: string;
  intentsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** CPU seconds per wall second, by process group. */
  cpu: Record<string, number>;
}

/**
 * Runs the load against traders (each with its own api and `/ws/risk` socket) and measures; `groups` names
 * the processes whose CPU is read (group → pids, read again at the end for PostgreSQL's backends).
 */
async function measure(
  shape: string,
  traders: Awaited<ReturnType<typeof benchTrader>>[],
  filledAt: Map<string, (t: number) => void>,
  groups: () => Record<string, number[]>,
): Promise<ShapeFigures> {
  const cpuSince = cpuMeter(groups);
  const ms: number[] = [];
  const run = await sustain(C, SECONDS, async (i) => {
    const clientOrderId = `${shape}-${i}`;
    const done = new Promise<number>((resolve) => filledAt.set(clientOrderId, resolve));
    const start = performance.now();
    const res = await traders[i % traders.length].call(
      'POST',
      '/api/v1/oms/intents',
      paperMarketOrder(i, clientOrderId),
    );
    if (!res.intentId) throw new Error(`compose failed: ${JSON.stringify(res)}`);
    ms.push((await done) - start);
  });
  const wallS = run.wallMs / 1000;
  const cpu = Object.fromEntries(
    Object.entries(cpuSince()).map(([g, ms]) => [g, Number((ms / 1000 / wallS).toFixed(2))]),
  );
  const figures = {
    shape,
    intentsPerSec: Number((run.jobs / wallS).toFixed(1)),
    p50Ms: Number(pct(ms, 50).toFixed(1)),
    p99Ms: Number(pct(ms, 99).toFixed(1)),
    cpu,
  };
  console.log(
    `${shape.padEnd(26)} ${String(figures.intentsPerSec).padStart(7)} /s   p50 ${String(figures.p50Ms).padStart(7)} ms   p99 ${String(figures.p99Ms).padStart(7)} ms   cpu ${Object.entries(
      cpu,
    )
      .map(([g, v]) => `${g} ${v}`)
      .join(', ')}`,
  );
  return figures;
}

/** Traders on `apis` (round robin), each calling its api and listening on its `/ws/risk`. */
async function traders(
  orm: Awaited<ReturnType<typeof openOrm>>,
  apis: string[],
  filledAt: Map<string, (t: number) => void>,
) {
  const onIntent = (intent: IntentUpdate) => {
    if (intent.state === 'filled') filledAt.get(intent.clientOrderId)?.(performance.now());
  };
  const out: Awaited<ReturnType<typeof benchTrader>>[] = [];
  // One after another: the first one creates the tenant.
  for (let a = 0; a < ACCOUNTS; a++)
    out.push(
      await benchTrader(
        { orm, api: { baseUrl: apis[a % apis.length] } },
        { slug: 'bench', displayName: 'Bench' },
        onIntent,
      ),
    );
  return out;
}

/** Publishes a recorded BTC.PAPER mark now and every second after; returns the stop function. */
async function markFeed(orm: Awaited<ReturnType<typeof openOrm>>) {
  const market = await loadRecordedMarket('BTC');
  const tick = tickAt(market, market.startMs, 'paper', 'BTC.PAPER', Date.now(), new Decimal(1));
  await publishMark(orm, { ...tick, ts: Date.now() });
  const timer = setInterval(() => void publishMark(orm, { ...tick, ts: Date.now() }), 1000);
  return () => clearInterval(timer);
}

const results: ShapeFigures[] = [];
console.log(`bench:cluster: concurrency ${C}, ${SECONDS} s per shape, ${ACCOUNTS} accounts`);

// The dev server (npm run bench's platform: api and worker in this process).
{
  const platform = await startBenchPlatform('platform_bench_dev');
  const stopMarks = await markFeed(platform.orm);
  const filledAt = new Map<string, (t: number) => void>();
  const ts = await traders(platform.orm, [platform.api.baseUrl], filledAt);
  results.push(
    await measure('dev server, 1 api + 1 worker', ts, filledAt, () => ({
      temporal: [platform.temporalPid],
      postgres: postgresPids(),
      'api+worker+driver': [process.pid],
    })),
  );
  for (const t of ts) t.close();
  stopMarks();
  await platform.stop();
}

// The cluster, grown shape by shape, on a PostgreSQL server of its own: 2 apis, 3 workers and the Temporal
// server's stores hold more connections than a default server's 100 (deploy/README.md "Connections").
const runDir = mkdtempSync(path.join(tmpdir(), 'bench-cluster-'));
chmodSync(runDir, 0o755); // as root, PostgreSQL runs as the user `postgres`, who must enter it
const pgServer = await startRestartablePostgres(path.join(runDir, 'pg'));
const platformDb = await freshDatabase(pgServer.url, 'platform_bench_cluster');
const cluster = await startCluster({
  databaseUrl: platformDb.url,
  apis: 1,
  workers: 1,
  ports: 'free',
  env: { JWT_SECRET: 'bench-cluster-jwt-secret-0123456789abcdef', MARK_FEED: 'off', LOG_LEVEL: 'warn' },
  runDir,
  // The processes' warnings and errors (LOG_LEVEL warn), for an answer that is not the expected one.
  log: (line) => /"level":(40|50|60)/.test(line) && console.log(line.slice(0, 600)),
});
const orm = await openOrm(platformDb.url);
const stopMarks = await markFeed(orm);
try {
  for (const [apis, workers] of [
    [1, 1],
    [1, 2],
    [1, 3],
    [2, 3],
  ]) {
    while (cluster.apis.length < apis) await cluster.addApi();
    while (cluster.workers.length < workers) await cluster.addWorker();
    const filledAt = new Map<string, (t: number) => void>();
    const ts = await traders(
      orm,
      cluster.apis.map((a) => a.url),
      filledAt,
    );
    results.push(
      await measure(`cluster, ${apis} api + ${workers} worker`, ts, filledAt, () => ({
        temporal: [cluster.temporal.pid],
        postgres: postgresPids(),
        apis: cluster.apis.map((a) => a.pid),
        workers: cluster.workers.map((w) => w.pid),
        driver: [process.pid],
      })),
    );
    for (const t of ts) t.close();
  }
} finally {
  stopMarks();
  await cluster.stop();
  await orm.close();
  await platformDb.drop();
  await pgServer.stop();
  rmSync(runDir, { recursive: true, force: true });
}
recordBench({ cluster: { concurrency: C, seconds: SECONDS, accounts: ACCOUNTS, shapes: results } });
console.log('cluster written to .data/bench.json');

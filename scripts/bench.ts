/**
 * `npm run bench` (first of three; README "Benchmark"): paper market orders against the floor, an
 * empty workflow running one no-op activity, on the same Temporal server in the same run.
 * - P1: compose → `filled` frame latency of BENCH_N (200) orders at BENCH_CONCURRENCY (8), beside
 *   the floor's at the same concurrency; goal p50 ≤ 1.5× the floor's.
 * - P2: orders composed by BENCH_P2_CONCURRENCY (64) loops for BENCH_P2_SECONDS (60), beside the floor
 *   run the same way for BENCH_P2_FLOOR_SECONDS (20) right before and right after them (the mean of the two: one
 *   window of the floor scattered 62-106 workflows/s within an hour here); goal intents/s ≥ 0.8× the floor's workflows/s,
 *   with 0 lost (answered 201 but not filled) and 0 duplicated (filled for more than their size),
 *   counted in PostgreSQL after the run; also the CPU time per order and per workflow of the floor (ms) of the Temporal
 *   dev server, this process and PostgreSQL (/proc), which says where an order costs more than the floor.
 * Orders go round robin to BENCH_ACCOUNTS (1) traders' accounts.
 * Prints each goal with PASS/FAIL and merges `p1`, `p2` into `.data/bench.json`. Self-contained: its
 * own in-memory Temporal dev server, a fresh database (DATABASE_URL's server, else embedded
 * PostgreSQL), the api and the worker in this process.
 */
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { isolateExecutionTimeout } from '../worker/isolate-timeout.js';
import { temporalConnectionOptions } from '../temporal-connection.js';
import { publishMark } from '../modules/market/feeds/marks.js';
import { loadRecordedMarket } from '../modules/market/feeds/recorded.js';
import { tickAt } from '../domain/market/replay.js';
import { Decimal } from '../domain/decimal.js';
import { noopWorkflow } from './bench/noop-workflow.js';
import { benchTrader, paperMarketOrder, startBenchPlatform } from './lib/bench.js';
import { cpuMeter, pct, pool, postgresPids, sustain } from './lib/measure.js';
import { goalLine, recordBench } from './lib/bench-report.js';

const N = Number(process.env.BENCH_N ?? 200);
const C = Number(process.env.BENCH_CONCURRENCY ?? 8);
const P2_C = Number(process.env.BENCH_P2_CONCURRENCY ?? 64);
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 1);
const P2_SECONDS = Number(process.env.BENCH_P2_SECONDS ?? 60);
const P2_FLOOR_SECONDS = Number(process.env.BENCH_P2_FLOOR_SECONDS ?? 20);
/** An order not filled this long after compose counts as lost (ms). */
const LOST_AFTER_MS = 30_000;
const ROOT = path.resolve(import.meta.dirname, '..');
Runtime.install({ logger: new DefaultLogger('ERROR') });

console.log(`bench: N=${N} orders, concurrency ${C}; starting an in-memory Temporal dev server and a fresh database`);
const platform = await startBenchPlatform('platform_bench');
const { orm } = platform;

// A real recorded BTC mark, refreshed so it never goes stale.
const market = await loadRecordedMarket('BTC');
const tick = tickAt(market, market.startMs, 'paper', 'BTC.PAPER', Date.now(), new Decimal(1));
await publishMark(orm, { ...tick, ts: Date.now() });
const refresh = setInterval(() => void publishMark(orm, { ...tick, ts: Date.now() }), 1000);

const filledAt = new Map<string, (t: number) => void>();
/** `x` rounded to `places` decimals (figures for the report). */
const round = (x: number, places = 1) => Number(x.toFixed(places));

// BENCH_ACCOUNTS traders, one account each; order i goes to trader i mod BENCH_ACCOUNTS (one account's
// orders take turns on its row lock, as the ledger requires; the floor's workflows share nothing).
const traders: Awaited<ReturnType<typeof benchTrader>>[] = [];
for (let a = 0; a < ACCOUNTS; a++)
  traders.push(
    await benchTrader(platform, { slug: 'bench', displayName: 'Bench' }, (intent) => {
      if (intent.state === 'filled') filledAt.get(intent.clientOrderId)?.(performance.now());
    }),
  );
const compose = (i: number, body: Record<string, unknown>) =>
  traders[i % ACCOUNTS].call('POST', '/api/v1/oms/intents', body);

// Warm-up (bundle caches, connections), not measured.
const order = paperMarketOrder;
await pool(Math.max(C, ACCOUNTS), C, async (i) => compose(i, order(i, `warm-${i}`)));
await new Promise((r) => setTimeout(r, 2000));

const t0 = performance.now();
const orderMs = await pool(N, C, async (i) => {
  const clientOrderId = `bench-${i}`;
  const done = new Promise<number>((resolve) => filledAt.set(clientOrderId, resolve));
  const start = performance.now();
  const res = await compose(i, order(i, clientOrderId));
  if (!res.intentId) throw new Error(`compose failed: ${JSON.stringify(res)}`);
  return (await done) - start;
});
const orderWall = performance.now() - t0;

// The floor: empty workflow + one no-op activity, same server, same concurrency.
const floorConn = await NativeConnection.connect(temporalConnectionOptions({ address: platform.temporalAddress }));
const floorWorker = await Worker.create({
  connection: floorConn,
  taskQueue: 'bench-floor',
  workflowsPath: path.join(ROOT, 'scripts/bench/noop-workflow.ts'),
  activities: { noop: async () => undefined },
  // As the platform's worker runs its sandbox (worker/isolate-timeout.ts): the floor shows Temporal's cost, not Node's watchdog's.
  ...isolateExecutionTimeout(0, (msg) => console.warn(msg)),
});
const floorRun = floorWorker.run();
const clientConn = await Connection.connect(temporalConnectionOptions({ address: platform.temporalAddress }));
const client = new Client({ connection: clientConn });
const floorOnce = (id: string) => client.workflow.execute(noopWorkflow, { taskQueue: 'bench-floor', workflowId: id });
await pool(C, C, async (i) => floorOnce(`floor-warm-${i}`));
const f0 = performance.now();
const floorMs = await pool(N, C, async (i) => {
  const start = performance.now();
  await floorOnce(`floor-${i}`);
  return performance.now() - start;
});
const floorWall = performance.now() - f0;

const row = (name: string, xs: number[], wall: number) =>
  `${name.padEnd(44)} p50 ${pct(xs, 50).toFixed(1).padStart(7)} ms   p99 ${pct(xs, 99).toFixed(1).padStart(7)} ms   ${(xs.length / (wall / 1000)).toFixed(1).padStart(6)} /s`;
console.log(`\nP1, concurrency ${C}, ${N} each`);
console.log(row('paper market order, compose → filled frame', orderMs, orderWall));
console.log(row('floor: empty workflow + one no-op activity', floorMs, floorWall));
const p1 = {
  p50Ms: round(pct(orderMs, 50)),
  p99Ms: round(pct(orderMs, 99)),
  floorP50Ms: round(pct(floorMs, 50)),
  ratioP50: round(pct(orderMs, 50) / pct(floorMs, 50), 2),
};
goalLine(
  `P1 compose → filled p50 at concurrency ${C}`,
  `${p1.p50Ms} ms = ${p1.ratioP50}× the floor's ${p1.floorP50Ms} ms`,
  '≤ 1.5×',
  p1.ratioP50 <= 1.5,
);

// P2: sustained throughput at P2_C between two windows of the floor run the same way; lost and duplicated counted in
// PostgreSQL.
console.log(
  `\nP2, concurrency ${P2_C}: the floor for ${P2_FLOOR_SECONDS} s, orders for ${P2_SECONDS} s, the floor again for ${P2_FLOOR_SECONDS} s`,
);
// Where the CPU goes, per workflow of the floor and per order: the Temporal dev server, this process (api, worker,
// floor worker, clients) and PostgreSQL (every backend of its server).
const cpuGroups = () => ({ temporal: [platform.temporalPid], bench: [process.pid], postgres: postgresPids() });
/** CPU ms per unit by process group, over `units` units since `since` started. */
const cpuPerUnit = (since: () => Record<string, number>, units: number) =>
  Object.fromEntries(Object.entries(since()).map(([g, ms]) => [g, round(ms / units, 2)]));
const cpuLine = (cpu: Record<string, number>) =>
  Object.entries(cpu)
    .map(([g, ms]) => `${g} ${ms}`)
    .join(', ');
/** One window of the floor at P2_C: workflows/s and CPU ms per workflow. */
const floorWindow = async (tag: string) => {
  const cpuSince = cpuMeter(cpuGroups);
  const run = await sustain(P2_C, P2_FLOOR_SECONDS, async (i) => void (await floorOnce(`floor-p2-${tag}-${i}`)));
  return { perSec: round(run.jobs / (run.wallMs / 1000), 1), cpuMs: cpuPerUnit(cpuSince, run.jobs) };
};
const floorBefore = await floorWindow('before');
const ordersCpuSince = cpuMeter(cpuGroups);
const composed: string[] = [];
const p2Ms: number[] = [];
const p2 = await sustain(P2_C, P2_SECONDS, async (i) => {
  const clientOrderId = `p2-${i}`;
  let filled: (t: number) => void = () => undefined;
  const done = new Promise<number>((resolve) => filledAt.set(clientOrderId, (filled = resolve)));
  const start = performance.now();
  const res = await compose(i, order(i, clientOrderId));
  if (!res.intentId) throw new Error(`compose failed: ${JSON.stringify(res)}`);
  composed.push(res.intentId as string);
  const timeout = setTimeout(() => filled(NaN), LOST_AFTER_MS);
  const at = await done;
  clearTimeout(timeout);
  if (!Number.isNaN(at)) p2Ms.push(at - start);
});
const ordersCpuMs = cpuPerUnit(ordersCpuSince, p2.jobs);
const floorAfter = await floorWindow('after');
const [counted] = await orm.em
  .fork()
  .getConnection()
  .execute<{ filled: number; duplicated: number }[]>(
    `select (select count(*)::int from order_intents where id in (select jsonb_array_elements_text(?::jsonb)) and state = 'filled') as filled,
            (select count(*)::int from (select i.id from order_intents i join fills f on f.intent_id = i.id
               where i.id in (select jsonb_array_elements_text(?::jsonb)) group by i.id, i.qty having sum(f.qty) > i.qty) d) as duplicated`,
    [JSON.stringify(composed), JSON.stringify(composed)],
  );
const p2Figures = {
  intentsPerSec: round(composed.length / (p2.wallMs / 1000), 1),
  floorPerSec: round((floorBefore.perSec + floorAfter.perSec) / 2, 1),
  floorBeforePerSec: floorBefore.perSec,
  floorAfterPerSec: floorAfter.perSec,
  /** CPU ms per order by process group (temporal, bench, postgres). */
  cpuMsPerIntent: ordersCpuMs,
  /** CPU ms per workflow of the floor by process group, both windows. */
  cpuMsPerFloorWorkflow: Object.fromEntries(
    Object.keys(floorBefore.cpuMs).map((g) => [g, round((floorBefore.cpuMs[g] + floorAfter.cpuMs[g]) / 2, 2)]),
  ),
  ratio: 0,
  composed: composed.length,
  lost: composed.length - counted.filled,
  duplicated: counted.duplicated,
  p50Ms: round(pct(p2Ms, 50)),
  p99Ms: round(pct(p2Ms, 99)),
};
p2Figures.ratio = round(p2Figures.intentsPerSec / p2Figures.floorPerSec, 2);
console.log(
  `orders: ${p2Figures.composed} in ${(p2.wallMs / 1000).toFixed(1)} s = ${p2Figures.intentsPerSec} /s, compose → filled p50 ${p2Figures.p50Ms} ms p99 ${p2Figures.p99Ms} ms; floor ${p2Figures.floorPerSec} workflows/s (${floorBefore.perSec} before, ${floorAfter.perSec} after)`,
);
console.log(
  `CPU ms per order: ${cpuLine(p2Figures.cpuMsPerIntent)}; per workflow of the floor: ${cpuLine(p2Figures.cpuMsPerFloorWorkflow)}`,
);
goalLine(
  `P2 intents/s at concurrency ${P2_C} for ${P2_SECONDS} s`,
  `${p2Figures.intentsPerSec} /s = ${p2Figures.ratio}× the floor's ${p2Figures.floorPerSec} /s, ${p2Figures.lost} lost, ${p2Figures.duplicated} duplicated`,
  '≥ 0.8×, 0 lost, 0 duplicated',
  p2Figures.ratio >= 0.8 && p2Figures.lost === 0 && p2Figures.duplicated === 0,
);
recordBench({ p1, p2: p2Figures });
console.log('p1, p2 written to .data/bench.json');

clearInterval(refresh);
for (const t of traders) t.close();
floorWorker.shutdown();
await floorRun;
await floorConn.close();
await clientConn.close();
await platform.stop();

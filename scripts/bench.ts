/**
 * `npm run bench`: compose → `filled` frame latency of N paper market orders at fixed concurrency,
 * and beside it, on the same Temporal server in the same run, the floor: an empty workflow running
 * one no-op activity. Prints p50/p99 of both and their ratio. Self-contained: its own in-memory
 * Temporal dev server, a fresh database (DATABASE_URL's server, else embedded PostgreSQL), the api
 * and the worker in this process. BENCH_N (default 200), BENCH_CONCURRENCY (default 8).
 */
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { temporalConnectionOptions } from '../temporal-connection.js';
import { publishMark } from '../modules/market/feeds/marks.js';
import { loadRecordedMarket } from '../modules/market/feeds/recorded.js';
import { tickAt } from '../domain/market/replay.js';
import { Decimal } from '../domain/decimal.js';
import { noopWorkflow } from './bench/noop-workflow.js';
import { benchTrader, startBenchPlatform } from './lib/bench.js';
import { pct, pool } from './lib/measure.js';

const N = Number(process.env.BENCH_N ?? 200);
const C = Number(process.env.BENCH_CONCURRENCY ?? 8);
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
const trader = await benchTrader(platform, { slug: 'bench', displayName: 'Bench' }, (intent) => {
  if (intent.state === 'filled') filledAt.get(intent.clientOrderId)?.(performance.now());
});

// Warm-up (bundle caches, connections), not measured.
const order = (i: number, clientOrderId: string) => ({
  venue: 'paper',
  symbol: 'BTC.PAPER',
  side: i % 2 ? 'sell' : 'buy',
  type: 'market',
  qty: '0.001',
  clientOrderId,
});
await pool(C, C, async (i) => trader.call('POST', '/api/v1/oms/intents', order(i, `warm-${i}`)));
await new Promise((r) => setTimeout(r, 2000));

const t0 = performance.now();
const orderMs = await pool(N, C, async (i) => {
  const clientOrderId = `bench-${i}`;
  const done = new Promise<number>((resolve) => filledAt.set(clientOrderId, resolve));
  const start = performance.now();
  const res = await trader.call('POST', '/api/v1/oms/intents', order(i, clientOrderId));
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
});
const floorRun = floorWorker.run();
const clientConn = await Connection.connect(temporalConnectionOptions({ address: platform.temporalAddress }));
const client = new Client({ connection: clientConn });
await pool(C, C, async (i) =>
  client.workflow.execute(noopWorkflow, { taskQueue: 'bench-floor', workflowId: `floor-warm-${i}` }),
);
const f0 = performance.now();
const floorMs = await pool(N, C, async (i) => {
  const start = performance.now();
  await client.workflow.execute(noopWorkflow, { taskQueue: 'bench-floor', workflowId: `floor-${i}` });
  return performance.now() - start;
});
const floorWall = performance.now() - f0;

const row = (name: string, xs: number[], wall: number) =>
  `${name.padEnd(44)} p50 ${pct(xs, 50).toFixed(1).padStart(7)} ms   p99 ${pct(xs, 99).toFixed(1).padStart(7)} ms   ${(xs.length / (wall / 1000)).toFixed(1).padStart(6)} /s`;
console.log('');
console.log(row('paper market order, compose → filled frame', orderMs, orderWall));
console.log(row('floor: empty workflow + one no-op activity', floorMs, floorWall));
console.log(
  `${'ratio (order / floor)'.padEnd(44)} p50 ${(pct(orderMs, 50) / pct(floorMs, 50)).toFixed(2).padStart(7)} x    p99 ${(pct(orderMs, 99) / pct(floorMs, 99)).toFixed(2).padStart(7)} x`,
);

clearInterval(refresh);
trader.close();
floorWorker.shutdown();
await floorRun;
await floorConn.close();
await clientConn.close();
await platform.stop();

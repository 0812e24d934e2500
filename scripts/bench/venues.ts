/**
 * `npm run bench:venues` (also run by `npm run bench`): the routed venues (issue 4).
 *  1. Signing throughput per venue: one representative order signed back to back for 2 s with the
 *     venue's own pure signing function (signatures/s, one core).
 *  2. Compose → dispatched latency through each venue's simulator: the real api, worker and Temporal
 *     (in-memory dev server), a fresh database, the four simulators, one trader with an authorised
 *     agent per venue; BENCH_VENUE_N market orders per venue (default 50) at concurrency
 *     BENCH_VENUE_CONCURRENCY (default 4); latency from the compose request to the first
 *     `Order-Intent-Update` frame in `dispatched` or `filled` on /ws/risk. Prints p50/p99 per venue.
 */
import { randomBytes } from 'node:crypto';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { generatePrivateKey } from 'viem/accounts';
import { publishMark } from '../../modules/market/feeds/marks.js';
import { predictionTickAt } from '../../modules/market/feeds/prediction-marks.js';
import { loadRecordedMarket } from '../../modules/market/feeds/recorded.js';
import { tickAt } from '../../domain/market/replay.js';
import { Decimal } from '../../domain/decimal.js';
import { VENUE_SYMBOLS } from '../../domain/market/symbols.js';
import type { MarkTick } from '../../domain/market/types.js';
import { ROUTED_VENUES, type RoutedVenue } from '../../venues/types.js';
import { VENUE_SIGNERS } from './venue-signers.js';
import type { IssuedCredential } from '../../db/seed.js';
import type { Simulators } from '../../simulators/index.js';
import { benchTrader, startBenchPlatform, type IntentUpdate } from '../lib/bench.js';
import { pct, pool } from '../lib/measure.js';
import { authorizeDemoAgents, startDevSimulators } from '../lib/dev-venues.js';

const N = Number(process.env.BENCH_VENUE_N ?? 50);
const C = Number(process.env.BENCH_VENUE_CONCURRENCY ?? 4);
Runtime.install({ logger: new DefaultLogger('ERROR') });

// 1. Signing throughput.
console.log('bench:venues — signing throughput (one core, 2 s per venue)');
for (const venue of ROUTED_VENUES) {
  const sign = await VENUE_SIGNERS[venue].prepare();
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < 2000) {
    await sign(n);
    n++;
  }
  console.log(
    `  ${venue.padEnd(12)} ${(n / ((performance.now() - t0) / 1000)).toFixed(0).padStart(7)} signatures/s   (${VENUE_SIGNERS[venue].what})`,
  );
}

// 2. Compose → dispatched through each simulator.
console.log(
  `\nbench:venues — compose → dispatched, ${N} market orders per venue at concurrency ${C}; starting Temporal, a fresh database, api, worker and the simulators`,
);
let sims!: Simulators;
const platform = await startBenchPlatform('platform_bench_venues', async (orm) => {
  sims = await startDevSimulators(orm);
  return {
    MARKET_STREAMS: 'off',
    AGENT_KEY_ENCRYPTION_KEYS: `bench:${randomBytes(32).toString('base64')}`,
    ...sims.env,
  };
});
const { orm, api } = platform;

// Marks: a recorded ETH tick for the perps, a mid-range price for one market per prediction venue.
const eth = await loadRecordedMarket('ETH');
const symbolOf = {} as Record<RoutedVenue, { symbol: string; qty: string; tick: MarkTick }>;
for (const venue of ROUTED_VENUES) {
  const specs = VENUE_SYMBOLS[venue];
  if (specs[0].assetClass === 'perp') {
    const spec = specs.find((s) => s.base === 'ETH')!;
    symbolOf[venue] = {
      symbol: spec.symbol,
      qty: '0.01',
      tick: tickAt(eth, eth.startMs, venue, spec.symbol, Date.now(), new Decimal(spec.tickSize)),
    };
  } else {
    // Pinned at 0.50: the recorded replay wanders to 0.01 and 0.99.
    symbolOf[venue] = { symbol: specs[0].symbol, qty: '10', tick: predictionTickAt(specs[0], '0.5', Date.now()) };
  }
}
const publishAll = () =>
  Promise.all(Object.values(symbolOf).map(({ tick }) => publishMark(orm, { ...tick, ts: Date.now() })));
await publishAll();
const refresh = setInterval(() => void publishAll(), 1000);

const dispatchedAt = new Map<string, (t: number) => void>();
const failed = new Map<string, string>();
const tenant = { slug: 'bench-venues', displayName: 'Bench venues' };
const onIntent = (intent: IntentUpdate) => {
  if (intent.state === 'dispatched' || intent.state === 'filled')
    dispatchedAt.get(intent.clientOrderId)?.(performance.now());
  if (intent.state === 'rejected') {
    failed.set(intent.clientOrderId, intent.rejectReason ?? '');
    dispatchedAt.get(intent.clientOrderId)?.(Number.NaN);
  }
};
const authorize = ({ apiKey, apiSecret, accountId }: IssuedCredential) =>
  authorizeDemoAgents({
    baseUrl: api.baseUrl,
    tenantSlug: tenant.slug,
    apiKey,
    apiSecret,
    accountId: accountId!,
    walletKey: generatePrivateKey(),
    sims,
  });
const trader = await benchTrader(platform, tenant, onIntent, authorize);

const rows: string[] = [];
for (const venue of ROUTED_VENUES) {
  const { symbol, qty } = symbolOf[venue];
  const order = (i: number, tag: string) => ({
    venue,
    symbol,
    side: i % 2 ? 'sell' : 'buy',
    type: 'market',
    qty,
    clientOrderId: `${tag}-${venue}-${i}`,
  });
  await pool(C, C, (i) => trader.call('POST', '/api/v1/oms/intents', order(i, 'warm'))); // warm-up, not measured
  await new Promise((r) => setTimeout(r, 1000));
  const t0 = performance.now();
  const ms = await pool(N, C, async (i) => {
    const id = `bench-${venue}-${i}`;
    const done = new Promise<number>((resolve) => dispatchedAt.set(id, resolve));
    const start = performance.now();
    const res = await trader.call('POST', '/api/v1/oms/intents', order(i, 'bench'));
    if (!res.intentId) throw new Error(`${venue} compose failed: ${JSON.stringify(res)}`);
    return (await done) - start;
  });
  const ok = ms.filter((x) => !Number.isNaN(x));
  const wall = performance.now() - t0;
  rows.push(
    `  ${venue.padEnd(12)} p50 ${pct(ok, 50).toFixed(1).padStart(7)} ms   p99 ${pct(ok, 99).toFixed(1).padStart(7)} ms   ${(ok.length / (wall / 1000)).toFixed(1).padStart(6)} orders/s   rejected ${ms.length - ok.length}${failed.size ? ` (${[...failed.values()][0]})` : ''}`,
  );
  failed.clear();
}
console.log('\ncompose → dispatched (first Order-Intent-Update in dispatched or filled on /ws/risk):');
for (const r of rows) console.log(r);

clearInterval(refresh);
trader.close();
await platform.stop();
await sims.stop();

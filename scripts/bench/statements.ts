/**
 * `npm run bench:statements` (README "Benchmark", issue 15): the SQL statements one paper market order costs, api and
 * worker together, on `npm run bench`'s platform (scripts/lib/bench.ts: in-memory Temporal dev server, a fresh
 * database, the api and the worker in this process, MARK_FEED off). Every statement any `pg` client of this process
 * sends is counted (`pg.Client.prototype.query` wrapped); BENCH_STATEMENT_ORDERS (default 20) orders of 0.001
 * BTC.PAPER (buy and sell in turn) go one at a time, each waited for up to its `filled` frame on `/ws/risk` and
 * then 100 ms more (so the order's last writes are in), after a warm-up of 5. The mark refresh that keeps the mark
 * fresh is paused while measuring, so what is counted is the orders'.
 *
 * Prints the statements per order, the round trips they take (a statement written behind an unanswered one on a
 * pipelining connection, the worker's ledger pool, shares its round trip), this process's CPU time per order between
 * its compose and its `filled` frame (`process.cpuUsage`, user + system: the api, the worker and the trader's client,
 * not PostgreSQL or Temporal), and each distinct statement (its first 110 characters, quoted values that MikroORM
 * inlines shown as `?`) with how many times per order it ran, most frequent first. Counting is deterministic
 * (unlike latency), so two runs on either side of a change compare exactly.
 */
import { createRequire } from 'node:module';
import pg from 'pg';
import { publishMark } from '../../modules/market/feeds/marks.js';
import { loadRecordedMarket } from '../../modules/market/feeds/recorded.js';
import { tickAt } from '../../domain/market/replay.js';
import { Decimal } from '../../domain/decimal.js';
import { benchTrader, paperMarketOrder, startBenchPlatform } from '../lib/bench.js';

const ORDERS = Number(process.env.BENCH_STATEMENT_ORDERS ?? 20);
const WARM = 5;

let counting = false;
const seen = new Map<string, number>();
/**
 * Round trips: a statement starts one unless it was written while another of its connection was still unanswered on
 * a pipelining connection (the worker's ledger pool, db/sql.ts), where it travels with that one.
 */
let roundTrips = 0;
const unanswered = new WeakMap<pg.Client, number>();
// MikroORM brings its own copy of `pg` (node_modules/@mikro-orm/postgresql/node_modules/pg): both are counted.
const mikroPg = createRequire(import.meta.resolve('@mikro-orm/postgresql'))('pg') as typeof pg;
for (const { Client } of new Set([pg, mikroPg])) {
  const query: (...a: unknown[]) => unknown = Reflect.get(Client.prototype, 'query');
  Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    if (counting) {
      const first = args[0] as string | { text?: string };
      const text = (typeof first === 'string' ? first : (first?.text ?? '?'))
        .replace(/'(?:[^']|'')*'/g, '?') // MikroORM inlines values: one row per statement, not per value
        .replace(/\s+/g, ' ')
        .trim()
        .slice(0, 110);
      seen.set(text, (seen.get(text) ?? 0) + 1);
      if (!this.pipeline || !unanswered.get(this)) roundTrips++;
    }
    const out = query.apply(this, args);
    if (out instanceof Promise) {
      unanswered.set(this, (unanswered.get(this) ?? 0) + 1);
      const answered = () => unanswered.set(this, unanswered.get(this)! - 1);
      out.then(answered, answered);
    }
    return out;
  } as typeof Client.prototype.query;
}

const platform = await startBenchPlatform('platform_statements');
const market = await loadRecordedMarket('BTC');
const tick = tickAt(market, market.startMs, 'paper', 'BTC.PAPER', Date.now(), new Decimal(1));
const refresh = async () => publishMark(platform.orm, { ...tick, ts: Date.now() });
await refresh();

const filled = new Map<string, () => void>();
const trader = await benchTrader(platform, { slug: 'bench', displayName: 'Bench' }, (intent) => {
  if (intent.state === 'filled') filled.get(intent.clientOrderId)?.();
});
/** CPU time of this process (µs, user + system) and wall time (ms) spent between a compose and its `filled` frame. */
const spent = { cpuUs: 0, wallMs: 0 };
const once = async (i: number, id: string) => {
  const done = new Promise<void>((resolve) => filled.set(id, resolve));
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  const res = await trader.call('POST', '/api/v1/oms/intents', paperMarketOrder(i, id));
  if (!res.intentId) throw new Error(`compose failed: ${JSON.stringify(res)}`);
  await done;
  const cpu = process.cpuUsage(cpu0);
  spent.cpuUs += cpu.user + cpu.system;
  spent.wallMs += performance.now() - wall0;
  await new Promise((r) => setTimeout(r, 100));
};

for (let i = 0; i < WARM; i++) await once(i, `warm-${i}`);
await refresh(); // fresh for the whole measured run (the default MARK_MAX_AGE_MS is 60 s)
counting = true;
Object.assign(spent, { cpuUs: 0, wallMs: 0 });
for (let i = 0; i < ORDERS; i++) await once(i, `count-${i}`);
counting = false;

const total = [...seen.values()].reduce((a, b) => a + b, 0);
console.log(`\n${(total / ORDERS).toFixed(1)} statements per paper market order (${total} over ${ORDERS} orders)`);
console.log(
  `${(roundTrips / ORDERS).toFixed(1)} round trips per order (statements pipelined behind an unanswered one share it)`,
);
console.log(
  `${(spent.cpuUs / 1000 / ORDERS).toFixed(1)} ms of this process's CPU per order between compose and its filled frame ` +
    `(api, worker and the trader's client), of ${(spent.wallMs / ORDERS).toFixed(1)} ms wall, one order at a time\n`,
);
for (const [text, n] of [...seen.entries()].sort((a, b) => b[1] - a[1]))
  console.log(`${(n / ORDERS).toFixed(2).padStart(6)}  ${text}`);

trader.close();
await platform.stop();
process.exit(0);

/**
 * A child process for test/unit/pg-pool.test.ts: 8 loops of ledger transactions (db/sql.ts `transaction`) and plain
 * pool statements on a pool named `pool-terminations-<pid>`, while its connections are terminated every 20 ms
 * (`pg_terminate_backend`: `57P01`, what a PostgreSQL restart sends) for `TERMINATE_MS`. Prints `{ ops, errors,
 * terminated }` as JSON and exits 0 if the process lived through it. `POOL=bare` uses a plain `pg.Pool` with only a
 * pool `'error'` listener instead of db/pool.ts `newPool`.
 * Usage: `DATABASE_URL=… TERMINATE_MS=3000 [POOL=bare] node --import tsx test/support/pool-terminations.ts`
 */
import pg from 'pg';
import { newPool } from '../../db/pool.js';
import { sqlOfClient, transaction } from '../../db/sql.js';

const url = process.env.DATABASE_URL!;
const application_name = `pool-terminations-${process.pid}`;
const config = { connectionString: url, max: 8, pipeline: true, application_name };
let pool: pg.Pool;
if (process.env.POOL === 'bare') {
  pool = new pg.Pool(config);
  pool.on('error', () => undefined);
} else pool = newPool(config, () => undefined);

const admin = new pg.Client({ connectionString: url });
await admin.connect();
let stopping = false;
const counts = { ops: 0, errors: 0, terminated: 0 };
const loop = async () => {
  while (!stopping) {
    try {
      await transaction(pool, async (tx) => tx.rows('select 1 as one'));
      await sqlOfClient(pool).rows('select 2 as two');
      counts.ops++;
    } catch {
      counts.errors++;
    }
  }
};
const loops = Array.from({ length: 8 }, loop);
const until = Date.now() + Number(process.env.TERMINATE_MS ?? 3_000);
while (Date.now() < until) {
  await new Promise((r) => setTimeout(r, 20));
  const { rowCount } = await admin.query(
    'select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1',
    [application_name],
  );
  counts.terminated += rowCount ?? 0;
}
stopping = true;
await Promise.all(loops);
await admin.end();
await pool.end();
console.log(JSON.stringify(counts));

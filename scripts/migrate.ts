/**
 * `npm run migrate` (and compiled, `node dist/scripts/migrate.js`, README "Processes and ports"): applies the
 * committed migrations to DATABASE_URL (else the embedded dev database under `.data/pg`).
 */
import { openOrm, migrateUp } from '../db/orm.js';
import { fromRoot } from '../project-root.js';
import { ensurePostgres } from './lib/postgres.js';

const pg = await ensurePostgres({ dataDir: fromRoot('.data/pg') });
const orm = await openOrm(pg.url);
const applied = await migrateUp(orm);
console.log(applied.length ? `applied: ${applied.join(', ')}` : 'schema up to date');
await orm.close();
await pg.stop();

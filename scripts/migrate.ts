/** `npm run migrate`: applies the committed migrations to DATABASE_URL (else the embedded dev database). */
import path from 'node:path';
import { openOrm, migrateUp } from '../db/orm.js';
import { ensurePostgres } from './lib/postgres.js';

const pg = await ensurePostgres({ dataDir: path.resolve(import.meta.dirname, '../.data/pg') });
const orm = await openOrm(pg.url);
const applied = await migrateUp(orm);
console.log(applied.length ? `applied: ${applied.join(', ')}` : 'schema up to date');
await orm.close();
await pg.stop();

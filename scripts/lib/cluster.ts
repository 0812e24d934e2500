/**
 * The reference production topology on one machine (`npm run cluster`, deploy/README.md): the full
 * Temporal server v1.32.2 as one process with all four services, its persistence and visibility on
 * PostgreSQL (databases of their own, schemas created and upgraded with temporal-sql-tool v1.32.2),
 * the platform's database beside them, N api processes and M worker processes. The api and worker
 * processes are the ones `npm run api` and `npm run worker` start (`api/server.ts`, `worker/main.ts`
 * under tsx); only their environment differs. Used by scripts/cluster.ts and
 * test/temporal/cluster.test.ts; a chaos driver kills and adds processes through {@link Cluster}.
 *
 * Configuration: deploy/temporal-server.yaml (with the PostgreSQL server, user and password of the
 * platform's `DATABASE_URL`, and optionally other database names and free ports), deploy/dynamicconfig.yaml,
 * deploy/search-attributes.yaml (checked against workflows/shared.definitions.ts `SA`).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { parse, stringify } from 'yaml';
import { z } from 'zod';
import { migrateUp, openOrm } from '../../db/orm.js';
import { SA } from '../../workflows/shared.definitions.js';
import { dieWithParent, watchChild } from './children.js';
import { executableFromEnv, freePort, isExecutableFile } from './temporal-dev.js';
import {
  TEMPORAL_SERVER_VERSION,
  prepareNamespace,
  resolveTemporalServerBinary,
  type SearchAttributeTypeName,
} from './temporal-server.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The directory of the reference topology's configuration files. */
const DEPLOY_DIR = path.join(ROOT, 'deploy');

/** Where scripts/setup.sh builds temporal-sql-tool (go.temporal.io/server/cmd/tools/sql): beside the server. */
const TEMPORAL_SQL_TOOL_CACHE = path.join(
  homedir(),
  '.cache/temporal-server',
  TEMPORAL_SERVER_VERSION,
  'temporal-sql-tool',
);

/**
 * The temporal-sql-tool binary: `$TEMPORAL_SQL_TOOL`, else `~/.cache/temporal-server/v1.32.2/temporal-sql-tool`.
 * @throws Error when `$TEMPORAL_SQL_TOOL` is not an executable file, or the cached build is missing
 *   (the message says to run `bash scripts/setup.sh`).
 */
function resolveTemporalSqlTool(): string {
  const fromEnv = executableFromEnv('TEMPORAL_SQL_TOOL', `build temporal-sql-tool ${TEMPORAL_SERVER_VERSION}`);
  if (fromEnv) return fromEnv;
  if (isExecutableFile(TEMPORAL_SQL_TOOL_CACHE)) return TEMPORAL_SQL_TOOL_CACHE;
  throw new Error(
    `temporal-sql-tool not found at ${TEMPORAL_SQL_TOOL_CACHE}. Run \`bash scripts/setup.sh\` (it builds go.temporal.io/server/cmd/tools/sql@${TEMPORAL_SERVER_VERSION} with Go), or set TEMPORAL_SQL_TOOL.`,
  );
}

/** deploy/search-attributes.yaml's type names (the CLI's) → the operator API's. */
const SEARCH_ATTRIBUTE_TYPES: Record<string, SearchAttributeTypeName> = {
  Keyword: 'KEYWORD',
  Text: 'TEXT',
  Int: 'INT',
  Double: 'DOUBLE',
  Bool: 'BOOL',
  Datetime: 'DATETIME',
  KeywordList: 'KEYWORD_LIST',
};

/**
 * The search attributes of deploy/search-attributes.yaml, name → type.
 * @throws Error when a type is unknown, or the list differs from what the workflows set
 *   (workflows/shared.definitions.ts `SA`): the message names the differences.
 */
function loadSearchAttributes(
  file = path.join(DEPLOY_DIR, 'search-attributes.yaml'),
): Record<string, SearchAttributeTypeName> {
  const listed = z.record(z.string(), z.string()).parse(parse(readFileSync(file, 'utf8')));
  const wanted = Object.fromEntries(
    Object.entries(listed).map(([name, type]) => {
      const t = SEARCH_ATTRIBUTE_TYPES[type];
      if (!t)
        throw new Error(
          `${file}: ${name}: unknown type ${type} (one of ${Object.keys(SEARCH_ATTRIBUTE_TYPES).join(', ')})`,
        );
      return [name, t];
    }),
  );
  const used = Object.fromEntries(Object.values(SA).map((k) => [k.name, k.type]));
  const differ = [...new Set([...Object.keys(wanted), ...Object.keys(used)])].filter((n) => wanted[n] !== used[n]);
  if (differ.length)
    throw new Error(
      `${file} and workflows/shared.definitions.ts SA differ on ${differ.map((n) => `${n} (${wanted[n] ?? 'absent'} vs ${used[n] ?? 'absent'})`).join(', ')}`,
    );
  return wanted;
}

/** The parts of deploy/temporal-server.yaml this module reads or rewrites; the rest passes through. */
const sqlStore = z.looseObject({
  pluginName: z.string(),
  databaseName: z.string(),
  connectAddr: z.string(),
  user: z.string(),
  password: z.string(),
});
const rpc = z.looseObject({
  grpcPort: z.number().int(),
  membershipPort: z.number().int(),
  httpPort: z.number().int().optional(),
  bindOnIP: z.string(),
});
const serverYaml = z.looseObject({
  persistence: z.looseObject({
    defaultStore: z.string(),
    visibilityStore: z.string(),
    datastores: z.record(z.string(), z.looseObject({ sql: sqlStore })),
  }),
  global: z.looseObject({
    metrics: z.looseObject({ prometheus: z.looseObject({ listenAddress: z.string() }) }).optional(),
  }),
  services: z.record(z.string(), z.looseObject({ rpc })),
  clusterMetadata: z.looseObject({
    currentClusterName: z.string(),
    clusterInformation: z.record(
      z.string(),
      z.looseObject({ rpcAddress: z.string(), httpAddress: z.string().optional() }),
    ),
  }),
  dynamicConfigClient: z.looseObject({ filepath: z.string() }),
});
type ServerYaml = z.infer<typeof serverYaml>;

/** The versioned schemas embedded in temporal-sql-tool, by SQL plugin (`--schema-name <dir>/temporal|visibility`). */
const EMBEDDED_SCHEMAS: Record<string, string> = { postgres12: 'postgresql/v12', postgres12_pgx: 'postgresql/v12' };

/** A Temporal datastore on PostgreSQL, as the sql tool needs it. */
interface SqlStoreTarget {
  plugin: string;
  database: string;
  host: string;
  port: number;
  user: string;
  password: string;
  /** `temporal` (persistence) or `visibility`. */
  schema: 'temporal' | 'visibility';
}

/** The effective server configuration: deploy/temporal-server.yaml with the overrides of {@link StartClusterOptions}. */
interface ServerConfig {
  yaml: ServerYaml;
  /** Frontend gRPC, `host:port` (TEMPORAL_ADDRESS). */
  address: string;
  /** Prometheus `/metrics` of the server, or null when the file configures none. */
  metricsUrl: string | null;
  stores: SqlStoreTarget[];
}

/**
 * A free port of 127.0.0.1 below 32768: the SQL schemas store a host's membership port as a
 * `smallint` (cluster_membership.rpc_port), and the OS's ephemeral ports lie above it.
 * @throws Error when 50 random ports in 20000…32767 are all taken.
 */
async function freeMembershipPort(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const port = 20_000 + Math.floor(Math.random() * 12_768);
    const free = await new Promise<boolean>((resolve) => {
      const s = createServer();
      s.once('error', () => resolve(false));
      s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error('no free port in 20000…32767 for a Temporal membership port');
}

/**
 * Reads deploy/temporal-server.yaml and points both datastores at the PostgreSQL server of
 * `postgresUrl` (host, port, user, password), optionally under other database names; with
 * `freePorts`, every port (services, metrics) is a free one of 127.0.0.1 and the cluster metadata's
 * addresses follow. The dynamic config path becomes absolute (relative paths are the repo root's).
 * @throws ZodError when the file lacks a key read here; Error for a datastore plugin other than PostgreSQL's.
 */
async function serverConfig(opts: {
  postgresUrl: string;
  databases?: { persistence: string; visibility: string };
  freePorts?: boolean;
  file?: string;
}): Promise<ServerConfig> {
  const file = opts.file ?? path.join(DEPLOY_DIR, 'temporal-server.yaml');
  // Checked, then changed in place: the file's own key order stays in the written config.
  const yaml = parse(readFileSync(file, 'utf8')) as ServerYaml;
  serverYaml.parse(yaml);
  const pgUrl = new URL(opts.postgresUrl);
  const connection = {
    host: pgUrl.hostname,
    port: Number(pgUrl.port || 5432),
    user: decodeURIComponent(pgUrl.username),
    password: decodeURIComponent(pgUrl.password),
  };
  const stores: SqlStoreTarget[] = (
    [
      [yaml.persistence.defaultStore, 'temporal', opts.databases?.persistence],
      [yaml.persistence.visibilityStore, 'visibility', opts.databases?.visibility],
    ] as const
  ).map(([storeName, schema, database]) => {
    const sql = yaml.persistence.datastores[storeName]?.sql;
    if (!sql) throw new Error(`${file}: persistence.datastores has no ${storeName}`);
    if (!EMBEDDED_SCHEMAS[sql.pluginName])
      throw new Error(`${file}: ${storeName} uses ${sql.pluginName}; the cluster runs on PostgreSQL (postgres12)`);
    sql.databaseName = database ?? sql.databaseName;
    sql.connectAddr = `${connection.host}:${connection.port}`;
    sql.user = connection.user;
    sql.password = connection.password;
    return { plugin: sql.pluginName, database: sql.databaseName, schema, ...connection };
  });
  if (opts.freePorts) {
    for (const service of Object.values(yaml.services)) {
      service.rpc.grpcPort = await freePort();
      service.rpc.membershipPort = await freeMembershipPort();
      if (service.rpc.httpPort !== undefined) service.rpc.httpPort = await freePort();
    }
    const prometheus = yaml.global.metrics?.prometheus;
    if (prometheus) prometheus.listenAddress = `127.0.0.1:${await freePort()}`;
  }
  const frontend = yaml.services.frontend?.rpc;
  if (!frontend) throw new Error(`${file}: services has no frontend`);
  const host = frontend.bindOnIP === '0.0.0.0' ? '127.0.0.1' : frontend.bindOnIP;
  const address = `${host}:${frontend.grpcPort}`;
  if (opts.freePorts) {
    const info = yaml.clusterMetadata.clusterInformation[yaml.clusterMetadata.currentClusterName];
    if (!info)
      throw new Error(`${file}: clusterMetadata.clusterInformation has no ${yaml.clusterMetadata.currentClusterName}`);
    info.rpcAddress = address;
    if (frontend.httpPort !== undefined) info.httpAddress = `${host}:${frontend.httpPort}`;
  }
  yaml.dynamicConfigClient.filepath = path.resolve(ROOT, yaml.dynamicConfigClient.filepath);
  const listen = yaml.global.metrics?.prometheus.listenAddress;
  return { yaml, address, metricsUrl: listen ? `http://${listen}/metrics` : null, stores };
}

const exec = promisify(execFile);

/**
 * The server's own check of a dynamic config file (`server validate-dynamic-config`): the server
 * ignores keys it does not know, so a misspelt or retired key would silently not apply.
 * @throws Error naming each warning (`unregistered key "…"`) or error the server reports.
 */
async function checkDynamicConfig(binary: string, file: string): Promise<void> {
  const { stdout, stderr } = await exec(binary, ['validate-dynamic-config', file]).catch(
    (err: Error & { stdout?: string; stderr?: string }) => ({
      stdout: err.stdout ?? '',
      stderr: err.stderr || err.message,
    }),
  );
  // It prints the file's name, then one indented line per problem.
  const problems = `${stdout}\n${stderr}`
    .split('\n')
    .filter((l) => /^\s+\S/.test(l) || /error/i.test(l))
    .map((l) => l.trim());
  if (problems.length) throw new Error(`${file}: ${problems.join('; ')}`);
}

/**
 * Creates the store's database when missing, sets up the schema version tables (`setup-schema -v
 * 0.0`, which leaves a newer version alone) and upgrades the schema to the newest one embedded in the
 * tool (`update-schema --schema-name postgresql/v12/<temporal|visibility>`); idempotent. Returns the
 * schema version it is at.
 * @throws Error when the tool fails (its last output lines in the message).
 */
async function upgradeSchema(tool: string, store: SqlStoreTarget): Promise<string> {
  // Connection by environment variables (the tool's own), so that the password is not in `ps`.
  const env = {
    ...process.env,
    SQL_PLUGIN: store.plugin,
    SQL_HOST: store.host,
    SQL_PORT: String(store.port),
    SQL_USER: store.user,
    SQL_PASSWORD: store.password,
    SQL_DATABASE: store.database,
  };
  const steps = [
    ['create-database'],
    ['setup-schema', '-v', '0.0'],
    ['update-schema', '--schema-name', `${EMBEDDED_SCHEMAS[store.plugin]}/${store.schema}`],
  ];
  for (const args of steps) {
    await exec(tool, args, { env, maxBuffer: 64 * 1024 * 1024 }).catch(
      (err: Error & { stdout?: string; stderr?: string }) => {
        const tail = `${err.stdout ?? ''}${err.stderr ?? ''}`.trim().split('\n').slice(-20).join('\n');
        throw new Error(
          `temporal-sql-tool ${args.join(' ')} on database ${store.database} failed${tail ? `:\n${tail}` : ''}`,
          {
            cause: err,
          },
        );
      },
    );
  }
  const url = new URL(`postgres://${store.host}:${store.port}/${store.database}`);
  url.username = encodeURIComponent(store.user);
  url.password = encodeURIComponent(store.password);
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const { rows } = await client.query<{ curr_version: string }>(
      'select curr_version from schema_version where version_partition = 0 and db_name = $1',
      [store.database],
    );
    return rows[0]?.curr_version ?? 'unknown';
  } finally {
    await client.end();
  }
}

/** An api or worker process of the cluster. */
export interface ClusterProcess {
  /** `api-1`, `worker-2`, … (the prefix of its output lines). */
  name: string;
  /** Its pid, also the pid of its Temporal identity `<pid>@<host>` (worker). */
  pid: number;
  /** The api's base URL, or the worker's ops server (`/healthz`, `/readyz`, `/metrics`). */
  url: string;
  child: ChildProcess;
  /** Resolves once it has exited. */
  exited: Promise<void>;
  /** How it ended, or undefined while it runs. */
  exitInfo(): string | undefined;
  /** Its last 40 output lines, ready to append to a message. */
  lastLines(): string;
  /** SIGTERM (its graceful stop, README "Graceful shutdown"), SIGKILL after `graceMs` (default 40 s); resolves once it has exited. */
  stop(graceMs?: number): Promise<void>;
}

/** Options of {@link startCluster}. */
export interface StartClusterOptions {
  /**
   * The platform's database, the processes' `DATABASE_URL` (migrated here). The Temporal databases
   * are created on the same PostgreSQL server, with the same user.
   */
  databaseUrl: string;
  apis: number;
  workers: number;
  /**
   * `fixed`: the server's ports of deploy/temporal-server.yaml, api `i` (from 0) on `api + i`, worker
   * `i`'s ops server on `worker + i`. `free` (tests): free ports of 127.0.0.1 everywhere.
   */
  ports: { api: number; worker: number } | 'free';
  /** Other names for the Temporal databases than the file's (`temporal`, `temporal_visibility`). */
  temporalDatabases?: { persistence: string; visibility: string };
  /** The configuration the api and worker processes share (JWT_SECRET, AGENT_KEY_ENCRYPTION_KEYS, LOG_LEVEL, …). */
  env: Record<string, string>;
  /** Namespace registered with the platform's search attributes (default `default`, TEMPORAL_NAMESPACE's default). */
  namespace?: string;
  /** Where the effective server config is written (`temporal-server.yaml`). */
  runDir: string;
  /** Receives every line the server (`[temporal] …`) and the processes (`[api-1] …`) print. */
  log?: (line: string) => void;
  /** How long the server, then each process, may take to answer; default 120 s (a worker bundles its workflows at start). */
  readyTimeoutMs?: number;
}

/** A running cluster, from {@link startCluster}. */
export interface Cluster {
  temporal: {
    /** Frontend gRPC `host:port`. */
    address: string;
    namespace: string;
    metricsUrl: string | null;
    /** The effective config file the server runs with. */
    configFile: string;
    /** The Temporal databases and the schema version each is at. */
    databases: { persistence: { name: string; version: string }; visibility: { name: string; version: string } };
    /** The server process's pid (a new one after {@link Cluster.restartTemporal}). */
    readonly pid: number;
  };
  /** The platform database's migrations applied by this start (empty when it was up to date). */
  migrations: string[];
  apis: ClusterProcess[];
  /** Every worker started, killed ones included (see `exitInfo`). */
  workers: ClusterProcess[];
  /** Starts one more api / worker process (next fixed port, or a free one) and waits until it is ready. */
  addApi(): Promise<ClusterProcess>;
  addWorker(): Promise<ClusterProcess>;
  /**
   * Stops the Temporal server (SIGTERM, or with `kill` SIGKILL: a crash) and starts it again on the same
   * configuration and databases; resolves once it answers and the namespace is ready. The api and worker
   * processes keep running and reconnect on their own.
   * @throws Error when the server does not come back within the ready timeout (its last output lines).
   */
  restartTemporal(opts?: { kill?: boolean }): Promise<void>;
  /** Stops the api and worker processes (in parallel, each draining), then the server. Idempotent. */
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** GET `url`; true on a 200 within 2 s. */
const answers = (url: string) =>
  fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
    (r) => r.ok,
    () => false,
  );

/**
 * Starts the cluster: checks the search attribute list, creates/upgrades the two Temporal schemas,
 * writes the server config into `runDir` and starts the server (own process group, so a terminal's
 * Ctrl-C reaches only the caller, which stops things in order; it dies with the caller on Linux),
 * registers the namespace and the search attributes, migrates the platform's database, then starts
 * the apis and the workers (in parallel) and waits until each answers `GET /readyz` with 200.
 * Everything started is stopped again when a step fails.
 * @throws Error when a binary is missing, a schema step fails, or the server or a process exits or
 *   does not become ready in time; the message holds its last output lines.
 */
export async function startCluster(opts: StartClusterOptions): Promise<Cluster> {
  const log = opts.log ?? (() => undefined);
  const readyTimeoutMs = opts.readyTimeoutMs ?? 120_000;
  const namespace = opts.namespace ?? 'default';
  const binary = resolveTemporalServerBinary();
  const tool = resolveTemporalSqlTool();
  const searchAttributes = loadSearchAttributes();
  const config = await serverConfig({
    postgresUrl: opts.databaseUrl,
    databases: opts.temporalDatabases,
    freePorts: opts.ports === 'free',
  });
  await checkDynamicConfig(binary, config.yaml.dynamicConfigClient.filepath);
  const versions: string[] = [];
  for (const store of config.stores) versions.push(await upgradeSchema(tool, store));
  mkdirSync(opts.runDir, { recursive: true });
  const configFile = path.join(opts.runDir, 'temporal-server.yaml');
  writeFileSync(
    configFile,
    `# Written by scripts/lib/cluster.ts from deploy/temporal-server.yaml (edit that one).\n${stringify(config.yaml)}`,
    { mode: 0o600 }, // holds the PostgreSQL password
  );

  // --allow-no-auth: no authorizer is configured (deploy/README.md "Security" says what production adds).
  const [command, args] = dieWithParent(binary, ['--config-file', configFile, '--allow-no-auth', 'start']);
  let serverStopping = false;
  /** Starts the server process; what the services log while they leave one another is expected: kept for lastLines only. */
  const launchServer = () => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    return { child, ...watchChild(child, binary, { log: (l) => serverStopping || log(`[temporal] ${l}`) }) };
  };
  let server = launchServer();
  /** Waits for the server, registers the namespace and the search attributes (idempotent). */
  const prepare = () =>
    prepareNamespace({
      target: { address: config.address },
      namespace,
      retention: '7 days',
      searchAttributes,
      deadline: Date.now() + readyTimeoutMs,
      server: { binary, ...server },
    });
  const processes: ClusterProcess[] = [];
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await Promise.all(processes.map((p) => p.stop()));
      serverStopping = true;
      await server.stop();
    })());

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...opts.env,
    DATABASE_URL: opts.databaseUrl,
    TEMPORAL_ADDRESS: config.address,
    TEMPORAL_NAMESPACE: namespace,
  };
  const host = opts.env.HOST ?? '127.0.0.1';
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host;
  const counts = { api: 0, worker: 0 };
  /** Starts api/server.ts or worker/main.ts (as `npm run api` / `npm run worker` do) and waits for its /readyz. */
  const startProcess = async (kind: 'api' | 'worker'): Promise<ClusterProcess> => {
    const index = counts[kind]++;
    const port = opts.ports === 'free' ? await freePort() : opts.ports[kind] + index;
    const name = `${kind}-${index + 1}`;
    const [script, portEnv, url] =
      kind === 'api'
        ? ['api/server.ts', { PORT: String(port) }, `http://${reachable}:${port}`]
        : [
            'worker/main.ts',
            { WORKER_HTTP_PORT: String(port) },
            `http://${opts.env.WORKER_HTTP_HOST ?? '127.0.0.1'}:${port}`,
          ];
    // Its own process group (a terminal's Ctrl-C reaches only the caller); an IPC channel whose closing,
    // when the caller dies in any way, makes it stop on its own (lifecycle.ts); an exit hook as well.
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      cwd: ROOT,
      env: { ...env, ...portEnv },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      detached: true,
    });
    // One `exit` hook per process (watchChild's killOnExit): more processes than Node's default warning level is fine.
    process.setMaxListeners(Math.max(process.getMaxListeners(), processes.length + 11));
    const watched = watchChild(child, `${name} (${script})`, { log: (l) => log(`[${name}] ${l}`) });
    const proc: ClusterProcess = {
      name,
      pid: child.pid!,
      url,
      child,
      exited: watched.exited,
      exitInfo: watched.exitInfo,
      lastLines: watched.lastLines,
      stop: (graceMs = 40_000) => watched.stop(graceMs),
    };
    processes.push(proc);
    const deadline = Date.now() + readyTimeoutMs;
    while (!(await answers(`${url}/readyz`))) {
      if (watched.exitInfo() !== undefined) throw new Error(`${name} ${watched.exitInfo()}${watched.lastLines()}`);
      if (Date.now() > deadline)
        throw new Error(`${name} did not answer ${url}/readyz within ${readyTimeoutMs / 1000} s${watched.lastLines()}`);
      await sleep(250);
    }
    return proc;
  };

  try {
    await prepare();
    const orm = await openOrm(opts.databaseUrl);
    const migrations = await migrateUp(orm).finally(() => orm.close());
    const starting = [
      ...Array.from({ length: opts.apis }, () => startProcess('api')),
      ...Array.from({ length: opts.workers }, () => startProcess('worker')),
    ];
    const started = await Promise.all(starting);
    const apis = started.slice(0, opts.apis);
    const workers = started.slice(opts.apis);
    const [persistence, visibility] = config.stores;
    return {
      temporal: {
        address: config.address,
        namespace,
        metricsUrl: config.metricsUrl,
        configFile,
        databases: {
          persistence: { name: persistence.database, version: versions[0] },
          visibility: { name: visibility.database, version: versions[1] },
        },
        get pid() {
          return server.child.pid!;
        },
      },
      migrations,
      apis,
      workers,
      addApi: async () => {
        const p = await startProcess('api');
        apis.push(p);
        return p;
      },
      restartTemporal: async ({ kill = false } = {}) => {
        serverStopping = true;
        if (kill) server.child.kill('SIGKILL');
        await server.stop();
        serverStopping = false;
        server = launchServer();
        await prepare();
      },
      addWorker: async () => {
        const p = await startProcess('worker');
        workers.push(p);
        return p;
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

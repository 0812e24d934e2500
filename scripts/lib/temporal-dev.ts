/**
 * The Temporal CLI's dev server (`temporal server start-dev`, CLI v1.5.1 = Temporal Server 1.29),
 * configured by `temporal-dev.yml`, and resolution of the pinned CLI binary that
 * `bash scripts/setup.sh` provides (built with `go install github.com/temporalio/cli/cmd/temporal@v1.5.1`).
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, mkdirSync, readFileSync, statSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { homedir } from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { temporalConnectionOptions } from '../../temporal-connection.js';
import { dieWithParent, watchChild } from './children.js';
import { parse } from 'yaml';
import { z } from 'zod';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The pinned Temporal CLI version (see scripts/setup.sh). */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';

/** Where scripts/setup.sh builds the CLI: outside the checkout, keyed by version, so clean clones reuse it. */
export const TEMPORAL_CLI_CACHE = path.join(homedir(), '.cache/temporal-cli', TEMPORAL_CLI_VERSION, 'temporal');

/** Whether `file` is an executable regular file. */
export function isExecutableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The executable `$variable` names, as an absolute path; undefined when the variable is unset.
 * @throws Error `<variable>=<value> is not an executable file; unset it, or run \`bash scripts/setup.sh\` to <setupDoes>`.
 */
export function executableFromEnv(variable: string, setupDoes: string): string | undefined {
  const fromEnv = process.env[variable];
  if (!fromEnv) return undefined;
  const abs = path.resolve(fromEnv);
  if (isExecutableFile(abs)) return abs;
  throw new Error(
    `${variable}=${fromEnv} is not an executable file; unset it, or run \`bash scripts/setup.sh\` to ${setupDoes}`,
  );
}

/**
 * Finds the Temporal CLI binary, in this order: `$TEMPORAL_CLI`, `.tools/temporal` (the symlink
 * scripts/setup.sh keeps), `temporal` on PATH, `~/.cache/temporal-cli/v1.5.1/temporal`.
 * @returns the binary's absolute path.
 * @throws Error when `$TEMPORAL_CLI` is set but not an executable file, or when none is found
 *   (the message says to run `bash scripts/setup.sh`).
 */
export function resolveTemporalBinary(): string {
  const fromEnv = executableFromEnv('TEMPORAL_CLI', `get the pinned Temporal CLI ${TEMPORAL_CLI_VERSION}`);
  if (fromEnv) return fromEnv;
  const local = path.join(ROOT, '.tools/temporal');
  if (isExecutableFile(local)) return local;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.resolve(dir, 'temporal');
    if (isExecutableFile(candidate)) return candidate;
  }
  if (isExecutableFile(TEMPORAL_CLI_CACHE)) return TEMPORAL_CLI_CACHE;
  throw new Error(
    `Temporal CLI not found (looked at $TEMPORAL_CLI, .tools/temporal, \`temporal\` on PATH, ${TEMPORAL_CLI_CACHE}). ` +
      `Run \`bash scripts/setup.sh\` (it builds the CLI ${TEMPORAL_CLI_VERSION} with Go), or put a \`temporal\` binary on PATH, or set TEMPORAL_CLI.`,
  );
}

const identifier = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an identifier');
const port = z.number().int().min(1).max(65535);
const jsonValue: z.ZodType<unknown> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(jsonValue), z.record(z.string(), jsonValue)]),
);

const configSchema = z.strictObject({
  /** Namespace created at start (`default` always exists). */
  namespace: z.string().min(1).default('default'),
  /** Address the frontend (and the Web UI) bind to. */
  ip: z.string().min(1).default('127.0.0.1'),
  /** Frontend gRPC port. */
  port: port.default(7233),
  /** Web UI port; null = headless. */
  uiPort: port.nullable().default(8233),
  /** HTTP API port; absent/null = a random free port. */
  httpPort: port.nullable().optional(),
  /** /metrics port; absent/null = a random free port. */
  metricsPort: port.nullable().optional(),
  /** SQLite file, relative to the repo root; null = in memory. */
  dbFilename: z.string().min(1).nullable().default(null),
  logLevel: z.enum(['debug', 'info', 'warn', 'error', 'never']).default('warn'),
  searchAttributes: z
    .record(identifier, z.enum(['Text', 'Keyword', 'Int', 'Double', 'Bool', 'Datetime', 'KeywordList']))
    .default({}),
  dynamicConfig: z
    .record(
      z
        .string()
        .regex(
          /^[A-Za-z][A-Za-z0-9_.]*$/,
          'must be a dynamic config key such as frontend.enableUpdateWorkflowExecution',
        ),
      jsonValue,
    )
    .default({}),
});

/** The dev server's settings (`temporal-dev.yml`). */
export type TemporalDevConfig = z.infer<typeof configSchema>;

/**
 * Reads and validates the dev server's settings.
 * @param file YAML file; a relative path is taken from the repo root (default `temporal-dev.yml`).
 * @throws Error naming the file and every invalid or unknown key.
 */
export function loadTemporalDevConfig(file = 'temporal-dev.yml'): TemporalDevConfig {
  const abs = path.resolve(ROOT, file);
  let raw: unknown;
  try {
    raw = parse(readFileSync(abs, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read ${abs}: ${(err as Error).message}`, { cause: err });
  }
  const parsed = configSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(top level)'}: ${i.message}`);
    throw new Error(`invalid Temporal dev server settings in ${abs}:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

/**
 * A TCP port that was free on 127.0.0.1 a moment ago (listen on port 0, close, return it).
 * Another process may take it before the caller binds it; good enough for tests and one-off servers.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.unref();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Whether something accepts TCP connections on host:port (within 500 ms). */
function tcpAnswers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = connect({ host, port });
    const done = (ok: boolean) => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(500, () => done(false));
    sock.once('connect', () => done(true));
    sock.once('error', () => done(false));
  });
}

/** A running dev server, from {@link startTemporalDev}. */
export interface TemporalDev {
  /** Frontend gRPC address, `host:port` (TEMPORAL_ADDRESS). */
  address: string;
  namespace: string;
  /** Web UI, or null when headless. */
  uiUrl: string | null;
  /** The server process's pid (the benches read its CPU time). */
  pid: number;
  /** SIGTERM, then SIGKILL after 10 s; resolves once the server has exited. Idempotent. */
  stop(): Promise<void>;
}

/** Options of {@link startTemporalDev}; anything not given comes from the config. */
export interface StartTemporalDevOptions {
  /** The CLI binary; default {@link resolveTemporalBinary}(). */
  binary?: string;
  /** Default {@link loadTemporalDevConfig}(). */
  config?: TemporalDevConfig;
  /** SQLite file (relative to the repo root, its directory is created); null = in memory. */
  dbFilename?: string | null;
  /** Frontend gRPC port. */
  port?: number;
  /** Web UI port; null = headless. */
  uiPort?: number | null;
  /** HTTP API port; null = a random free port. */
  httpPort?: number | null;
  /** Receives every line the server prints (stdout and stderr). */
  log?: (line: string) => void;
  /** How long to wait for the frontend to answer; default 60 s. */
  readyTimeoutMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts `temporal server start-dev` with flags built from the config (`--namespace`, `--ip`,
 * `--port`, `--ui-port` or `--headless`, `--http-port`, `--metrics-port`, `--db-filename`,
 * `--log-level`, `--search-attribute K=Type` each, `--dynamic-config-value k=<JSON>` each), and
 * waits until the frontend answers `GetSystemInfo` and knows the namespace.
 * The server dies with this process (SIGTERM on exit; on Linux also when this process is killed outright) unless stopped earlier with `stop()`.
 * @throws Error when the port is taken, the server exits, or it does not answer within the timeout;
 *   the message holds the server's last output lines.
 */
export async function startTemporalDev(opts: StartTemporalDevOptions = {}): Promise<TemporalDev> {
  const cfg = opts.config ?? loadTemporalDevConfig();
  const binary = opts.binary ?? resolveTemporalBinary();
  const grpcPort = opts.port ?? cfg.port;
  const uiPort = opts.uiPort === undefined ? cfg.uiPort : opts.uiPort;
  const httpPort = opts.httpPort === undefined ? cfg.httpPort : opts.httpPort;
  const dbSetting = opts.dbFilename === undefined ? cfg.dbFilename : opts.dbFilename;
  const db = dbSetting === null ? null : path.resolve(ROOT, dbSetting);
  const connectHost = cfg.ip === '0.0.0.0' ? '127.0.0.1' : cfg.ip === '::' ? '::1' : cfg.ip;
  const hostPort = (h: string, p: number) => (h.includes(':') ? `[${h}]:${p}` : `${h}:${p}`);
  const address = hostPort(connectHost, grpcPort);
  const readyTimeoutMs = opts.readyTimeoutMs ?? 60_000;

  // Fail clearly instead of finding some other server (an `npm run dev` already up?) on the port.
  if (await tcpAnswers(connectHost, grpcPort)) {
    throw new Error(
      `cannot start the Temporal dev server: ${address} is already in use (is \`npm run dev\` or another Temporal server running?)`,
    );
  }

  const args = ['server', 'start-dev', '--ip', cfg.ip, '--port', String(grpcPort), '--log-level', cfg.logLevel];
  if (cfg.namespace !== 'default') args.push('--namespace', cfg.namespace);
  args.push(...(uiPort === null ? ['--headless'] : ['--ui-port', String(uiPort)]));
  if (httpPort != null) args.push('--http-port', String(httpPort));
  if (cfg.metricsPort != null) args.push('--metrics-port', String(cfg.metricsPort));
  if (db) {
    mkdirSync(path.dirname(db), { recursive: true });
    args.push('--db-filename', db);
  }
  for (const [name, type] of Object.entries(cfg.searchAttributes)) args.push('--search-attribute', `${name}=${type}`);
  for (const [key, value] of Object.entries(cfg.dynamicConfig))
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);

  const [command, commandArgs] = dieWithParent(binary, args);
  const child = spawn(command, commandArgs, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const server = watchChild(child, binary, { log: opts.log });
  const { exited, exitInfo, lastLines } = server;

  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (exitInfo() !== undefined) {
      await sleep(50); // let the last output lines arrive
      throw new Error(`Temporal dev server (${binary} ${args.slice(0, 2).join(' ')}) ${exitInfo()}${lastLines()}`);
    }
    if (await tcpAnswers(connectHost, grpcPort)) {
      try {
        const conn = await Connection.connect({ ...temporalConnectionOptions({ address }), connectTimeout: 2_000 });
        try {
          await conn.workflowService.getSystemInfo({});
          await conn.workflowService.describeNamespace({ namespace: cfg.namespace });
        } finally {
          await conn.close();
        }
        if (exitInfo() === undefined) break;
      } catch {
        // not ready yet
      }
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      await exited;
      throw new Error(
        `Temporal dev server did not answer on ${address} within ${Math.round(readyTimeoutMs / 1000)} s${lastLines()}`,
      );
    }
    await sleep(200);
  }

  return {
    address,
    namespace: cfg.namespace,
    uiUrl: uiPort === null ? null : `http://${hostPort(connectHost, uiPort)}`,
    pid: child.pid!,
    stop: () => server.stop(),
  };
}

/**
 * Launcher of the Temporal CLI's dev server from `temporal-dev.yml`, and resolution of the
 * pinned CLI binary (built by scripts/setup.sh: go install github.com/temporalio/cli/cmd/temporal@v1.5.1).
 */
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { Connection } from '@temporalio/client';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** Cache of the built CLI, outside the checkout, keyed by version. */
export const TEMPORAL_CLI_CACHE = path.join(homedir(), '.cache/temporal-cli/v1.5.1/temporal');

/**
 * The Temporal CLI binary: `$TEMPORAL_CLI`, `.tools/temporal`, `temporal` on PATH, or the cache.
 * @throws Error saying to run `bash scripts/setup.sh` when none exists.
 */
export function resolveTemporalBinary(): string {
  const candidates = [process.env.TEMPORAL_CLI, path.join(ROOT, '.tools/temporal'), TEMPORAL_CLI_CACHE].filter(Boolean) as string[];
  for (const c of candidates) if (existsSync(c)) return c;
  try {
    return execFileSync('sh', ['-c', 'command -v temporal'], { encoding: 'utf8' }).trim() || fail();
  } catch {
    return fail();
  }
  function fail(): never {
    throw new Error('Temporal CLI not found. Run `bash scripts/setup.sh` (builds it with Go), or put `temporal` on PATH, or set TEMPORAL_CLI.');
  }
}

const configSchema = z.object({
  namespace: z.string(),
  ip: z.string(),
  port: z.number().int(),
  uiPort: z.number().int(),
  dbFilename: z.string(),
  logLevel: z.enum(['debug', 'info', 'warn', 'error']),
  searchAttributes: z.record(z.string(), z.enum(['Keyword', 'Text', 'Int', 'Double', 'Bool', 'Datetime', 'KeywordList'])),
  dynamicConfig: z.record(z.string(), z.unknown()),
});
export type TemporalDevConfig = z.infer<typeof configSchema>;

/** Reads and validates `temporal-dev.yml`. */
export function loadTemporalDevConfig(file = path.join(ROOT, 'temporal-dev.yml')): TemporalDevConfig {
  return configSchema.parse(parse(readFileSync(file, 'utf8')));
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** A running dev server. */
export interface TemporalDev {
  address: string;
  namespace: string;
  uiUrl: string | null;
  stop(): Promise<void>;
}

/**
 * Starts `temporal server start-dev` with the config's flags and waits until its frontend answers
 * (60 s, else an error with the server's last output).
 */
export async function startTemporalDev(opts: { config?: TemporalDevConfig; port?: number; uiPort?: number | null; dbFilename?: string | null; log?: (line: string) => void } = {}): Promise<TemporalDev> {
  const cfg = opts.config ?? loadTemporalDevConfig();
  const port = opts.port ?? cfg.port;
  const uiPort = opts.uiPort === undefined ? cfg.uiPort : opts.uiPort;
  const db = opts.dbFilename === undefined ? path.resolve(ROOT, cfg.dbFilename) : opts.dbFilename;
  const args = ['server', 'start-dev', '--namespace', cfg.namespace, '--ip', cfg.ip, '--port', String(port), '--log-level', cfg.logLevel];
  args.push(...(uiPort === null ? ['--headless'] : ['--ui-port', String(uiPort)]));
  if (db) {
    mkdirSync(path.dirname(db), { recursive: true });
    args.push('--db-filename', db);
  }
  for (const [k, t] of Object.entries(cfg.searchAttributes)) args.push('--search-attribute', `${k}=${t}`);
  for (const [k, v] of Object.entries(cfg.dynamicConfig)) args.push('--dynamic-config-value', `${k}=${JSON.stringify(v)}`);
  const child = spawn(resolveTemporalBinary(), args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  // Never outlive the launcher, however it exits (the server is in its own process group).
  const reap = () => child.exitCode === null && child.kill('SIGTERM');
  process.once('exit', reap);
  const tail: string[] = [];
  const onLine = (b: Buffer) => {
    for (const line of b.toString().split('\n').filter(Boolean)) {
      tail.push(line);
      if (tail.length > 30) tail.shift();
      opts.log?.(line);
    }
  };
  child.stdout.on('data', onLine);
  child.stderr.on('data', onLine);
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const address = `${cfg.ip}:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`temporal dev server exited (${child.exitCode}):\n${tail.join('\n')}`);
    try {
      const c = await Connection.connect({ address, connectTimeout: 1000 });
      await c.workflowService.getSystemInfo({});
      await c.close();
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`temporal dev server did not answer on ${address} within 60 s:\n${tail.join('\n')}`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  return {
    address,
    namespace: cfg.namespace,
    uiUrl: uiPort === null ? null : `http://${cfg.ip}:${uiPort}`,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
    },
  };
}

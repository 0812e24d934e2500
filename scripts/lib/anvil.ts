/**
 * A local EVM node for tests and `npm run dev` (docs/architecture.md "EVM node"): anvil from the npm package
 * `@foundry-rs/anvil`, whose platform package (`@foundry-rs/anvil-<os>-<arch>`, an optional
 * dependency) ships the binary at `bin/anvil` — nothing is downloaded at run time.
 *
 * Chain id 31337, listening on 127.0.0.1 only, accounts derived from anvil's default mnemonic
 * ("test test … junk"), each funded with 10 000 ETH: {@link ANVIL_KEYS} are their private keys,
 * the same on every run.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { toHex, type Hex } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { dieWithParent, killOnExit } from './children.js';

const require = createRequire(import.meta.url);

/** anvil's default mnemonic. */
export const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';
/** Private keys of anvil's 10 default accounts (index 0 first); funded on a fresh chain. */
export const ANVIL_KEYS: Hex[] = Array.from({ length: 10 }, (_, i) =>
  toHex(mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: i }).getHdKey().privateKey!),
);

/** The anvil binary of this platform, from its npm package. @throws Error on a platform the package does not ship. */
export function anvilBinary(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const pkg = `@foundry-rs/anvil-${process.platform === 'win32' ? 'win32' : process.platform}-${arch}`;
  try {
    return path.join(
      path.dirname(require.resolve(`${pkg}/package.json`)),
      'bin',
      process.platform === 'win32' ? 'anvil.exe' : 'anvil',
    );
  } catch {
    throw new Error(
      `anvil: the npm package ${pkg} is not installed (npm install runs it as an optional dependency of @foundry-rs/anvil)`,
    );
  }
}

/** A free TCP port on 127.0.0.1 (the OS picks it). */
export async function freeLocalPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** A running anvil. */
export interface Anvil {
  rpcUrl: string;
  port: number;
  /** Stops it (SIGTERM, then SIGKILL after 5 s); with a dump path, anvil writes its state first. */
  stop(): Promise<void>;
}

export interface AnvilOptions {
  /** Default: a free port. */
  port?: number;
  /** `--state`: load from this file when it exists and dump to it on exit (dev persistence). */
  statePath?: string;
  /** `--load-state` only. */
  loadStatePath?: string;
  /** `--dump-state` only. */
  dumpStatePath?: string;
  /** `--block-time` in seconds (default: a block per transaction). */
  blockTimeS?: number;
  /** `--no-mining`: blocks only by `evm_mine` / `anvil_mine`. */
  noMining?: boolean;
  /** Seconds to wait for `eth_chainId` to answer (default 20). */
  readyTimeoutS?: number;
}

/**
 * Starts anvil and waits until it answers `eth_chainId`. anvil is stopped by `stop()`, and otherwise
 * when this process exits (SIGTERM from a `process.on('exit')` hook, so a crash or a `process.exit()`
 * in some signal handler never leaves it running) or is killed (SIGTERM from the kernel on Linux,
 * scripts/lib/children.ts `dieWithParent`).
 * @throws Error when anvil exits early or does not answer in time (stderr included).
 */
export async function startAnvil(opts: AnvilOptions = {}): Promise<Anvil> {
  const port = opts.port ?? (await freeLocalPort());
  const args = ['--host', '127.0.0.1', '--port', String(port), '--mnemonic', ANVIL_MNEMONIC, '--silent'];
  if (opts.statePath) args.push('--state', opts.statePath);
  if (opts.loadStatePath) args.push('--load-state', opts.loadStatePath);
  if (opts.dumpStatePath) args.push('--dump-state', opts.dumpStatePath);
  if (opts.blockTimeS) args.push('--block-time', String(opts.blockTimeS));
  if (opts.noMining) args.push('--no-mining');
  // Dies with this process: SIGTERM from an exit hook when this process exits without stop(), and from the kernel
  // when it is killed outright (Linux); anvil still dumps `--state` on SIGTERM.
  const child = killOnExit(spawn(...dieWithParent(anvilBinary(), args), { stdio: ['ignore', 'ignore', 'pipe'] }));
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += String(d)));
  let spawnError: Error | null = null;
  child.once('error', (e) => (spawnError = e));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const rpcUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (opts.readyTimeoutS ?? 20) * 1000;
  for (;;) {
    if (spawnError) throw new Error(`anvil could not start: ${(spawnError as Error).message}`);
    if (child.exitCode !== null) throw new Error(`anvil exited with ${child.exitCode}: ${stderr.trim()}`);
    if (await anvilAnswers(rpcUrl)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`anvil did not answer on ${rpcUrl} within ${opts.readyTimeoutS ?? 20} s: ${stderr.trim()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    rpcUrl,
    port,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Whether a chain node answers at `rpcUrl`: an `eth_chainId` call gets an HTTP 2xx. Never throws: a
 * refused connection or any other network error is `false`.
 */
export async function anvilAnswers(rpcUrl: string): Promise<boolean> {
  return fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
  }).then(
    (r) => r.ok,
    () => false,
  );
}

/** One JSON-RPC call, anvil's own methods included (`anvil_setBalance`, `anvil_mine`, `evm_setAutomine`, …). */
export async function anvilRpc<T = unknown>(rpcUrl: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

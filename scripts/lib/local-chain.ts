/**
 * A local EVM chain for tests and `npm run dev` (DESIGN.md "EVM node"): anvil from the npm package
 * `@foundry-rs/anvil` (its platform package ships the binary; nothing downloads), and the pieces a
 * firm needs there that a real network already has — a stablecoin (contracts/TestStablecoin.sol)
 * and the operator's Safe (the audited Safe v1.4.1 contracts from the npm artifacts of
 * `@safe-global/safe-contracts`, deployed once per chain: singleton, proxy factory, then one proxy
 * per multisig). Amounts in stablecoin base units (6 decimals).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createPublicClient, createWalletClient, decodeEventLog, encodeFunctionData, http, zeroAddress, type Abi, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { artifact } from '../../activities/chain/artifacts.js';
import { SAFE_ABI } from '../../activities/chain/safe.js';

const require = createRequire(import.meta.url);

/** The anvil binary of this platform, from its npm package. @throws Error on a platform the package does not ship. */
export function anvilBinary(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const pkg = `@foundry-rs/anvil-${process.platform}-${arch}`;
  return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), 'bin', 'anvil');
}

/** A running anvil: its RPC URL, and `stop()` (SIGTERM; with `statePath`, anvil writes its state on exit). */
export interface Anvil {
  rpcUrl: string;
  stop(): Promise<void>;
}

/**
 * Starts anvil on 127.0.0.1:`port` (chain id 31337, anvil's default funded accounts) and waits
 * until it answers `eth_chainId` (at most 20 s). `statePath`: load the chain from it when present
 * and dump to it on exit (`--state`). @throws Error when anvil exits or does not answer in time.
 */
export async function startAnvil(opts: { port: number; statePath?: string; blockTimeS?: number }): Promise<Anvil> {
  const args = ['--host', '127.0.0.1', '--port', String(opts.port), '--silent', ...(opts.statePath ? ['--state', opts.statePath] : []), ...(opts.blockTimeS ? ['--block-time', String(opts.blockTimeS)] : [])];
  const child: ChildProcess = spawn(anvilBinary(), args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += String(d)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const rpcUrl = `http://127.0.0.1:${opts.port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`anvil exited with ${child.exitCode}: ${stderr}`);
    const ok = await fetch(rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }) }).then((r) => r.ok, () => false);
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`anvil did not answer on ${rpcUrl} within 20 s: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    rpcUrl,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** One JSON-RPC call (anvil's own methods included: `anvil_setBalance`, `anvil_mine`, …). */
export async function rpc<T = unknown>(rpcUrl: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

async function clients(rpcUrl: string, key: Hex) {
  const pub = createPublicClient({ transport: http(rpcUrl) });
  const id = await pub.getChainId();
  const chain = { id, name: `chain-${id}`, nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } };
  return { pub, wallet: createWalletClient({ account: privateKeyToAccount(key), chain, transport: http(rpcUrl) }) };
}

/** Deploys `bytecode` with `args` from `key`; returns the address and gas used. */
export async function deployContract(rpcUrl: string, key: Hex, abi: Abi, bytecode: Hex, args: unknown[] = []): Promise<{ address: Address; gasUsed: bigint }> {
  const { pub, wallet } = await clients(rpcUrl, key);
  const hash = await wallet.deployContract({ abi, bytecode, args } as never);
  const receipt = await pub.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`deploy ${hash} failed`);
  return { address: receipt.contractAddress, gasUsed: receipt.gasUsed };
}

/** Sends a contract call from `key` and waits for it; returns the receipt's hash and gas used. @throws Error when it reverts. */
export async function sendCall(rpcUrl: string, key: Hex, to: Address, abi: Abi, functionName: string, args: unknown[]): Promise<{ hash: Hex; gasUsed: bigint }> {
  const { pub, wallet } = await clients(rpcUrl, key);
  const hash = await wallet.writeContract({ address: to, abi, functionName, args } as never);
  const receipt = await pub.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error(`${functionName} ${hash} reverted`);
  return { hash, gasUsed: receipt.gasUsed };
}

/** Deploys a fresh TestStablecoin (6 decimals, open mint). */
export async function deployStablecoin(rpcUrl: string, key: Hex): Promise<Address> {
  const a = artifact('TestStablecoin');
  return (await deployContract(rpcUrl, key, a.abi, a.bytecode)).address;
}

/** Mints `amount` base units of a TestStablecoin to `to`. */
export async function mintStablecoin(rpcUrl: string, key: Hex, stablecoin: Address, to: Address, amount: bigint): Promise<void> {
  await sendCall(rpcUrl, key, stablecoin, artifact('TestStablecoin').abi, 'mint', [to, amount]);
}

const safeArtifact = (rel: string) => JSON.parse(readFileSync(require.resolve(`@safe-global/safe-contracts/build/artifacts/contracts/${rel}`), 'utf8')) as { abi: Abi; bytecode: Hex };
const safeInfra = new Map<string, Promise<{ singleton: Address; factory: Address }>>();

/** The Safe singleton and proxy factory on this chain, deployed once per process and chain. */
function safeContracts(rpcUrl: string, key: Hex) {
  let p = safeInfra.get(rpcUrl);
  if (!p) {
    p = (async () => {
      const safe = safeArtifact('Safe.sol/Safe.json');
      const factory = safeArtifact('proxies/SafeProxyFactory.sol/SafeProxyFactory.json');
      const singleton = (await deployContract(rpcUrl, key, safe.abi, safe.bytecode)).address;
      return { singleton, factory: (await deployContract(rpcUrl, key, factory.abi, factory.bytecode)).address };
    })();
    p.catch(() => safeInfra.delete(rpcUrl));
    safeInfra.set(rpcUrl, p);
  }
  return p;
}

/**
 * Creates a Safe v1.4.1 with `owners` and `threshold` (a proxy through SafeProxyFactory; no
 * fallback handler, no modules). Returns its address and the gas of its creation.
 */
export async function deployMultisig(rpcUrl: string, key: Hex, opts: { owners: Address[]; threshold: number; saltNonce?: bigint }): Promise<{ address: Address; gasUsed: bigint }> {
  const { singleton, factory } = await safeContracts(rpcUrl, key);
  const safeAbi = safeArtifact('Safe.sol/Safe.json').abi;
  const factoryAbi = safeArtifact('proxies/SafeProxyFactory.sol/SafeProxyFactory.json').abi;
  const initializer = encodeFunctionData({ abi: safeAbi, functionName: 'setup', args: [opts.owners, BigInt(opts.threshold), zeroAddress, '0x', zeroAddress, zeroAddress, 0n, zeroAddress] });
  const { pub, wallet } = await clients(rpcUrl, key);
  const hash = await wallet.writeContract({ address: factory, abi: factoryAbi, functionName: 'createProxyWithNonce', args: [singleton, initializer, opts.saltNonce ?? BigInt(Date.now())] } as never);
  const receipt = await pub.waitForTransactionReceipt({ hash });
  for (const log of receipt.logs) {
    try {
      const ev = decodeEventLog({ abi: factoryAbi, data: log.data, topics: log.topics }) as unknown as { eventName: string; args: { proxy: Address } };
      if (ev.eventName === 'ProxyCreation') return { address: ev.args.proxy, gasUsed: receipt.gasUsed };
    } catch {
      // another contract's event
    }
  }
  throw new Error(`no ProxyCreation in ${hash}`);
}

/** Executes a signed plain call through a Safe from `key` (any sender; the signatures authorise it). */
export async function executeSafeTx(rpcUrl: string, key: Hex, tx: { safe: Address; to: Address; data: Hex; signatures: Hex }): Promise<{ hash: Hex; gasUsed: bigint }> {
  return sendCall(rpcUrl, key, tx.safe, SAFE_ABI as Abi, 'execTransaction', [tx.to, 0n, tx.data, 0, 0n, 0n, 0n, zeroAddress, zeroAddress, tx.signatures]);
}

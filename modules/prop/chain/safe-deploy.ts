/**
 * Creating an operator multisig on a chain that has no Safe yet (the local chain of tests and
 * `npm run dev`): the audited Safe v1.4.1 singleton and SafeProxyFactory from the compiled
 * artifacts of the npm package `@safe-global/safe-contracts` (a dev dependency, loaded on first
 * use), then one SafeProxy per multisig. On a real network operators bring their own Safe.
 *
 * Idempotent per chain: singleton and factory are created through the deterministic CREATE2
 * deployer (0x4e59b44847b379578588920ca78fbf26c0b4956c, present on anvil by default) with salt 0,
 * so their addresses are fixed by their bytecode and found again by `eth_getCode` in any process
 * or after a restart of a node with persisted state. A multisig's address is fixed by the factory,
 * its owners, threshold and `salt` (Safe's `createProxyWithNonce`), so creating the same one twice
 * returns the existing proxy.
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import {
  concatHex,
  encodeFunctionData,
  encodePacked,
  getContractAddress,
  keccak256,
  pad,
  zeroAddress,
  type Abi,
  type Address,
  type Hex,
} from 'viem';
import { publicClient, walletClients, TxRevertedError } from './clients.js';
import { sendContractCall } from './tx.js';

/** The deterministic CREATE2 deployer ("Arachnid" proxy): input `salt ‖ initcode`, creates with CREATE2. */
export const CREATE2_DEPLOYER: Address = '0x4e59b44847b379578588920cA78FbF26c0B4956C';

const require = createRequire(import.meta.url);
const cache = new Map<string, { abi: Abi; bytecode: Hex }>();
/** A compiled Safe v1.4.1 contract from the npm package. */
function safeArtifact(rel: 'Safe.sol/Safe.json' | 'proxies/SafeProxyFactory.sol/SafeProxyFactory.json'): {
  abi: Abi;
  bytecode: Hex;
} {
  let a = cache.get(rel);
  if (!a) {
    a = JSON.parse(
      readFileSync(require.resolve(`@safe-global/safe-contracts/build/artifacts/contracts/${rel}`), 'utf8'),
    ) as { abi: Abi; bytecode: Hex };
    cache.set(rel, a);
  }
  return a;
}

/** Addresses of the Safe singleton and proxy factory on a chain. */
export interface SafeInfra {
  singleton: Address;
  factory: Address;
}

const SALT0 = pad('0x00', { size: 32 });
const create2Address = (bytecode: Hex): Address =>
  getContractAddress({ opcode: 'CREATE2', from: CREATE2_DEPLOYER, salt: SALT0, bytecode });

/** Where {@link ensureSafeInfra} puts the singleton and factory (pure). */
export function safeInfraAddresses(): SafeInfra {
  return {
    singleton: create2Address(safeArtifact('Safe.sol/Safe.json').bytecode),
    factory: create2Address(safeArtifact('proxies/SafeProxyFactory.sol/SafeProxyFactory.json').bytecode),
  };
}

/**
 * The Safe singleton and factory on this chain, created (from `deployerKey`, gas only) when absent.
 * Returns their addresses and the gas spent now (0 when both were already there).
 * @throws Error when the chain has no CREATE2 deployer (pass `infra` to {@link deployMultisig} there).
 */
export async function ensureSafeInfra(
  rpcUrl: string,
  deployerKey: Hex,
): Promise<SafeInfra & { gasUsed: { singleton: bigint; factory: bigint } }> {
  const pub = publicClient(rpcUrl);
  const has = async (a: Address) => ((await pub.getCode({ address: a })) ?? '0x').length > 2;
  const gasUsed = { singleton: 0n, factory: 0n };
  const out = safeInfraAddresses();
  for (const [key, rel] of [
    ['singleton', 'Safe.sol/Safe.json'],
    ['factory', 'proxies/SafeProxyFactory.sol/SafeProxyFactory.json'],
  ] as const) {
    if (await has(out[key])) continue;
    if (!(await has(CREATE2_DEPLOYER)))
      throw new Error(
        `no CREATE2 deployer at ${CREATE2_DEPLOYER} on ${rpcUrl}; give the Safe singleton and factory addresses instead`,
      );
    const { public: p, wallet } = await walletClients(rpcUrl, deployerKey);
    const hash = await wallet.sendTransaction({
      to: CREATE2_DEPLOYER,
      data: concatHex([SALT0, safeArtifact(rel).bytecode]),
    });
    const receipt = await p.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    if (receipt.status !== 'success' || !(await has(out[key])))
      throw new TxRevertedError(hash, receipt, `create Safe ${key}`);
    gasUsed[key] = receipt.gasUsed;
  }
  return { ...out, gasUsed };
}

/** Options of a new multisig: its owners, threshold, and the salt that fixes its address (default 0). */
export interface MultisigOptions {
  owners: Address[];
  threshold: number;
  salt?: bigint;
  /** Existing singleton and factory (a real network); default: {@link ensureSafeInfra}. */
  infra?: SafeInfra;
}

/** `setup(owners, threshold, …)` calldata of a Safe with no modules, no fallback handler, no payment. Pure. */
export function safeSetupData(owners: Address[], threshold: number): Hex {
  return encodeFunctionData({
    abi: safeArtifact('Safe.sol/Safe.json').abi,
    functionName: 'setup',
    args: [owners, BigInt(threshold), zeroAddress, '0x', zeroAddress, zeroAddress, 0n, zeroAddress],
  });
}

/** Where `createProxyWithNonce(singleton, setup(owners, threshold), salt)` puts the proxy (Safe v1.4.1's CREATE2 rule). */
export async function predictMultisigAddress(
  rpcUrl: string,
  infra: SafeInfra,
  opts: { owners: Address[]; threshold: number; salt?: bigint },
): Promise<Address> {
  const abi = safeArtifact('proxies/SafeProxyFactory.sol/SafeProxyFactory.json').abi;
  const creationCode = (await publicClient(rpcUrl).readContract({
    address: infra.factory,
    abi,
    functionName: 'proxyCreationCode',
  })) as Hex;
  const salt = keccak256(
    encodePacked(['bytes32', 'uint256'], [keccak256(safeSetupData(opts.owners, opts.threshold)), opts.salt ?? 0n]),
  );
  return getContractAddress({
    opcode: 'CREATE2',
    from: infra.factory,
    salt,
    bytecode: concatHex([creationCode, pad(infra.singleton, { size: 32 })]),
  });
}

/**
 * Creates a Safe v1.4.1 multisig with `owners` and `threshold` (a SafeProxy through the factory),
 * or finds the one these owners, threshold and salt already created. Returns its address, the
 * creation's hash and gas (null and 0n when it already existed). Tests/dev and operator tooling.
 * @throws Error on a threshold outside 1..owners.length; TxRevertedError when the creation reverts.
 */
export async function deployMultisigWithReceipt(
  rpcUrl: string,
  deployerKey: Hex,
  opts: MultisigOptions,
): Promise<{ address: Address; txHash: Hex | null; gasUsed: bigint }> {
  if (!Number.isInteger(opts.threshold) || opts.threshold < 1 || opts.threshold > opts.owners.length)
    throw new Error(`threshold ${opts.threshold} must be 1..${opts.owners.length}`);
  const infra = opts.infra ?? (await ensureSafeInfra(rpcUrl, deployerKey));
  const address = await predictMultisigAddress(rpcUrl, infra, opts);
  if (((await publicClient(rpcUrl).getCode({ address })) ?? '0x').length > 2)
    return { address, txHash: null, gasUsed: 0n };
  const sent = await sendContractCall(rpcUrl, deployerKey, {
    to: infra.factory,
    abi: safeArtifact('proxies/SafeProxyFactory.sol/SafeProxyFactory.json').abi,
    functionName: 'createProxyWithNonce',
    args: [infra.singleton, safeSetupData(opts.owners, opts.threshold), opts.salt ?? 0n],
  });
  return { address, txHash: sent.hash, gasUsed: sent.gasUsed };
}

/** {@link deployMultisigWithReceipt}, returning only the multisig's address. */
export async function deployMultisig(rpcUrl: string, deployerKey: Hex, opts: MultisigOptions): Promise<Address> {
  return (await deployMultisigWithReceipt(rpcUrl, deployerKey, opts)).address;
}

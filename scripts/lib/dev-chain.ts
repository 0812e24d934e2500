/**
 * The prop firms' chain for `npm run dev` (docs/architecture.md "EVM node"): `CHAIN_RPC_URL` when set, else
 * anvil from the npm package on `ANVIL_PORT` (default 8545) with its state in `.data/anvil-state.json`
 * (kept across restarts). On the local chain it also prepares what a real network would already
 * have: a funded platform deployer (`PROP_DEPLOYER_KEY`, key in `.data/prop-deployer-key` unless
 * set), a demo stablecoin and a demo 2-of-3 Safe whose owner keys stay in `.data/`. Everything is
 * reused when still on chain.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createPublicClient, http, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { deployMultisig, deployStablecoin } from '../../modules/prop/chain/index.js';
import { anvilRpc as rpc, startAnvil, type Anvil } from './anvil.js';

/** What dev.json records about the chain. */
export interface DevChain {
  rpcUrl: string;
  chainId: number;
  deployer: Address;
  /** Local chain only: the demo stablecoin and Safe (owners' keys in `.data/demo-safe-owner-<n>`). */
  stablecoin?: Address;
  safe?: Address;
  safeOwners?: Address[];
}

/**
 * Starts (or points at) the chain and prepares the demo pieces; `env` goes to the api and worker.
 * The anvil it starts stops with `stop()`, or when this process exits (scripts/lib/anvil.ts), or at
 * once when the set-up fails (the error is rethrown).
 */
export async function startDevChain(
  dataDir: string,
  previous?: DevChain,
): Promise<{ chain: DevChain; env: Record<string, string>; stop(): Promise<void> }> {
  const keyFile = (name: string): Hex => {
    const file = path.join(dataDir, name);
    if (!existsSync(file)) writeFileSync(file, generatePrivateKey(), { mode: 0o600 });
    return readFileSync(file, 'utf8').trim() as Hex;
  };
  const deployerKey = (process.env.PROP_DEPLOYER_KEY as Hex | undefined) ?? keyFile('prop-deployer-key');
  let anvil: Anvil | undefined;
  let rpcUrl = process.env.CHAIN_RPC_URL;
  if (!rpcUrl) {
    anvil = await startAnvil({
      port: Number(process.env.ANVIL_PORT ?? 8545),
      statePath: path.join(dataDir, 'anvil-state.json'),
    });
    rpcUrl = anvil.rpcUrl;
  }
  const client = createPublicClient({ transport: http(rpcUrl) });
  let chain: DevChain;
  try {
    chain = { rpcUrl, chainId: await client.getChainId(), deployer: privateKeyToAccount(deployerKey).address };
    if (anvil) {
      const setupKey = keyFile('dev-chain-setup-key');
      for (const key of [deployerKey, setupKey])
        await rpc(rpcUrl, 'anvil_setBalance', [privateKeyToAccount(key).address, '0x56bc75e2d63100000']);
      const onChain = async (a?: Address) => Boolean(a && (await client.getCode({ address: a }))?.length);
      const ownerKeys = [1, 2, 3].map((n) => keyFile(`demo-safe-owner-${n}`));
      chain.stablecoin = (await onChain(previous?.stablecoin))
        ? previous!.stablecoin
        : await deployStablecoin(rpcUrl, setupKey);
      chain.safeOwners = ownerKeys.map((k) => privateKeyToAccount(k).address);
      chain.safe = (await onChain(previous?.safe))
        ? previous!.safe
        : await deployMultisig(rpcUrl, setupKey, { owners: chain.safeOwners, threshold: 2 });
    }
  } catch (err) {
    await anvil?.stop(); // a failed set-up leaves no node behind
    throw err;
  }
  return { chain, env: { CHAIN_RPC_URL: rpcUrl, PROP_DEPLOYER_KEY: deployerKey }, stop: async () => anvil?.stop() };
}

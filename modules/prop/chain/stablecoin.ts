/**
 * The stablecoin side: balances and approvals of any ERC-20, and the local chain's
 * TestStablecoin (contracts/TestStablecoin.sol: 6 decimals, open `mint`; tests and `npm run dev`
 * only — never deploy it on a real network). Amounts are token base units (bigint; 1 USD =
 * 1_000_000 units for a 6-decimal stablecoin).
 */
import { erc20Abi, type Address, type Hex } from 'viem';
import { artifact } from './artifacts.js';
import { publicClient } from './clients.js';
import { contractWrite, deployContract } from './tx.js';

/** Deploys a fresh TestStablecoin from `deployerKey`; returns its address. Tests/dev only. */
export async function deployStablecoin(rpcUrl: string, deployerKey: Hex): Promise<Address> {
  const a = artifact('TestStablecoin');
  return (await deployContract(rpcUrl, deployerKey, { abi: a.abi, bytecode: a.bytecode })).address;
}

/** `mintStablecoin(rpcUrl, senderKey, stablecoin, to, amount)`: mints `amount` base units of a TestStablecoin to `to` (anyone may). Tests/dev only. */
export const mintStablecoin = contractWrite<[to: Address, amount: bigint]>('TestStablecoin', 'mint');

/** `approveStablecoin(rpcUrl, ownerKey, stablecoin, spender, amount)`: ERC-20 `approve(spender, amount)` from `ownerKey` (base units). */
export const approveStablecoin = contractWrite<[spender: Address, amount: bigint]>(erc20Abi, 'approve');

/** ERC-20 balance of `holder` in base units. */
export async function stablecoinBalance(rpcUrl: string, stablecoin: Address, holder: Address): Promise<bigint> {
  return publicClient(rpcUrl).readContract({
    address: stablecoin,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [holder],
  });
}

/**
 * The stablecoin side: balances and approvals of any ERC-20, and the local chain's
 * TestStablecoin (contracts/TestStablecoin.sol: 6 decimals, open `mint`; tests and `npm run dev`
 * only — never deploy it on a real network). Amounts are token base units (bigint; 1 USD =
 * 1_000_000 units for a 6-decimal stablecoin).
 */
import { erc20Abi, type Address, type Hex } from 'viem';
import { artifact } from './artifacts.js';
import { publicClient } from './clients.js';
import { deployContract, sendContractCall, type SentCall } from './tx.js';

/** Deploys a fresh TestStablecoin from `deployerKey`; returns its address. Tests/dev only. */
export async function deployStablecoin(rpcUrl: string, deployerKey: Hex): Promise<Address> {
  const a = artifact('TestStablecoin');
  return (await deployContract(rpcUrl, deployerKey, { abi: a.abi, bytecode: a.bytecode })).address;
}

/** Mints `amount` base units of a TestStablecoin to `to` (anyone may). Tests/dev only. */
export async function mintStablecoin(
  rpcUrl: string,
  senderKey: Hex,
  stablecoin: Address,
  to: Address,
  amount: bigint,
): Promise<SentCall> {
  return sendContractCall(rpcUrl, senderKey, {
    to: stablecoin,
    abi: artifact('TestStablecoin').abi,
    functionName: 'mint',
    args: [to, amount],
  });
}

/** ERC-20 `approve(spender, amount)` from `ownerKey` (base units). */
export async function approveStablecoin(
  rpcUrl: string,
  ownerKey: Hex,
  stablecoin: Address,
  spender: Address,
  amount: bigint,
): Promise<SentCall> {
  return sendContractCall(rpcUrl, ownerKey, {
    to: stablecoin,
    abi: erc20Abi,
    functionName: 'approve',
    args: [spender, amount],
  });
}

/** ERC-20 balance of `holder` in base units. */
export async function stablecoinBalance(rpcUrl: string, stablecoin: Address, holder: Address): Promise<bigint> {
  return publicClient(rpcUrl).readContract({
    address: stablecoin,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [holder],
  });
}

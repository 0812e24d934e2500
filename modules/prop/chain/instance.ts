/**
 * The PropInstance contract from TypeScript (contracts/PropInstance.sol): deploy data, live
 * reads, the payout call the owner's multisig executes, and finding an executed payout. Amounts
 * are stablecoin base units (bigint; 6 decimals, domain/prop/rules.ts converts to USD).
 */
import { encodeDeployData, encodeFunctionData, getContractAddress, parseAbiItem, type Address, type Hex } from 'viem';
import { artifact } from './artifacts.js';
import { publicClient as client } from './clients.js';
import { contractWrite } from './tx.js';

/** Constructor arguments: the owner multisig, the stablecoin, bytes32 firm id and rules hash. */
export interface InstanceArgs {
  owner: Address;
  stablecoin: Address;
  firmId: Hex;
  rulesHash: Hex;
}

/** Creation bytecode with the encoded constructor arguments (the deploy transaction's `data`). Pure. */
export function propInstanceDeployData(args: InstanceArgs): { data: Hex } {
  const a = artifact('PropInstance');
  return {
    data: encodeDeployData({
      abi: a.abi,
      bytecode: a.bytecode,
      args: [args.owner, args.stablecoin, args.firmId, args.rulesHash],
    }),
  };
}

/**
 * Where a contract created by `deployer` with `nonce` lands (CREATE: keccak256(rlp(deployer, nonce))).
 * Pure. With {@link broadcastDeploy}'s explicit nonce this is the instance's address before it is mined.
 */
export function predictInstanceAddress(deployer: Address, nonce: number | bigint): Address {
  return getContractAddress({ from: deployer, nonce: BigInt(nonce) });
}

/** What an instance holds and commits, read live (base units). */
export interface InstanceState {
  owner: Address;
  stablecoin: Address;
  firmId: Hex;
  rulesHash: Hex;
  totalDeposits: bigint;
  totalCollateral: bigint;
  totalPayouts: bigint;
  treasury: bigint;
}

/** The instance's stablecoin balance (`treasury()`), base units. @throws Error as {@link readInstance}. */
export async function readTreasury(rpcUrl: string, address: Address): Promise<bigint> {
  return (await client(rpcUrl).readContract({
    address,
    abi: artifact('PropInstance').abi,
    functionName: 'treasury',
  })) as bigint;
}

/** Whether `payoutId` (bytes32) has been paid by the instance (`payoutExecuted` mapping). */
export async function readPayoutExecuted(rpcUrl: string, instance: Address, payoutId: Hex): Promise<boolean> {
  return (await client(rpcUrl).readContract({
    address: instance,
    abi: artifact('PropInstance').abi,
    functionName: 'payoutExecuted',
    args: [payoutId],
  })) as boolean;
}

/**
 * `depositChallenge(rpcUrl, payerKey, instance, propAccountId, amount)`: pays a challenge deposit of `amount` base
 * units for `propAccountId` (bytes32) from `payerKey` into the instance (`deposit`; the payer must have approved the
 * instance for the stablecoin). Emits `ChallengeDeposit`. @throws as {@link contractWrite} (e.g.
 * `InsufficientAllowance`, `ZeroAmount`).
 */
export const depositChallenge = contractWrite<[propAccountId: Hex, amount: bigint]>('PropInstance', 'deposit');

/**
 * `postCollateral(rpcUrl, fromKey, instance, amount)`: posts `amount` base units of backing collateral from
 * `fromKey` (approved) into the instance. Emits `CollateralPosted`.
 */
export const postCollateral = contractWrite<[amount: bigint]>('PropInstance', 'postCollateral');

/** Reads an instance's state. @throws Error when the node cannot be reached or `address` is no PropInstance. */
export async function readInstance(rpcUrl: string, address: Address): Promise<InstanceState> {
  const c = client(rpcUrl);
  const abi = artifact('PropInstance').abi;
  const read = <T>(functionName: string) => c.readContract({ address, abi, functionName }) as Promise<T>;
  const [owner, stablecoin, firmId, rulesHash, totalDeposits, totalCollateral, totalPayouts, treasury] =
    await Promise.all([
      read<Address>('owner'),
      read<Address>('stablecoin'),
      read<Hex>('firmId'),
      read<Hex>('rulesHash'),
      read<bigint>('totalDeposits'),
      read<bigint>('totalCollateral'),
      read<bigint>('totalPayouts'),
      read<bigint>('treasury'),
    ]);
  return { owner, stablecoin, firmId, rulesHash, totalDeposits, totalCollateral, totalPayouts, treasury };
}

/** Calldata of `payout(payoutId, to, amount)`: what the owner multisig executes on the instance. Pure. */
export function payoutCall(payoutId: Hex, to: Address, amount: bigint): Hex {
  return encodeFunctionData({
    abi: artifact('PropInstance').abi,
    functionName: 'payout',
    args: [payoutId, to, amount],
  });
}

const PAYOUT_EXECUTED = parseAbiItem(
  'event PayoutExecuted(bytes32 indexed payoutId, address indexed to, uint256 amount)',
);

/**
 * The transaction that executed `payoutId` on the instance (from its `PayoutExecuted` log, searched
 * from `fromBlock`), or null when the mapping says it has not been executed. `amount` in base units.
 */
export async function findPayoutExecution(
  rpcUrl: string,
  instance: Address,
  payoutId: Hex,
  fromBlock = 0n,
): Promise<{ txHash: Hex; blockNumber: bigint; to: Address; amount: bigint } | null> {
  const c = client(rpcUrl);
  const done = (await c.readContract({
    address: instance,
    abi: artifact('PropInstance').abi,
    functionName: 'payoutExecuted',
    args: [payoutId],
  })) as boolean;
  if (!done) return null;
  const [log] = await c.getLogs({
    address: instance,
    event: PAYOUT_EXECUTED,
    args: { payoutId },
    fromBlock,
    toBlock: 'latest',
  });
  if (!log) return null;
  return { txHash: log.transactionHash, blockNumber: log.blockNumber, to: log.args.to!, amount: log.args.amount! };
}

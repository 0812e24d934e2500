/**
 * The PropInstance contract from TypeScript (contracts/PropInstance.sol): deploy data, live
 * reads, the payout call the owner's multisig executes, and finding an executed payout. Amounts
 * are stablecoin base units (bigint; 6 decimals, domain/prop/rules.ts converts to USD).
 */
import { createPublicClient, encodeDeployData, encodeFunctionData, http, parseAbiItem, type Address, type Hex } from 'viem';
import { artifact } from './artifacts.js';

const client = (rpcUrl: string) => createPublicClient({ transport: http(rpcUrl, { retryCount: 0 }) });

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
  return { data: encodeDeployData({ abi: a.abi, bytecode: a.bytecode, args: [args.owner, args.stablecoin, args.firmId, args.rulesHash] }) };
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

/** Reads an instance's state. @throws Error when the node cannot be reached or `address` is no PropInstance. */
export async function readInstance(rpcUrl: string, address: Address): Promise<InstanceState> {
  const c = client(rpcUrl);
  const abi = artifact('PropInstance').abi;
  const read = <T>(functionName: string) => c.readContract({ address, abi, functionName }) as Promise<T>;
  const [owner, stablecoin, firmId, rulesHash, totalDeposits, totalCollateral, totalPayouts, treasury] = await Promise.all([
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
  return encodeFunctionData({ abi: artifact('PropInstance').abi, functionName: 'payout', args: [payoutId, to, amount] });
}

const PAYOUT_EXECUTED = parseAbiItem('event PayoutExecuted(bytes32 indexed payoutId, address indexed to, uint256 amount)');

/** The transaction that executed `payoutId` on the instance, or null when it has not been executed. */
export async function findPayoutExecution(rpcUrl: string, instance: Address, payoutId: Hex, fromBlock = 0n): Promise<{ txHash: Hex; blockNumber: bigint; to: Address; amount: bigint } | null> {
  const c = client(rpcUrl);
  const done = (await c.readContract({ address: instance, abi: artifact('PropInstance').abi, functionName: 'payoutExecuted', args: [payoutId] })) as boolean;
  if (!done) return null;
  const [log] = await c.getLogs({ address: instance, event: PAYOUT_EXECUTED, args: { payoutId }, fromBlock, toBlock: 'latest' });
  if (!log) return null;
  return { txHash: log.transactionHash, blockNumber: log.blockNumber, to: log.args.to!, amount: log.args.amount! };
}

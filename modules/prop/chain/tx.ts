/**
 * Sending transactions so that a retry never does the work twice, and reading their receipts
 * without throwing while they are pending.
 */
import { getAddress, keccak256, type Abi, type Address, type Hex, type Transaction } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { artifact, type ContractName } from './artifacts.js';
import { NonceConflictError, publicClient, TxRevertedError, walletClients } from './clients.js';

/** Fee and gas of a transaction; omitted values are asked of the node. */
export interface TxFees {
  /** Gas limit. Default: the node's estimate + 20 %. */
  gas?: bigint;
  /** Default: 2 × the node's suggested `maxFeePerGas`. */
  maxFeePerGas?: bigint;
  /** Default: the node's suggested `maxPriorityFeePerGas`. */
  maxPriorityFeePerGas?: bigint;
}

const rpcCall = async <T>(rpcUrl: string, method: string, params: unknown[]): Promise<T> =>
  (publicClient(rpcUrl).request as (a: { method: string; params: unknown[] }) => Promise<T>)({ method, params });

/**
 * The transaction `sender` sent with `nonce`, pending or mined, or null when none is found. Tries,
 * in order: `ots_getTransactionBySenderAndNonce` / `eth_getTransactionBySenderAndNonce` (anvil,
 * Erigon, Reth), the node's `txpool_content` (pending), then the last `lookbackBlocks` blocks.
 */
export async function findTransactionBySenderAndNonce(
  rpcUrl: string,
  sender: Address,
  nonce: bigint,
  lookbackBlocks = 256,
): Promise<Transaction | null> {
  const pub = publicClient(rpcUrl);
  for (const method of ['ots_getTransactionBySenderAndNonce', 'eth_getTransactionBySenderAndNonce']) {
    const hash = await rpcCall<Hex | { hash: Hex } | null>(rpcUrl, method, [sender, `0x${nonce.toString(16)}`]).catch(
      () => null,
    );
    const h = typeof hash === 'string' ? hash : hash?.hash;
    if (h) {
      const tx = await pub.getTransaction({ hash: h }).catch(() => null);
      if (tx) return tx;
    }
  }
  const pool = await rpcCall<{
    pending?: Record<string, Record<string, { hash: Hex }>>;
    queued?: Record<string, Record<string, { hash: Hex }>>;
  }>(rpcUrl, 'txpool_content', []).catch(() => null);
  for (const section of [pool?.pending, pool?.queued]) {
    for (const [from, byNonce] of Object.entries(section ?? {})) {
      if (from.toLowerCase() !== sender.toLowerCase()) continue;
      const hit = byNonce[nonce.toString()];
      if (hit) return pub.getTransaction({ hash: hit.hash }).catch(() => null);
    }
  }
  const head = await pub.getBlockNumber();
  for (let b = head; b >= 0n && head - b < BigInt(lookbackBlocks); b--) {
    const block = await pub.getBlock({ blockNumber: b, includeTransactions: true });
    const tx = block.transactions.find(
      (t) => t.from.toLowerCase() === sender.toLowerCase() && BigInt(t.nonce) === nonce,
    );
    if (tx) return tx;
  }
  return null;
}

const sameDeploy = (tx: Transaction, data: Hex) => tx.to === null && tx.input.toLowerCase() === data.toLowerCase();

/**
 * Broadcasts a contract creation (`data` = creation bytecode + constructor args, e.g.
 * {@link propInstanceDeployData}) from `deployerKey` with the EXPLICIT `nonce` and returns its
 * transaction hash. The contract's address is fixed by (deployer, nonce): {@link predictInstanceAddress}.
 *
 * Idempotent, so an activity can be retried freely:
 * - the nonce already used by a creation with the same `data` (mined or pending) → that
 *   transaction's hash, nothing is sent;
 * - else the transaction is signed (EIP-1559; `fees` or the node's) and sent; a node answering
 *   "already known", "nonce too low" or "replacement transaction underpriced" (an earlier send
 *   raced us) → the hash of the transaction that holds the nonce, when it is this same deploy.
 * With the same `fees` the signed bytes are identical, so a re-send is the same hash outright.
 * Only one contract can ever come of one (deployer, nonce).
 *
 * @throws NonceConflictError when the nonce was consumed by a different transaction (or one that
 *   cannot be found within 256 blocks): the deploy must be re-planned with a new nonce.
 * @throws Error on transport failures and when the node refuses the transaction otherwise
 *   (e.g. the constructor reverts in gas estimation, insufficient funds for gas).
 */
export async function broadcastDeploy(
  rpcUrl: string,
  deployerKey: Hex,
  data: Hex,
  opts: { nonce: number | bigint } & TxFees,
): Promise<Hex> {
  const nonce = BigInt(opts.nonce);
  const { public: pub, wallet, chainId } = await walletClients(rpcUrl, deployerKey);
  const from = wallet.account.address;
  const holder = async (): Promise<Hex | null> => {
    const tx = await findTransactionBySenderAndNonce(rpcUrl, from, nonce);
    if (!tx) return null;
    if (!sameDeploy(tx, data)) throw new NonceConflictError(from, nonce, tx.hash);
    return tx.hash;
  };
  const [latest, pending] = await Promise.all([
    pub.getTransactionCount({ address: from, blockTag: 'latest' }),
    pub.getTransactionCount({ address: from, blockTag: 'pending' }),
  ]);
  if (BigInt(pending) > nonce) {
    const h = await holder();
    if (h) return h;
    if (BigInt(latest) > nonce) throw new NonceConflictError(from, nonce, null);
  }
  const gas = opts.gas ?? ((await pub.estimateGas({ account: from, data })) * 12n) / 10n;
  const fees =
    opts.maxFeePerGas !== undefined && opts.maxPriorityFeePerGas !== undefined ? null : await pub.estimateFeesPerGas();
  const rawTx = await privateKeyToAccount(deployerKey).signTransaction({
    type: 'eip1559',
    chainId,
    nonce: Number(nonce),
    data,
    gas,
    maxFeePerGas: opts.maxFeePerGas ?? fees!.maxFeePerGas * 2n,
    maxPriorityFeePerGas: opts.maxPriorityFeePerGas ?? fees!.maxPriorityFeePerGas,
  });
  const hash = keccak256(rawTx);
  try {
    await pub.sendRawTransaction({ serializedTransaction: rawTx });
  } catch (err) {
    const msg = String((err as Error).message ?? err).toLowerCase();
    if (
      !/already known|already imported|known transaction|nonce too low|replacement transaction underpriced|underpriced/.test(
        msg,
      )
    )
      throw err;
    const h = await holder();
    if (h) return h;
    if (/already known|already imported|known transaction/.test(msg)) return hash;
    throw err;
  }
  return hash;
}

/** A mined transaction's outcome (`contractAddress` for a creation; gas in gas units). */
export interface MinedReceipt {
  status: 'success' | 'reverted';
  contractAddress: Address | null;
  gasUsed: bigint;
  blockNumber: bigint;
  /** Blocks on top of and including the receipt's block (1 = just mined). */
  confirmations: number;
}

/**
 * The receipt of `txHash` once it has at least `confirmations` (default 1 = mined), else null —
 * also null when the node does not know the transaction (never throws "not found"). With
 * `timeoutMs` it polls every `pollMs` (default 250) until then; without, it checks once (what a
 * Temporal activity that is retried on a schedule wants).
 * @throws Error only on transport failures.
 */
export async function waitForReceipt(
  rpcUrl: string,
  txHash: Hex,
  confirmations = 1,
  opts: { timeoutMs?: number; pollMs?: number } = {},
): Promise<MinedReceipt | null> {
  const pub = publicClient(rpcUrl);
  const deadline = Date.now() + (opts.timeoutMs ?? 0);
  for (;;) {
    const receipt = await pub.getTransactionReceipt({ hash: txHash }).catch((err: Error) => {
      if (err.name === 'TransactionReceiptNotFoundError') return null;
      throw err;
    });
    if (receipt) {
      const depth = Number((await pub.getBlockNumber()) - receipt.blockNumber + 1n);
      if (depth >= confirmations)
        return {
          status: receipt.status,
          contractAddress: receipt.contractAddress ? getAddress(receipt.contractAddress) : null,
          gasUsed: receipt.gasUsed,
          blockNumber: receipt.blockNumber,
          confirmations: depth,
        };
    }
    if (Date.now() >= deadline) return null;
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 250));
  }
}

/** What {@link sendContractCall} returns: the mined transaction's hash and gas used. */
export interface SentCall {
  hash: Hex;
  gasUsed: bigint;
  blockNumber: bigint;
}

/**
 * Calls `functionName(args)` on `to` from `key` and waits until it is mined. Without `gas` the
 * node simulates first, so a call that would revert throws viem's `ContractFunctionExecutionError`
 * (its message carries the decoded custom error or revert string) and nothing is sent; with `gas`
 * the transaction is sent as is and a revert is mined.
 * @throws TxRevertedError when the mined transaction reverted.
 */
export async function sendContractCall(
  rpcUrl: string,
  key: Hex,
  call: { to: Address; abi: Abi; functionName: string; args: readonly unknown[]; gas?: bigint },
): Promise<SentCall> {
  const { public: pub, wallet } = await walletClients(rpcUrl, key);
  const hash = await wallet.writeContract({
    address: call.to,
    abi: call.abi,
    functionName: call.functionName,
    args: call.args,
    ...(call.gas ? { gas: call.gas } : {}),
  });
  const receipt = await pub.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  if (receipt.status !== 'success') throw new TxRevertedError(hash, receipt, call.functionName);
  return { hash, gasUsed: receipt.gasUsed, blockNumber: receipt.blockNumber };
}

/**
 * One write of a contract as a function `(rpcUrl, signerKey, contract, ...args) => SentCall`: `functionName` of
 * `abi` (an ABI, or one of our compiled contracts, loaded at the first call) with the positional `args` the
 * function is typed with, sent and mined by {@link sendContractCall}.
 * @throws as {@link sendContractCall} (`TxRevertedError` with the contract's custom error).
 */
export function contractWrite<A extends readonly unknown[]>(abi: Abi | ContractName, functionName: string) {
  return (rpcUrl: string, key: Hex, contract: Address, ...args: A): Promise<SentCall> =>
    sendContractCall(rpcUrl, key, {
      to: contract,
      abi: typeof abi === 'string' ? artifact(abi).abi : abi,
      functionName,
      args,
    });
}

/**
 * Deploys `bytecode` with constructor `args` from `key` (next nonce) and waits for it.
 * For tests and dev setup; the platform's own deploys go through {@link broadcastDeploy}.
 * @throws TxRevertedError when the creation reverted.
 */
export async function deployContract(
  rpcUrl: string,
  key: Hex,
  c: { abi: Abi; bytecode: Hex; args?: readonly unknown[] },
): Promise<{ address: Address } & SentCall> {
  const { public: pub, wallet } = await walletClients(rpcUrl, key);
  const hash = await wallet.deployContract({ abi: c.abi, bytecode: c.bytecode, args: c.args ?? [] });
  const receipt = await pub.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  if (receipt.status !== 'success' || !receipt.contractAddress) throw new TxRevertedError(hash, receipt, 'deploy');
  return {
    address: getAddress(receipt.contractAddress),
    hash,
    gasUsed: receipt.gasUsed,
    blockNumber: receipt.blockNumber,
  };
}

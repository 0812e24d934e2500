/**
 * viem clients for one EVM node (`CHAIN_RPC_URL`), and the errors the chain layer throws.
 * No retries inside the transport: a failed RPC call surfaces at once and the Temporal activity
 * that made it retries as a whole (the chain functions are written to be safe to repeat).
 */
import {
  createPublicClient,
  createWalletClient,
  http,
  type Account,
  type Chain,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
  type Transport,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

/** A chain known only by its id and RPC URL (no block explorer, ether as native currency). */
export function chainOf(chainId: number, rpcUrl: string): Chain {
  return {
    id: chainId,
    name: `chain-${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  };
}

/** A read client (no chain id needed). */
export function publicClient(rpcUrl: string): PublicClient {
  return createPublicClient({ transport: http(rpcUrl, { retryCount: 0 }) });
}

/** The clients of one node: `public` for reads; `wallet` (signing with `privateKey`) when a key is given. */
export interface ChainClients {
  public: PublicClient;
  wallet?: WalletClient<Transport, Chain, Account>;
  chainId: number;
}

/**
 * Clients for the node at `rpcUrl`; reads its chain id once (`eth_chainId`).
 * @throws Error when the node cannot be reached.
 */
export async function chainClients(rpcUrl: string, privateKey?: Hex): Promise<ChainClients> {
  const pub = publicClient(rpcUrl);
  const chainId = await pub.getChainId();
  const wallet = privateKey
    ? createWalletClient({
        account: privateKeyToAccount(privateKey),
        chain: chainOf(chainId, rpcUrl),
        transport: http(rpcUrl, { retryCount: 0 }),
      })
    : undefined;
  return { public: pub, wallet, chainId };
}

/** Same as {@link chainClients} but the wallet is required (the caller passed a key). */
export async function walletClients(rpcUrl: string, privateKey: Hex) {
  const c = await chainClients(rpcUrl, privateKey);
  return { ...c, wallet: c.wallet! };
}

/** A transaction was mined and reverted (`receipt.status === 'reverted'`). */
export class TxRevertedError extends Error {
  constructor(
    readonly txHash: Hex,
    readonly receipt: TransactionReceipt,
    what = 'transaction',
  ) {
    super(`${what} ${txHash} reverted in block ${receipt.blockNumber}`);
    this.name = 'TxRevertedError';
  }
}

/** A deployer nonce was consumed by a transaction other than the one being (re)sent. */
export class NonceConflictError extends Error {
  constructor(
    readonly sender: Hex,
    readonly nonce: bigint,
    readonly otherTxHash: Hex | null,
  ) {
    super(
      `nonce ${nonce} of ${sender} was used by ${otherTxHash ?? 'a transaction not found within the look-back window'}`,
    );
    this.name = 'NonceConflictError';
  }
}

/**
 * Activities of `firm-deploy-<firmId>` (docs/api.md §1 custody rules, §4.8; modules/prop/workflows/firm-deploy.ts).
 *
 * The deploy transaction is signed once (`signFirmDeploy`) with an explicit deployer nonce taken
 * from PostgreSQL and the chain, and its raw bytes travel in the workflow history: every retry,
 * worker restart or chain-node restart re-sends the SAME signed transaction, so at most one
 * PropInstance can ever come of one deploy (a second send is "already known" or "nonce too low").
 * The deployer pays gas only: the instance's owner is the firm's multisig from its constructor.
 */
import { ApplicationFailure } from '@temporalio/common';
import { createPublicClient, http, keccak256, getContractAddress, type Hex, type Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { Firm } from '../../../db/entities.js';
import { firmRules } from '../../../db/prop.js';
import { scoped } from '../../../db/orm.js';
import { nextChainNonce } from '../../../db/chain-nonces.js';
import { propInstanceDeployData, readInstance, rulesHash } from '../chain/index.js';
import { rpcOf, type PropDeps } from './chain-deps.js';
import { idBytes32 } from '../../../domain/prop/commitments.js';

/** A signed, not yet mined deploy: everything a re-send or a receipt check needs. */
export interface SignedDeploy {
  deployer: Address;
  nonce: number;
  rawTx: Hex;
  txHash: Hex;
  /** Where the instance lands (the deployer's address and nonce decide it). */
  instanceAddress: Address;
  rulesHash: Hex;
}

/** A deploy receipt once it has `confirmations` blocks; `confirmed: false` while pending. */
export type DeployReceipt =
  | { confirmed: false; seen: boolean }
  | { confirmed: true; blockNumber: string; gasUsed: string; status: 'success' | 'reverted' };

const client = (rpcUrl: string) => createPublicClient({ transport: http(rpcUrl, { retryCount: 0 }) });

export function firmDeployActivities(deps: PropDeps) {
  return {
    /**
     * Signs the firm's deploy transaction once: marks the firm `deploying`, computes the rules
     * hash, allocates the deployer nonce and signs (EIP-1559, fees and gas from the node).
     * @throws ApplicationFailure `deployer_unconfigured` (non-retryable) without a deployer key;
     *   `invalid_state` when the firm is not `draft` or `deploying`, or its owner or stablecoin has no code.
     */
    async signFirmDeploy(tenantId: string, firmId: string): Promise<SignedDeploy> {
      if (!deps.chain.deployerKey)
        throw ApplicationFailure.create({
          type: 'deployer_unconfigured',
          message: 'PROP_DEPLOYER_KEY is not set',
          nonRetryable: true,
        });
      const rpcUrl = rpcOf(deps.chain);
      const em = scoped(deps.orm, tenantId);
      const firm = await em.findOneOrFail(Firm, { id: firmId });
      if (firm.status !== 'draft' && firm.status !== 'deploying')
        throw ApplicationFailure.create({
          type: 'invalid_state',
          message: `firm ${firmId} is ${firm.status}`,
          nonRetryable: true,
        });
      const hash = rulesHash(await firmRules(deps.orm, tenantId, firmId));
      const { data } = propInstanceDeployData({
        owner: firm.ownerAddress as Address,
        stablecoin: firm.stablecoinAddress as Address,
        firmId: idBytes32(firmId),
        rulesHash: hash,
      });
      const account = privateKeyToAccount(deps.chain.deployerKey);
      const pub = client(rpcUrl);
      const chainId = await pub.getChainId();
      if (chainId !== firm.chainId)
        throw ApplicationFailure.create({
          type: 'chain_mismatch',
          message: `firm is on chain ${firm.chainId}, CHAIN_RPC_URL is chain ${chainId}`,
          nonRetryable: true,
        });
      // PropInstance's constructor refuses an owner or a stablecoin without code: say so instead of retrying gas estimation.
      for (const [what, address] of [
        ['owner', firm.ownerAddress],
        ['stablecoin', firm.stablecoinAddress],
      ] as const) {
        if (!(await pub.getCode({ address: address as Address }))?.length)
          throw ApplicationFailure.create({
            type: 'invalid_state',
            message: `the firm's ${what} ${address} is not a contract on chain ${chainId} (the owner must be a multisig, e.g. a Safe)`,
            nonRetryable: true,
          });
      }
      const pending = await pub.getTransactionCount({ address: account.address, blockTag: 'pending' });
      const nonce = await nextChainNonce(deps.orm, `deployer:${chainId}:${account.address.toLowerCase()}`, pending);
      const [gas, fees] = await Promise.all([
        pub.estimateGas({ account: account.address, data }),
        pub.estimateFeesPerGas(),
      ]);
      const rawTx = await account.signTransaction({
        type: 'eip1559',
        chainId,
        nonce,
        data,
        gas: (gas * 12n) / 10n,
        maxFeePerGas: fees.maxFeePerGas * 2n,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      });
      firm.status = 'deploying';
      firm.rulesHash = hash;
      await em.flush();
      return {
        deployer: account.address,
        nonce,
        rawTx,
        txHash: keccak256(rawTx),
        instanceAddress: getContractAddress({ from: account.address, nonce: BigInt(nonce) }),
        rulesHash: hash,
      };
    },

    /** Sends the signed deploy; a node that already has it (or mined it) is fine. Retryable on transport errors. */
    async broadcastFirmDeploy(rawTx: Hex): Promise<void> {
      await sendRaw(rpcOf(deps.chain), rawTx);
    },

    /**
     * The deploy's receipt once it has the configured confirmations. A node that lost the
     * transaction (restarted without it) while its nonce is still free gets the same signed
     * transaction again.
     */
    async firmDeployReceipt(signed: SignedDeploy): Promise<DeployReceipt> {
      const rpcUrl = rpcOf(deps.chain);
      const pub = client(rpcUrl);
      const receipt = await pub.getTransactionReceipt({ hash: signed.txHash }).catch(() => null);
      if (!receipt) {
        const known = await pub.getTransaction({ hash: signed.txHash }).catch(() => null);
        if (!known) {
          const used = await pub.getTransactionCount({ address: signed.deployer, blockTag: 'latest' });
          if (used <= signed.nonce) await sendRaw(rpcUrl, signed.rawTx);
          else
            throw ApplicationFailure.create({
              type: 'deploy_replaced',
              message: `deployer nonce ${signed.nonce} was used by another transaction`,
              nonRetryable: true,
            });
        }
        return { confirmed: false, seen: !!known };
      }
      const head = await pub.getBlockNumber();
      if (head - receipt.blockNumber + 1n < BigInt(deps.chain.confirmations)) return { confirmed: false, seen: true };
      return {
        confirmed: true,
        blockNumber: receipt.blockNumber.toString(),
        gasUsed: receipt.gasUsed.toString(),
        status: receipt.status,
      };
    },

    /**
     * Verifies the deployed instance on-chain: owner = the firm's multisig, stablecoin and rules
     * hash as committed, and records the firm `deployed`.
     * @throws ApplicationFailure `owner_mismatch` (non-retryable) when the chain disagrees.
     */
    async verifyFirmDeploy(
      tenantId: string,
      firmId: string,
      signed: SignedDeploy,
      receipt: { blockNumber: string },
    ): Promise<void> {
      const em = scoped(deps.orm, tenantId);
      const firm = await em.findOneOrFail(Firm, { id: firmId });
      const onChain = await readInstance(rpcOf(deps.chain), signed.instanceAddress);
      const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
      if (
        !same(onChain.owner, firm.ownerAddress) ||
        !same(onChain.stablecoin, firm.stablecoinAddress) ||
        onChain.rulesHash !== signed.rulesHash
      ) {
        throw ApplicationFailure.create({
          type: 'owner_mismatch',
          message: `instance ${signed.instanceAddress}: owner ${onChain.owner}, stablecoin ${onChain.stablecoin}, rules ${onChain.rulesHash}`,
          nonRetryable: true,
        });
      }
      if (firm.status === 'deploying') {
        Object.assign(firm, {
          status: 'deployed',
          instanceAddress: signed.instanceAddress,
          deployTxHash: signed.txHash,
          deployBlock: receipt.blockNumber,
          deployedAt: new Date(),
        });
        await em.flush();
      }
    },

    /** Records a firm status set by the deploy workflow (`live`, `paused`, or back to `draft` after a failed deploy). */
    async recordFirmStatus(tenantId: string, firmId: string, to: 'live' | 'paused' | 'draft'): Promise<void> {
      const em = scoped(deps.orm, tenantId);
      const firm = await em.findOneOrFail(Firm, { id: firmId });
      firm.status = to;
      if (to === 'live') firm.liveAt = new Date();
      if (to === 'paused') firm.pausedAt = new Date();
      await em.flush();
    },
  };
}

/** eth_sendRawTransaction, treating "already known" and "nonce too low" (already mined) as sent. */
async function sendRaw(rpcUrl: string, rawTx: Hex): Promise<void> {
  try {
    await client(rpcUrl).sendRawTransaction({ serializedTransaction: rawTx });
  } catch (err) {
    const msg = String((err as Error).message ?? err).toLowerCase();
    if (/already known|already imported|nonce too low|known transaction/.test(msg)) return;
    throw err;
  }
}

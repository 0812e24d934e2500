/**
 * Schemas of a firm's deploy lifecycle and payout approvals (docs/api.md §4.8, §5.4 `firm:operate`):
 * deploy (dry run or live), deployment status, go live, pause, payouts and their authorisation.
 */
import { z } from 'zod';

export const firmParams = z.object({ id: z.string().min(1) });
export const firmPayoutParams = z.object({ id: z.string().min(1), payoutId: z.string().min(1) });

export const deployBody = z
  .object({
    dryRun: z.boolean().default(false).meta({ description: 'true: check readiness and answer the rules hash and the constructor arguments, before the deployer check; nothing is broadcast' }),
  })
  .meta({ id: 'FirmDeploy' });

export const readinessCheck = z.object({ name: z.string(), ok: z.boolean(), detail: z.string().optional() }).meta({ id: 'ReadinessCheck' });

export const dryRunView = z
  .object({
    dryRun: z.literal(true),
    firmId: z.string(),
    ready: z.boolean().meta({ description: 'Every check except `deployer_configured` passed' }),
    checks: z.array(readinessCheck),
    constructor: z.object({ owner: z.string(), stablecoin: z.string(), firmId: z.string().meta({ description: 'bytes32: keccak256 of the firm id' }), rulesHash: z.string() }),
    rules: z.record(z.string(), z.unknown()).meta({ description: 'The canonical rules whose keccak256 is committed on-chain' }),
    chainId: z.number().int(),
  })
  .meta({ id: 'FirmDeployDryRun' });

export const deploymentView = z
  .object({
    firmId: z.string(),
    step: z.enum(['signing', 'broadcast', 'confirming', 'verifying', 'deployed', 'live', 'paused', 'failed']),
    deployer: z.string().nullable().meta({ description: 'The gas-only platform deployer (never the owner)' }),
    nonce: z.number().int().nullable(),
    txHashes: z.object({ deploy: z.string().nullable() }),
    instanceAddress: z.string().nullable(),
    rulesHash: z.string().nullable(),
    confirmations: z.number().int(),
    blockNumber: z.string().nullable(),
    gasUsed: z.string().nullable(),
    error: z.string().nullable(),
  })
  .meta({ id: 'FirmDeployment' });

export const payoutView = z
  .object({
    payoutId: z.string(),
    firmId: z.string(),
    propAccountId: z.string(),
    amountUsd: z.string(),
    toAddress: z.string(),
    status: z.enum(['requested', 'authorized', 'executed', 'rejected']),
    safeTxHash: z.string().nullable(),
    safeTx: z.unknown().optional().meta({ description: 'The multisig transaction the owners sign: `{ safe, chainId, to, data, nonce, typedData, safeTxHash }` (sign `typedData` with eth_signTypedData_v4)' }),
    signers: z.array(z.string()),
    executedTxHash: z.string().nullable(),
    createdAt: z.string(),
    authorizedAt: z.string().nullable(),
    executedAt: z.string().nullable(),
  })
  .meta({ id: 'Payout' });

export const authorizePayoutBody = z
  .object({
    signatures: z
      .string()
      .regex(/^0x([0-9a-fA-F]{130})+$/, 'concatenated 65-byte signatures, 0x-prefixed')
      .meta({ description: "The owners' signatures of `safeTx.typedData`, 65 bytes each, concatenated in ascending signer-address order (Safe's convention)" }),
  })
  .meta({ id: 'AuthorizePayout' });

export const payoutListQuery = z.object({ status: z.enum(['requested', 'authorized', 'executed', 'rejected']).optional() });

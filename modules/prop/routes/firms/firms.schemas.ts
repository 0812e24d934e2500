/**
 * Schemas of the firm surface (docs/api.md §4.8 `/api/v1/firms/*`, scope `firm:operate`): the firm itself,
 * its readiness, and its deploy lifecycle (deploy dry run or live, deployment status, go live, pause).
 * Payouts: payouts.schemas.ts.
 */
import { z } from 'zod';
import { evmAddress, listPage } from '../../../../api/operator-common.schemas.js';

export const firmParams = z.object({ id: z.string().min(1).max(255) });

export const deployBody = z
  .object({
    dryRun: z.boolean().default(false).meta({
      description:
        'true: check readiness and answer the rules hash and the constructor arguments, before the deployer check; nothing is broadcast',
    }),
  })
  .meta({ id: 'FirmDeploy' });

export const readinessCheck = z
  .object({ name: z.string(), ok: z.boolean(), detail: z.string().optional() })
  .meta({ id: 'ReadinessCheck' });

export const dryRunView = z
  .object({
    dryRun: z.literal(true),
    firmId: z.string(),
    ready: z.boolean().meta({ description: 'Every check except `deployer_configured` passed' }),
    checks: z.array(readinessCheck),
    constructor: z.object({
      owner: z.string(),
      stablecoin: z.string(),
      firmId: z.string().meta({ description: 'bytes32: keccak256 of the firm id' }),
      rulesHash: z.string(),
    }),
    rules: z
      .record(z.string(), z.unknown())
      .meta({ description: 'The canonical rules whose keccak256 is committed on-chain' }),
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

export const createFirmBody = z
  .object({
    name: z.string().min(1).max(120),
    ownerAddress: evmAddress.meta({
      description: 'The operator’s multisig (e.g. a Safe) that will own the PropInstance; the platform never holds it',
    }),
    stablecoinAddress: evmAddress.meta({
      description: 'The ERC-20 (6 decimals) challenge deposits and payouts are paid in',
    }),
    chainId: z
      .number()
      .int()
      .positive()
      .meta({ description: 'EVM chain id the firm deploys on (must be the chain of CHAIN_RPC_URL)', example: 31337 }),
  })
  .meta({ id: 'CreateFirm' });

export const patchFirmBody = z
  .object({
    name: z.string().min(1).max(120).optional(),
    ownerAddress: evmAddress.optional().meta({ description: 'Only while the firm is `draft`' }),
    stablecoinAddress: evmAddress.optional().meta({ description: 'Only while the firm is `draft`' }),
  })
  .meta({ id: 'PatchFirm' });

export const firmView = z
  .object({
    id: z.string(),
    name: z.string(),
    ownerAddress: z.string(),
    chainId: z.number().int(),
    stablecoinAddress: z.string(),
    status: z.enum(['draft', 'deploying', 'deployed', 'live', 'paused']),
    instanceAddress: z.string().nullable(),
    rulesHash: z.string().nullable(),
    deployTxHash: z.string().nullable(),
    deployedAt: z.string().nullable(),
    liveAt: z.string().nullable(),
    pausedAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'Firm' });

export const firmPage = listPage('FirmPage', firmView);

export const readinessView = z
  .object({
    ready: z.boolean().meta({ description: 'Every check passed' }),
    checks: z.array(
      z.object({
        name: z.enum(['owner_address', 'stablecoin_address', 'template', 'chain_configured', 'deployer_configured']),
        ok: z.boolean(),
        detail: z.string().optional(),
      }),
    ),
  })
  .meta({ id: 'FirmReadiness' });

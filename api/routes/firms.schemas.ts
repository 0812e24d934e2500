/** Schemas of the firm surface (docs/api.md §4.8 `/api/v1/firms/*`, scope `firm:operate`). */
import { z } from 'zod';
import { evmAddress, listPage } from './operator-common.schemas.js';

export const createFirmBody = z
  .object({
    name: z.string().min(1).max(120),
    ownerAddress: evmAddress.meta({ description: 'The operator’s multisig (e.g. a Safe) that will own the PropInstance; the platform never holds it' }),
    stablecoinAddress: evmAddress.meta({ description: 'The ERC-20 (6 decimals) challenge deposits and payouts are paid in' }),
    chainId: z.number().int().positive().meta({ description: 'EVM chain id the firm deploys on (must be the chain of CHAIN_RPC_URL)', example: 31337 }),
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
    checks: z.array(z.object({ name: z.enum(['owner_address', 'stablecoin_address', 'template', 'chain_configured', 'deployer_configured']), ok: z.boolean(), detail: z.string().optional() })),
  })
  .meta({ id: 'FirmReadiness' });

/**
 * Schemas of the public transparency bundle (docs/api.md §1, §2.12, §4.9). Every amount is USD (decimal
 * string); domain/prop/transparency.ts defines each figure and the classes.
 */
import { z } from 'zod';

export const transparencyParams = z.object({ firmId: z.string().min(1).max(255) });

export const firmBundle = z
  .object({
    firmId: z.string(),
    name: z.string(),
    status: z.enum(['live', 'paused', 'deployed', 'deploying', 'draft']),
    chainId: z.number().int(),
    addresses: z.object({
      instance: z.string().nullable().meta({ description: 'The PropInstance contract (treasury)' }),
      owner: z.string().meta({ description: 'The operator’s multisig that owns the instance' }),
      stablecoin: z.string(),
      deployTx: z.string().nullable(),
    }),
    rulesHash: z
      .string()
      .nullable()
      .meta({ description: 'keccak256 of the canonical challenge rules, committed on-chain' }),
    onChain: z
      .object({
        treasuryUsd: z.string().meta({ description: 'Stablecoin balance of the instance, read live' }),
        collateralUsd: z.string().meta({ description: 'Collateral the operator posted to the instance' }),
        availableUsd: z.string().meta({ description: 'treasury − liabilities (negative when short)' }),
        readAt: z.string(),
      })
      .nullable()
      .meta({ description: 'null when not deployed, or when the chain could not be read (then `chainError`)' }),
    chainError: z.string().optional(),
    ledger: z.object({
      payInsUsd: z.string(),
      collateralUsd: z.string(),
      payoutsUsd: z.string(),
      forfeitsUsd: z.string(),
    }),
    liabilitiesUsd: z
      .string()
      .meta({ description: 'What passed and funded traders may still draw: Σ(payout ceiling − paid out)' }),
    reconciliation: z.object({
      status: z.enum(['reconciled', 'surplus', 'shortfall', 'not_deployed', 'unavailable']),
      expectedTreasuryUsd: z.string().meta({ description: 'payIns + collateral − payouts (ledger)' }),
      onChainTreasuryUsd: z.string().nullable(),
      differenceUsd: z.string().nullable().meta({ description: 'on-chain − expected' }),
    }),
    solvency: z.enum(['solvent', 'undercollateralized', 'insolvent', 'not_deployed', 'unavailable']).meta({
      description:
        'coverage = treasury ÷ liabilities: solvent ≥ 1 (or no liabilities), undercollateralized ≥ 0.5, insolvent < 0.5',
    }),
    coverageRatio: z.string().nullable(),
  })
  .meta({ id: 'FirmTransparency' });

export const transparencyIndex = z
  .object({ firms: z.array(firmBundle).max(200), cachedAt: z.string() })
  .meta({ id: 'TransparencyIndex' });

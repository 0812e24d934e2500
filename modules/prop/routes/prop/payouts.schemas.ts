/** Schemas of the trader's payouts (docs/api.md §3.5): request a payout of a passed or funded challenge; read it. */
import { z } from 'zod';

export const payoutParams = z.object({ id: z.string().min(1).max(255) });

export const requestPayoutBody = z
  .object({
    propAccountId: z.string().min(1).max(255),
    amountUsd: z
      .string()
      .max(64)
      .regex(/^\d+(\.\d{1,6})?$/, 'a positive USD amount with at most 6 decimals')
      .meta({ description: 'USD, at most the payout ceiling less what was paid or requested', example: '250' }),
    toAddress: z
      .string()
      .regex(/^0x[0-9a-fA-F]{40}$/, 'an EVM address')
      .meta({ description: 'Where the stablecoin is paid' }),
  })
  .meta({ id: 'RequestPayout' });

/** Schemas of a firm's payouts and their approval (docs/api.md §4.8, §5.4 `firm:operate`); `payoutView` is also the trader's (prop/payouts.ts). */
import { z } from 'zod';

export const firmPayoutParams = z.object({ id: z.string().min(1).max(255), payoutId: z.string().min(1).max(255) });

export const payoutView = z
  .object({
    payoutId: z.string(),
    firmId: z.string(),
    propAccountId: z.string(),
    amountUsd: z.string(),
    toAddress: z.string(),
    status: z.enum(['requested', 'authorized', 'executed', 'rejected']),
    safeTxHash: z.string().nullable(),
    safeTx: z.unknown().optional().meta({
      description:
        'The multisig transaction the owners sign: `{ safe, chainId, to, data, nonce, typedData, safeTxHash }` (sign `typedData` with eth_signTypedData_v4)',
    }),
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
      .max(2 + 130 * 100)
      .regex(/^0x([0-9a-fA-F]{130})+$/, 'concatenated 65-byte signatures, 0x-prefixed')
      .meta({
        description:
          "The owners' signatures of `safeTx.typedData`, 65 bytes each, concatenated in ascending signer-address order (Safe's convention); at most 100",
      }),
  })
  .meta({ id: 'AuthorizePayout' });

export const payoutListQuery = z.object({
  status: z.enum(['requested', 'authorized', 'executed', 'rejected']).optional(),
});

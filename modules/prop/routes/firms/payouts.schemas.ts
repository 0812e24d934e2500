/**
 * Schemas of a firm's payouts, their approval and cancel (docs/api.md §3.5, §4.8, §5.4 `firm:operate`); `payoutView`
 * is also the trader's (prop/payouts.ts).
 */
import { z } from 'zod';

/** A payout's states (docs/api.md §3.5). */
export const payoutStatus = z.enum(['requested', 'authorized', 'executed', 'rejected', 'canceled']);

export const firmPayoutParams = z.object({ id: z.string().min(1).max(255), payoutId: z.string().min(1).max(255) });

export const payoutView = z
  .object({
    payoutId: z.string(),
    firmId: z.string(),
    propAccountId: z.string(),
    amountUsd: z.string(),
    toAddress: z.string(),
    status: payoutStatus,
    safeTxHash: z.string().nullable().meta({
      description:
        'Hash of the Safe transaction to sign now; it changes when the Safe executes another transaction at `safeNonce` and the payout is rebuilt',
    }),
    safeNonce: z.string().nullable().meta({ description: 'The Safe nonce `safeTxHash` is built for (decimal)' }),
    safeTx: z.unknown().optional().meta({
      description:
        'The multisig transaction the owners sign: `{ safe, chainId, to, data, nonce, typedData, safeTxHash }` (sign `typedData` with eth_signTypedData_v4)',
    }),
    signers: z.array(z.string()),
    executedTxHash: z.string().nullable(),
    createdAt: z.string(),
    authorizedAt: z.string().nullable(),
    executedAt: z.string().nullable(),
    cancelReason: z.string().nullable(),
    canceledAt: z.string().nullable(),
  })
  .meta({ id: 'Payout' });

export const cancelPayoutBody = z
  .object({
    reason: z
      .string()
      .trim()
      .min(1)
      .max(500)
      .optional()
      .meta({ description: 'Why the payout is canceled, stored with it (default "canceled by the operator")' }),
  })
  .meta({ id: 'CancelPayout' });

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
  status: payoutStatus.optional(),
});

/** `GET /firms/{id}/payouts`: the firm's payout requests, newest first. */
export const payoutListView = z.object({ data: z.array(payoutView) });

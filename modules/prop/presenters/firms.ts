/** Firms and payouts as the API shows them (docs/api.md §4.8; firms.schemas.ts `firmView`, payouts.schemas.ts `payoutView`). */
import type { FirmRow, PayoutRow } from '../../../db/entities.js';
import type { PayoutStatus } from '../workflows/payout.definitions.js';

const iso = (d: Date | null | undefined) => d?.toISOString() ?? null;

/** A firm. */
export function toFirmView(f: FirmRow) {
  return {
    id: f.id,
    name: f.name,
    ownerAddress: f.ownerAddress,
    chainId: f.chainId,
    stablecoinAddress: f.stablecoinAddress,
    status: f.status as 'draft',
    instanceAddress: f.instanceAddress ?? null,
    rulesHash: f.rulesHash ?? null,
    deployTxHash: f.deployTxHash ?? null,
    deployedAt: iso(f.deployedAt),
    liveAt: iso(f.liveAt),
    pausedAt: iso(f.pausedAt),
    createdAt: new Date(f.createdAt).toISOString(),
  };
}

/**
 * A payout; with `live` (its workflow's status) the live status, signers, the `safeTx` the owners sign and the
 * Safe nonce it is built for (runs from before the payout followed the Safe only have it in `safeTx`).
 */
export function toPayoutView(p: PayoutRow, live?: PayoutStatus | null) {
  return {
    payoutId: p.id,
    firmId: p.firmId,
    propAccountId: p.propAccountId,
    amountUsd: p.amountUsd,
    toAddress: p.toAddress,
    status: (live?.status ?? p.status) as 'requested',
    safeTxHash: live?.safeTxHash ?? p.safeTxHash ?? null,
    safeNonce: live?.safeNonce ?? (live?.safeTx as { nonce?: string } | null)?.nonce ?? p.safeNonce ?? null,
    ...(live ? { safeTx: live.safeTx } : {}),
    signers: live?.signers.length ? live.signers : (p.signers ?? []),
    executedTxHash: live?.executedTxHash ?? p.executedTxHash ?? null,
    createdAt: new Date(p.createdAt).toISOString(),
    authorizedAt: p.authorizedAt?.toISOString() ?? null,
    executedAt: p.executedAt?.toISOString() ?? null,
    cancelReason: live?.cancelReason ?? p.cancelReason ?? null,
    canceledAt: iso(p.canceledAt),
  };
}

/**
 * A credential row as credential management answers it (docs/api.md §2.1, §4.8; `ManagedCredential` in
 * modules/auth/routes/operator/credentials.schemas.ts). Never the secret or its hash.
 */
import type { Tier } from '../../../domain/gates.js';
import type { CredentialRow } from '../../../db/entities.js';

const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : null);

/** The wire view of `row`: envelope limits null when unset, the rate limit null when the deployment's. */
export function toCredentialView(row: CredentialRow) {
  const e = row.envelope ?? {};
  return {
    id: row.id,
    apiKey: row.apiKey,
    audience: row.audience as 'trader' | 'operator',
    label: row.label,
    ownerId: row.ownerId,
    accountId: row.accountId ?? null,
    tier: (row.tier ?? null) as Tier | null,
    scopes: row.scopes,
    signerAddress: row.signerAddress ?? null,
    envelope: {
      maxOrderNotionalUsd: e.maxOrderNotionalUsd ?? null,
      maxPositionNotionalUsd: e.maxPositionNotionalUsd ?? null,
      maxLeverage: e.maxLeverage ?? null,
      dailyLossLimitUsd: e.dailyLossLimitUsd ?? null,
    },
    allowedVenues: row.allowedVenues ?? null,
    allowedSymbols: row.allowedSymbols ?? null,
    rateLimit:
      row.rateLimitPerSecond != null && row.rateLimitBurst != null
        ? { perSecond: row.rateLimitPerSecond, burst: row.rateLimitBurst }
        : null,
    secretRotatedAt: iso(row.secretRotatedAt),
    revokedAt: iso(row.revokedAt),
    createdAt: iso(row.createdAt)!,
  };
}

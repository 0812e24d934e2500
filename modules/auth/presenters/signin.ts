/**
 * Sign-in providers and linked identities as the API answers them (docs/api.md §5.1 "Social sign-in"; the schemas in
 * modules/auth/routes/operator/signin-providers.schemas.ts and modules/auth/routes/auth/oidc.schemas.ts). Never a
 * client secret: only whether one is set.
 */
import type { SigninProviderRow, TraderIdentityRow } from '../../../db/entities.js';

const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : null);

/** The operator's view of a provider (`SigninProvider`). */
export function toProviderView(row: SigninProviderRow) {
  return {
    id: row.id,
    slug: row.slug,
    kind: row.kind as 'oidc' | 'email',
    displayName: row.displayName,
    issuer: row.issuer ?? null,
    clientId: row.clientId ?? null,
    hasClientSecret: Boolean(row.sealedClientSecret),
    scopes: row.scopes,
    joinPolicy: row.joinPolicy as 'open' | 'invite_only' | 'email_domains',
    emailDomains: row.emailDomains,
    enabled: row.enabled,
    startPath: row.kind === 'oidc' ? `/api/auth/oidc/${encodeURIComponent(row.slug)}/start` : '/api/auth/email/start',
    createdAt: iso(row.createdAt)!,
    updatedAt: iso(row.updatedAt)!,
  };
}

/** What the sign-in page may show of a provider (`SigninOption`): no issuer, client or policy. */
export function toSigninOption(row: SigninProviderRow) {
  return {
    slug: row.slug,
    kind: row.kind as 'oidc' | 'email',
    displayName: row.displayName,
    startPath: row.kind === 'oidc' ? `/api/auth/oidc/${encodeURIComponent(row.slug)}/start` : '/api/auth/email/start',
  };
}

/** A linked identity (`LinkedIdentity`). */
export function toIdentityView(row: TraderIdentityRow) {
  return {
    id: row.id,
    kind: row.kind as 'oidc' | 'email' | 'wallet',
    issuer: row.issuer,
    subject: row.subject,
    email: row.email ?? null,
    providerId: row.providerId ?? null,
    createdAt: iso(row.createdAt)!,
    lastSignInAt: iso(row.lastSignInAt),
  };
}

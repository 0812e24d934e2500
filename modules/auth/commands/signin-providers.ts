/**
 * The sign-in providers of a tenant's branded page (docs/api.md §5.1 "Social sign-in"; operator audience, scope
 * `tenant:config`): OpenID providers (Google, Apple, the partner's own identity provider: issuer URL, client id,
 * client secret, scopes) and the email magic link, each with the policy of a first sign-in (`open`, `invite_only`,
 * `email_domains` with its domains; modules/auth/commands/identities.ts `JOIN_POLICIES`), and the invitations of an
 * `invite_only` tenant. Client secrets are sealed with the custody key ring like webhook secrets
 * (domain/custody/vault.ts) and never shown again.
 */
import { ApiError } from '../../../domain/errors.js';
import { seal } from '../../../domain/custody/vault.js';
import { newId } from '../../../domain/ids.js';
import { SigninProvider, type SigninProviderRow } from '../../../db/entities.js';
import { scoped } from '../../../db/orm.js';
import type { ApiDeps, Caller } from '../../../api/context.js';
import { custodyRing, requireRing } from '../../custody/commands/ring.js';
import type {
  CreateProviderBody as ProviderDefinition,
  UpdateProviderBody,
} from '../routes/operator/signin-providers.schemas.js';

/** The scopes asked for when the operator names none. */
export const DEFAULT_SCOPES = ['openid', 'email', 'profile'];

/** A field issue of `400 validation_failed`. */
const issue = (path: string, code: string, message: string) => ({ path: `body.${path}`, code, message });

/** `secret` sealed with the custody key ring. @throws ApiError `503 custody_unconfigured` without the ring. */
const sealSecret = (deps: ApiDeps, secret: string) =>
  seal(requireRing(custodyRing(deps), 'the client secret cannot be sealed'), secret);

/**
 * Why a definition is refused, as field issues (empty: accepted): an `oidc` provider needs `issuer` (https unless
 * OIDC_ALLOW_INSECURE=true) and `clientId`, and its scopes must include `openid`; an `email` provider takes none of
 * them; `email_domains` needs at least one domain.
 */
function definitionIssues(deps: ApiDeps, d: ProviderDefinition) {
  const issues = [];
  if (d.kind === 'oidc') {
    if (!d.issuer) issues.push(issue('issuer', 'required', 'an OpenID provider needs its issuer URL'));
    else if (!d.issuer.startsWith('https://') && !deps.config.oidc.allowInsecure)
      issues.push(
        issue('issuer', 'https_required', 'the issuer must be an https URL (OIDC_ALLOW_INSECURE is not true)'),
      );
    if (!d.clientId) issues.push(issue('clientId', 'required', 'an OpenID provider needs the client id it issued'));
    if (d.scopes && !d.scopes.includes('openid'))
      issues.push(issue('scopes', 'openid_required', 'OpenID Connect sign-in needs the openid scope'));
  } else if (d.issuer || d.clientId || d.clientSecret || d.scopes)
    issues.push(issue('kind', 'not_applicable', 'the email provider takes no issuer, client id, secret or scopes'));
  if (d.joinPolicy === 'email_domains' && !d.emailDomains?.length)
    issues.push(issue('emailDomains', 'required', 'the email_domains policy needs at least one domain'));
  return issues;
}

/**
 * Adds a sign-in provider to the caller's tenant; the client secret, if any, is sealed.
 * @throws ApiError `400 validation_failed` (see {@link definitionIssues}), `409 signin_provider_exists` (the slug is
 *   taken, or a second email provider), `503 custody_unconfigured` (a secret and no key ring). Nothing is written then.
 */
export async function createProvider(deps: ApiDeps, caller: Caller, d: ProviderDefinition): Promise<SigninProviderRow> {
  const issues = definitionIssues(deps, d);
  if (issues.length) throw new ApiError('validation_failed', issues);
  const sealedClientSecret = d.clientSecret ? sealSecret(deps, d.clientSecret) : null;
  const em = scoped(deps.orm, caller.tenantId);
  const taken = await em.findOne(
    SigninProvider,
    d.kind === 'email' ? { $or: [{ slug: d.slug }, { kind: 'email' }] } : { slug: d.slug },
  );
  if (taken)
    throw new ApiError(
      'signin_provider_exists',
      taken.slug === d.slug
        ? `this tenant has a sign-in provider ${d.slug}`
        : 'this tenant has an email provider already',
    );
  const row = em.create(SigninProvider, {
    id: newId('sip'),
    tenantId: caller.tenantId,
    slug: d.slug,
    kind: d.kind,
    displayName: d.displayName,
    issuer: d.kind === 'oidc' ? d.issuer! : null,
    clientId: d.clientId ?? null,
    sealedClientSecret,
    scopes: d.kind === 'oidc' ? (d.scopes ?? DEFAULT_SCOPES) : [],
    joinPolicy: d.joinPolicy,
    emailDomains: (d.emailDomains ?? []).map((x) => x.toLowerCase()),
    enabled: d.enabled ?? true,
  });
  await em.flush();
  return row;
}

/** The caller's tenant's providers, oldest first. */
export function listProviders(deps: ApiDeps, caller: Caller): Promise<SigninProviderRow[]> {
  return scoped(deps.orm, caller.tenantId).find(SigninProvider, {}, { orderBy: { createdAt: 'asc', id: 'asc' } });
}

/**
 * Changes a provider's display name, policy, domains, scopes or secret, or switches it off or on; what is absent stays.
 * @throws ApiError `404 signin_provider_not_found`, `400 validation_failed`, `503 custody_unconfigured`.
 */
export async function updateProvider(
  deps: ApiDeps,
  caller: Caller,
  id: string,
  patch: UpdateProviderBody,
): Promise<SigninProviderRow> {
  const em = scoped(deps.orm, caller.tenantId);
  const row = await em.findOne(SigninProvider, { id });
  if (!row) throw new ApiError('signin_provider_not_found', `no sign-in provider ${id}`);
  const merged: ProviderDefinition = {
    slug: row.slug,
    kind: row.kind as ProviderDefinition['kind'],
    displayName: patch.displayName ?? row.displayName,
    issuer: row.issuer ?? undefined,
    clientId: row.clientId ?? undefined,
    clientSecret: patch.clientSecret,
    scopes: patch.scopes ?? (row.kind === 'oidc' ? row.scopes : undefined),
    joinPolicy: patch.joinPolicy ?? (row.joinPolicy as ProviderDefinition['joinPolicy']),
    emailDomains: patch.emailDomains ?? row.emailDomains,
  };
  const issues = definitionIssues(deps, merged);
  if (issues.length) throw new ApiError('validation_failed', issues);
  if (patch.clientSecret) row.sealedClientSecret = sealSecret(deps, patch.clientSecret);
  row.displayName = merged.displayName;
  row.scopes = merged.scopes ?? [];
  row.joinPolicy = merged.joinPolicy;
  row.emailDomains = (merged.emailDomains ?? []).map((x) => x.toLowerCase());
  if (patch.enabled !== undefined) row.enabled = patch.enabled;
  await em.flush();
  return row;
}

/**
 * Removes a provider: its sign-in routes answer `404 signin_provider_not_found` at once; the identities it linked stay
 * (they sign in again through a provider of the same issuer). @throws ApiError `404 signin_provider_not_found`.
 */
export async function deleteProvider(deps: ApiDeps, caller: Caller, id: string): Promise<void> {
  const em = scoped(deps.orm, caller.tenantId);
  const row = await em.findOne(SigninProvider, { id });
  if (!row) throw new ApiError('signin_provider_not_found', `no sign-in provider ${id}`);
  em.remove(row);
  await em.flush();
}

/**
 * Invites `email` (lower-cased) to an `invite_only` sign-in: the first sign-in with that verified email joins as a
 * new trader, or as the trader `ownerId` names (an existing trader, e.g. one with API keys, then signs in socially).
 * Re-inviting an address with an open invitation answers that one.
 * @throws ApiError `404 not_found` when `ownerId` owns no account in this tenant.
 */
export async function inviteEmail(
  deps: ApiDeps,
  caller: Caller,
  body: { email: string; ownerId?: string },
): Promise<{ id: string; email: string; ownerId: string | null; createdAt: Date }> {
  const em = scoped(deps.orm, caller.tenantId);
  const conn = em.getConnection();
  const email = body.email.toLowerCase();
  if (body.ownerId) {
    const [owned] = await conn.execute<{ n: number }[]>(
      `select count(*)::int as n from accounts where tenant_id = ? and owner_id = ?`,
      [caller.tenantId, body.ownerId],
    );
    if (!owned.n) throw new ApiError('not_found', `no trader ${body.ownerId} with an account in this tenant`);
  }
  const [row] = await conn.execute<{ id: string; email: string; owner_id: string | null; created_at: Date }[]>(
    `insert into signin_invites (id, tenant_id, email, owner_id) values (?, ?, ?, ?)
      on conflict (tenant_id, email) where accepted_at is null do update set owner_id = coalesce(excluded.owner_id, signin_invites.owner_id)
      returning id, email, owner_id, created_at`,
    [newId('sinv'), caller.tenantId, email, body.ownerId ?? null],
  );
  return { id: row.id, email: row.email, ownerId: row.owner_id, createdAt: new Date(row.created_at) };
}

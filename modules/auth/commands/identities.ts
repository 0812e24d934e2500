/**
 * Identities linked to traders (docs/api.md §5.1 "Social sign-in"; issue 22): who may sign in as which trader of a
 * tenant. An identity is an OpenID subject (`issuer` + `subject`, modules/auth/commands/oidc.ts), an email proven by
 * a magic link (`issuer` `email`, modules/auth/commands/magic-link.ts) or a wallet proven by SIWE (`issuer` `siwe`,
 * {@link linkWallet}); each belongs to one trader of the tenant (`trader_identities`, migration SocialSignIn).
 *
 * The first sign-in of an unknown identity follows the provider's join policy ({@link JOIN_POLICIES}): `open` creates
 * the trader and its default account (the tenant's account policy: execution mode, opening deposit, default trading
 * group; the plan's `maxAccounts`), `invite_only` admits an email an operator invited (`signin_invites`, as a new
 * trader or as the existing trader the invite names), `email_domains` admits a verified email of a listed domain.
 * Everything a sign-in writes (trader, account, identity, invite use) is one transaction: a refusal writes nothing.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../../../domain/errors.js';
import { newId } from '../../../domain/ids.js';
import { readSection } from '../../../domain/tenant/config.js';
import { newAccountMode } from '../../../domain/oms/execution.js';
import {
  Account,
  Tenant,
  TraderIdentity,
  type SigninProviderRow,
  type TraderIdentityRow,
} from '../../../db/entities.js';
import { accountMode, DEFAULT_ACCOUNT_NAME, provisionAccount } from '../../../db/accounts.js';
import { scoped } from '../../../db/orm.js';
import { checkSiwe, consumeNonce } from '../../../api/auth/session.js';
import { parseSiweMessage } from 'viem/siwe';
import type { ApiDeps, Caller } from '../../../api/context.js';
import { assertAccountRoom } from '../../tenants/queries/entitlements.js';

/** The issuer of email identities (the magic link) and of wallet identities (SIWE). */
export const EMAIL_ISSUER = 'email';
const WALLET_ISSUER = 'siwe';

/** What a provider proved about the person signing in. */
export interface ProvenIdentity {
  kind: 'oidc' | 'email';
  /** The OpenID issuer (the ID token's `iss`), or {@link EMAIL_ISSUER}. */
  issuer: string;
  /** The ID token's `sub`, or the lower-case email. */
  subject: string;
  /** Lower-case email, when the provider gave one. */
  email: string | null;
  /** The provider vouches for `email` (`email_verified`; always true for a magic link). */
  emailVerified: boolean;
}

/** Who a sign-in made the caller: the trader, the account its session acts on, the identity, and whether it joined now. */
export interface SignedInTrader {
  ownerId: string;
  accountId: string;
  identity: TraderIdentityRow;
  joined: boolean;
}

const domainOf = (email: string) => email.slice(email.lastIndexOf('@') + 1);

/**
 * The join policies of a provider (a table, not a ladder): given the tenant-scoped transaction, the provider and
 * the proven identity, the trader the identity joins as (`ownerId` null: a new trader), or why it may not join.
 */
const JOIN_POLICIES: Record<
  'open' | 'invite_only' | 'email_domains',
  (tx: EntityManager, p: SigninProviderRow, who: ProvenIdentity) => Promise<{ ownerId: string | null } | string>
> = {
  open: async () => ({ ownerId: null }),
  email_domains: async (_tx, p, who) =>
    who.email && who.emailVerified && p.emailDomains.includes(domainOf(who.email))
      ? { ownerId: null }
      : `this sign-in is open to verified emails of ${p.emailDomains.join(', ') || '(no domain)'} only`,
  invite_only: async (tx, p, who) => {
    if (!who.email || !who.emailVerified) return 'this sign-in is by invitation: the provider gave no verified email';
    const [invite] = await tx
      .getConnection()
      .execute<{ owner_id: string | null }[]>(
        `update signin_invites set accepted_at = now() where tenant_id = ? and email = ? and accepted_at is null returning owner_id`,
        [p.tenantId, who.email],
        'all',
        tx.getTransactionContext(),
      );
    return invite ? { ownerId: invite.owner_id } : `this sign-in is by invitation: ${who.email} has no invitation`;
  },
};

/**
 * Creates (in `tx`) a new identity `who` of the trader `owner`, linked through the provider `providerId` (null: a
 * wallet), never signed in yet.
 */
function newIdentity(
  tx: EntityManager,
  owner: { tenantId: string; ownerId: string },
  providerId: string | null,
  who: { kind: TraderIdentityRow['kind']; issuer: string; subject: string; email: string | null },
): TraderIdentityRow {
  return tx.create(TraderIdentity, {
    id: newId('idn'),
    tenantId: owner.tenantId,
    ownerId: owner.ownerId,
    kind: who.kind,
    providerId,
    issuer: who.issuer,
    subject: who.subject,
    email: who.email,
    lastSignInAt: null,
  });
}

/**
 * The account a trader's session acts on: its oldest account; when it has none (an invited trader without one),
 * a new default account ({@link openDefaultAccount}).
 */
async function defaultAccount(tx: EntityManager, tenantId: string, ownerId: string): Promise<string> {
  const [first] = await tx.find(Account, { ownerId }, { orderBy: { createdAt: 'asc' }, limit: 1 });
  return first ? first.id : openDefaultAccount(tx, tenantId, ownerId);
}

/**
 * Opens a new trader's default account under the tenant's account policy (the mode it gives without a request, the
 * default deposit, the default trading group). @throws ApiError `409 plan_limit_reached`, `403 execution_mode_not_allowed`.
 */
async function openDefaultAccount(tx: EntityManager, tenantId: string, ownerId: string): Promise<string> {
  const tenant = await tx.findOneOrFail(Tenant, { id: tenantId });
  const policy = readSection('accounts', tenant.accounts);
  const mode = newAccountMode(policy.executionMode);
  await assertAccountRoom(tx, tenantId);
  const account = await provisionAccount(tx, {
    tenantId,
    ownerId,
    name: DEFAULT_ACCOUNT_NAME[mode],
    tradingGroupId: policy.defaultTradingGroupId,
    ...accountMode(mode, policy.deposit.defaultUsd),
  });
  return account.id;
}

/**
 * Signs a proven identity in through `provider` (module doc), or links it to `linkOwnerId` (a signed-in trader
 * linking another identity). Marks the identity's `last_sign_in_at`. One transaction.
 * @throws ApiError `403 signin_not_allowed` (the join policy refuses an unknown identity; `policy` in the body),
 *   `409 identity_linked_elsewhere` (linking an identity that belongs to another trader), `409 plan_limit_reached`.
 */
export async function signInIdentity(
  deps: ApiDeps,
  provider: SigninProviderRow,
  who: ProvenIdentity,
  linkOwnerId: string | null,
): Promise<SignedInTrader> {
  const tenantId = provider.tenantId;
  return scoped(deps.orm, tenantId).transactional(async (tx) => {
    const found = await tx.findOne(TraderIdentity, { issuer: who.issuer, subject: who.subject });
    if (found && linkOwnerId && found.ownerId !== linkOwnerId)
      throw new ApiError(
        'identity_linked_elsewhere',
        `this ${who.kind} identity is linked to another trader: remove it there first (DELETE /api/auth/identities/{id})`,
      );
    let joined = false;
    let ownerId = found?.ownerId ?? linkOwnerId;
    if (!ownerId) {
      const admitted = await JOIN_POLICIES[provider.joinPolicy as keyof typeof JOIN_POLICIES](tx, provider, who);
      if (typeof admitted === 'string')
        throw new ApiError('signin_not_allowed', admitted, { policy: provider.joinPolicy });
      ownerId = admitted.ownerId ?? newId('usr');
      joined = admitted.ownerId === null;
    }
    const identity = found ?? newIdentity(tx, { tenantId, ownerId }, provider.id, who);
    identity.lastSignInAt = new Date();
    if (who.email) identity.email = who.email;
    await tx.flush();
    const accountId = joined
      ? await openDefaultAccount(tx, tenantId, ownerId)
      : await defaultAccount(tx, tenantId, ownerId);
    return { ownerId, accountId, identity, joined };
  });
}

/**
 * The wallet identity of `walletAddress` in a tenant (linked by {@link linkWallet}), with the account its session
 * acts on; null when the wallet is not linked this way. For SIWE sign-in of a wallet no agent links.
 */
export async function walletIdentity(
  deps: ApiDeps,
  tenantId: string,
  walletAddress: string,
): Promise<{ ownerId: string; accountId: string; identityId: string } | null> {
  const em = scoped(deps.orm, tenantId);
  const identity = await em.findOne(TraderIdentity, { issuer: WALLET_ISSUER, subject: walletAddress.toLowerCase() });
  if (!identity) return null;
  const accountId = await em.transactional((tx) => defaultAccount(tx, tenantId, identity.ownerId));
  return { ownerId: identity.ownerId, accountId, identityId: identity.id };
}

/**
 * Links the wallet that signed a SIWE message (`POST /api/auth/siwe/nonce` first) to the signed-in trader `caller`;
 * uses the nonce. Answers the identity (an already linked wallet of the same trader is answered as it is).
 * `origins`: where the message may be for (modules/auth/commands/siwe.ts).
 * @throws ApiError as api/auth/session.ts `checkSiwe` (`400 siwe_message_invalid`, `401 siwe_domain_mismatch`,
 *   `401 siwe_nonce_invalid`, `401 siwe_signature_invalid`), `409 identity_linked_elsewhere`.
 */
export async function linkWallet(
  deps: ApiDeps,
  caller: Caller,
  origins: readonly string[],
  body: { message: string; signature: string },
): Promise<TraderIdentityRow> {
  const address = await checkSiwe(deps.orm, { ...body, origins, tenantId: caller.tenantId });
  return scoped(deps.orm, caller.tenantId).transactional(async (tx) => {
    const found = await tx.findOne(TraderIdentity, { issuer: WALLET_ISSUER, subject: address });
    if (found && found.ownerId !== caller.ownerId)
      throw new ApiError('identity_linked_elsewhere', `wallet ${address} is linked to another trader`);
    if (!(await consumeNonce(deps.orm, caller.tenantId, parseSiweMessage(body.message).nonce!)))
      throw new ApiError(
        'siwe_nonce_invalid',
        'this nonce was just used: get a new one from POST /api/auth/siwe/nonce',
      );
    if (found) return found;
    return newIdentity(tx, caller, null, { kind: 'wallet', issuer: WALLET_ISSUER, subject: address, email: null });
  });
}

/** The identities of the trader `caller`, oldest first. */
export async function identitiesOf(deps: ApiDeps, caller: Caller): Promise<TraderIdentityRow[]> {
  return scoped(deps.orm, caller.tenantId).find(
    TraderIdentity,
    { ownerId: caller.ownerId },
    { orderBy: { createdAt: 'asc', id: 'asc' } },
  );
}

/**
 * Removes one identity of the trader `caller`; the sessions opened with it end at once (api/auth/session.ts).
 * @throws ApiError `404 identity_not_found` (not one of the caller's), `409 identity_last` (the trader's only
 *   identity while it has no API credential: it could not sign in again).
 */
export async function removeIdentity(deps: ApiDeps, caller: Caller, identityId: string): Promise<void> {
  await scoped(deps.orm, caller.tenantId).transactional(async (tx) => {
    const identity = await tx.findOne(TraderIdentity, { id: identityId, ownerId: caller.ownerId });
    if (!identity) throw new ApiError('identity_not_found', `no identity ${identityId} of this trader`);
    const [{ identities, credentials }] = await tx
      .getConnection()
      .execute<{ identities: number; credentials: number }[]>(
        `select (select count(*)::int from trader_identities where tenant_id = ? and owner_id = ?) as identities,
              (select count(*)::int from credentials where tenant_id = ? and owner_id = ? and revoked_at is null) as credentials`,
        [caller.tenantId, caller.ownerId, caller.tenantId, caller.ownerId],
        'all',
        tx.getTransactionContext(),
      );
    if (identities <= 1 && credentials === 0)
      throw new ApiError(
        'identity_last',
        'this is the only way this trader signs in: link another identity first (a wallet, a provider or an email)',
      );
    tx.remove(identity);
  });
}

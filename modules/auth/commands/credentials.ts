/**
 * Credential management (docs/api.md §2.1, §4.8, §5.2; scope `credentials:manage`): an operator issues,
 * changes, rotates and revokes its tenant's credentials. A secret is answered once, by issuance or
 * rotation, and stored only as its scrypt hash.
 *
 * Every change is an UPDATE of the credential row, so the `credential_changed` NOTIFY (migration AuthCache)
 * drops it from every api process's authentication cache (api/auth/auth-cache.ts) as it commits: a new tier,
 * scopes, envelope or allowlist, a rotation and a revocation hold from the next request on (the rate-limit
 * override from api/middleware/rate-limit.ts's next read, within 30 s). An operator grants, and manages
 * operator credentials holding, only scopes it holds itself (`403 forbidden`), so it cannot widen its own reach.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../../../domain/errors.js';
import { hashSecret, mintKeyPair } from '../../../domain/auth/secrets.js';
import { newId } from '../../../domain/ids.js';
import type { RiskEnvelope } from '../../../domain/auth/envelope.js';
import { readSection } from '../../../domain/tenant/config.js';
import { newAccountMode } from '../../../domain/oms/execution.js';
import { Account, Credential, Tenant, TradingGroup, type CredentialRow } from '../../../db/entities.js';
import { accountMode, DEFAULT_ACCOUNT_NAME, provisionAccount } from '../../../db/accounts.js';
import { scoped } from '../../../db/orm.js';
import type { ApiDeps, Caller } from '../../../api/context.js';
import type { IssueCredentialBody, UpdateCredentialBody } from '../routes/operator/credentials.schemas.js';

/**
 * Refuses `scopes` that `caller` does not hold itself.
 * @throws ApiError `403 forbidden` with `missing` (the scopes it lacks).
 */
function assertHeld(caller: Caller, scopes: readonly string[]): void {
  const missing = scopes.filter((s) => !caller.scopes.includes(s));
  if (missing.length)
    throw new ApiError(
      'forbidden',
      `an operator grants, and manages credentials with, only scopes it holds; missing ${missing.join(', ')}`,
      { missing },
    );
}

/** `envelope` with `patch` applied: a value sets that limit, null removes it, an absent key keeps it. */
function withEnvelope(
  envelope: RiskEnvelope,
  patch: { [K in keyof RiskEnvelope]?: RiskEnvelope[K] | null },
): RiskEnvelope {
  return Object.fromEntries(Object.entries({ ...envelope, ...patch }).filter(([, v]) => v !== null && v !== undefined));
}

/** The body fields only one audience has (a trader's limits, an operator's scopes). */
const AUDIENCE_ONLY = {
  tier: 'trader',
  signerAddress: 'trader',
  envelope: 'trader',
  allowedVenues: 'trader',
  allowedSymbols: 'trader',
  scopes: 'operator',
} as const;

/** How each field of a change lands on the row (absent fields are not called). */
const APPLY: {
  [K in keyof UpdateCredentialBody]-?: (row: CredentialRow, v: UpdateCredentialBody[K]) => void;
} = {
  label: (row, v) => (row.label = v!),
  tier: (row, v) => (row.tier = v!),
  scopes: (row, v) => (row.scopes = v!),
  signerAddress: (row, v) => (row.signerAddress = v ?? null),
  envelope: (row, v) => (row.envelope = withEnvelope(row.envelope ?? {}, v!)),
  allowedVenues: (row, v) => (row.allowedVenues = v ?? null),
  allowedSymbols: (row, v) => (row.allowedSymbols = v ?? null),
  rateLimit: (row, v) => {
    row.rateLimitPerSecond = v?.perSecond ?? null;
    row.rateLimitBurst = v?.burst ?? null;
  },
};

/**
 * Who a new trader credential acts for: the owner of `accountId` (its active account), else a new trader
 * with an account opened under the tenant's account policy (its execution mode, `internalised` under
 * `trader_choice`; its default deposit and trading group).
 * `em` is a transaction in the caller's tenant.
 * @throws ApiError `404 account_not_found`, `404 trading_group_not_found` (the tenant's default group is gone).
 */
async function traderOwner(em: EntityManager, tenantId: string, accountId: string | undefined) {
  if (accountId) {
    const account = await em.findOne(Account, { id: accountId });
    if (!account) throw new ApiError('account_not_found', `no account ${accountId}`);
    return { ownerId: account.ownerId, accountId };
  }
  const tenant = await em.findOneOrFail(Tenant, { id: tenantId });
  const policy = readSection('accounts', tenant.accounts);
  const group = policy.defaultTradingGroupId;
  if (group && !(await em.findOne(TradingGroup, { id: group })))
    throw new ApiError('trading_group_not_found', `the tenant's default trading group ${group} no longer exists`);
  const ownerId = newId('usr');
  const mode = newAccountMode(policy.executionMode);
  const account = await provisionAccount(em, {
    tenantId,
    ownerId,
    name: DEFAULT_ACCOUNT_NAME[mode],
    tradingGroupId: group,
    ...accountMode(mode, policy.deposit.defaultUsd),
  });
  return { ownerId, accountId: account.id };
}

/**
 * Issues a credential in the caller's tenant (docs/api.md §2.1) and answers it with its secret, shown once.
 * Nothing is written when it refuses.
 * @throws ApiError as {@link traderOwner}; `403 forbidden` for an operator scope the caller lacks.
 */
export async function issueManagedCredential(
  deps: ApiDeps,
  caller: Caller,
  body: IssueCredentialBody,
): Promise<{ row: CredentialRow; apiSecret: string }> {
  if (body.audience === 'operator') assertHeld(caller, body.scopes);
  const { apiKey, apiSecret } = mintKeyPair(body.audience);
  const secretHash = await hashSecret(apiSecret);
  const trader = body.audience === 'trader' ? body : null;
  const row = await scoped(deps.orm, caller.tenantId).transactional(async (tx) => {
    const owner = trader
      ? await traderOwner(tx, caller.tenantId, trader.accountId)
      : { ownerId: newId('op'), accountId: null };
    return tx.create(Credential, {
      id: newId('cred'),
      tenantId: caller.tenantId,
      apiKey,
      ownerId: owner.ownerId,
      secretHash,
      audience: body.audience,
      tier: trader?.tier ?? null,
      scopes: body.audience === 'operator' ? body.scopes : [],
      accountId: owner.accountId,
      signerAddress: trader?.signerAddress ?? null,
      label: body.label ?? `${body.audience} credential`,
      revokedAt: null,
      rateLimitPerSecond: body.rateLimit?.perSecond ?? null,
      rateLimitBurst: body.rateLimit?.burst ?? null,
      envelope: withEnvelope({}, trader?.envelope ?? {}),
      allowedVenues: trader?.allowedVenues ?? null,
      allowedSymbols: trader?.allowedSymbols ?? null,
      secretRotatedAt: null,
    });
  });
  return { row, apiSecret };
}

/**
 * A credential of the caller's tenant (`em` is scoped to it). @throws ApiError `404 credential_not_found`.
 */
export async function credentialOf(em: EntityManager, id: string): Promise<CredentialRow> {
  const row = await em.findOne(Credential, { id });
  if (!row) throw new ApiError('credential_not_found', `no credential ${id}`);
  return row;
}

/**
 * A credential the caller may change: of its tenant, not revoked, an operator one only with scopes the
 * caller holds. @throws ApiError `404 credential_not_found`, `403 forbidden`, `409 invalid_state` (revoked).
 */
async function changeable(em: EntityManager, caller: Caller, id: string): Promise<CredentialRow> {
  const row = await credentialOf(em, id);
  assertHeld(caller, row.scopes);
  if (row.revokedAt) throw new ApiError('invalid_state', `credential ${id} is revoked`);
  return row;
}

/**
 * Changes a credential's label, tier, scopes, signer, envelope, allowlists or rate limit (the fields of
 * `body`; docs/api.md §4.8). Nothing is written when it refuses.
 * @throws ApiError `400 validation_failed` (codes `trader_only`, `operator_only`: a field of the other
 *   audience), `403 forbidden` (a scope the caller lacks), as {@link changeable}.
 */
export async function updateManagedCredential(
  deps: ApiDeps,
  caller: Caller,
  id: string,
  body: UpdateCredentialBody,
): Promise<CredentialRow> {
  const em = scoped(deps.orm, caller.tenantId);
  const row = await changeable(em, caller, id);
  const fields = Object.keys(body) as (keyof UpdateCredentialBody)[];
  const foreign = fields.flatMap((f) => {
    const only = AUDIENCE_ONLY[f as keyof typeof AUDIENCE_ONLY];
    return only && only !== row.audience
      ? [{ path: `body.${f}`, message: `only a ${only} credential has ${f}`, code: `${only}_only` }]
      : [];
  });
  if (foreign.length) throw new ApiError('validation_failed', foreign);
  if (body.scopes) assertHeld(caller, body.scopes);
  for (const f of fields) (APPLY[f] as (r: CredentialRow, v: unknown) => void)(row, body[f]);
  await em.flush();
  return row;
}

/**
 * Rotates a credential's secret (docs/api.md §5.2): the new one is answered once; from then on the old
 * secret mints nothing (`401 invalid_credentials`) and every bearer minted before is `401 token_revoked`.
 * The key, id, intents and settings stay. Of two concurrent rotations one wins, the other is `409`.
 * @throws ApiError as {@link changeable}; `409 invalid_state` when it was rotated or revoked meanwhile.
 */
export async function rotateManagedCredential(
  deps: ApiDeps,
  caller: Caller,
  id: string,
): Promise<{ row: CredentialRow; apiSecret: string }> {
  const em = scoped(deps.orm, caller.tenantId);
  const row = await changeable(em, caller, id);
  const { apiSecret } = mintKeyPair(row.audience as 'trader' | 'operator');
  const secretHash = await hashSecret(apiSecret);
  const changed = await em.nativeUpdate(
    Credential,
    { id, tenantId: caller.tenantId, secretVersion: row.secretVersion, revokedAt: null },
    { secretHash, secretVersion: row.secretVersion + 1, secretRotatedAt: new Date() },
  );
  if (changed !== 1)
    throw new ApiError('invalid_state', `credential ${id} was rotated or revoked meanwhile; read it again`);
  await em.refresh(row);
  return { row, apiSecret };
}

/**
 * Revokes a credential (docs/api.md §5.2), idempotently: minting, writes and operator gates refuse it
 * (`401 credential_revoked`) from the next request on, its `/ws/risk` sockets close; reads by bearers
 * minted before go on until they expire. @throws ApiError `404 credential_not_found`, `403 forbidden`.
 */
export async function revokeManagedCredential(deps: ApiDeps, caller: Caller, id: string): Promise<CredentialRow> {
  const em = scoped(deps.orm, caller.tenantId);
  const row = await credentialOf(em, id);
  assertHeld(caller, row.scopes);
  if (!row.revokedAt) {
    row.revokedAt = new Date();
    await em.flush();
  }
  return row;
}

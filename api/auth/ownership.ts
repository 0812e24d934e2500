/**
 * Which account a trader may act on (docs/api.md §5.3): only the accounts its owner holds, in its
 * tenant. Every trader route that names an account checks it here.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../../domain/errors.js';
import { Account, type AccountRow } from '../../db/entities.js';
import type { Caller } from '../context.js';

/**
 * The caller's account `id` in the caller's tenant (`em` is tenant-scoped).
 * @throws ApiError `404 account_not_found` (absent or another tenant's), `403 forbidden` (another trader's).
 */
export async function ownedAccount(em: EntityManager, caller: Caller, id: string): Promise<AccountRow> {
  return ownedBy(caller, await em.findOne(Account, { id }), id);
}

/**
 * `account` (read as `id`, in any tenant) when the caller may act on it.
 * @throws ApiError `404 account_not_found` (null, or another tenant's), `403 forbidden` (another trader's).
 */
export function ownedBy<A extends { tenantId: string; ownerId: string }>(
  caller: Caller,
  account: A | null,
  id: string,
): A {
  if (!account || account.tenantId !== caller.tenantId) throw new ApiError('account_not_found', `no account ${id}`);
  if (account.ownerId !== caller.ownerId) throw new ApiError('forbidden', 'this account belongs to another trader');
  return account;
}

/**
 * The account a write acts on: `given`, else the credential's active account; the caller's own.
 * @throws ApiError `400 validation_failed` when neither exists, and as {@link ownedAccount}.
 */
export async function targetAccount(em: EntityManager, caller: Caller, given: string | undefined): Promise<AccountRow> {
  return ownedAccount(em, caller, targetAccountId(caller, given));
}

/**
 * The id of the account a write acts on: `given`, else the credential's active account (not yet checked as the
 * caller's: {@link ownedBy} does that). @throws ApiError `400 validation_failed` when neither exists.
 */
export function targetAccountId(caller: Caller, given: string | undefined): string {
  const id = given ?? caller.accountId;
  if (!id)
    throw new ApiError('validation_failed', [
      { path: 'body.accountId', message: 'this credential has no active account; send accountId', code: 'required' },
    ]);
  return id;
}

/** Every account the caller owns in its tenant, oldest first. */
export function ownAccounts(em: EntityManager, caller: Caller): Promise<AccountRow[]> {
  return em.find(Account, { ownerId: caller.ownerId }, { orderBy: { createdAt: 'asc' } });
}

/**
 * The ids of the accounts a read covers: `accountId` when given (the caller's own), else every
 * account the caller owns, oldest first. @throws as {@link ownedAccount}.
 */
export async function accountsInScope(
  em: EntityManager,
  caller: Caller,
  accountId: string | undefined,
): Promise<string[]> {
  if (accountId) return [(await ownedAccount(em, caller, accountId)).id];
  return (await ownAccounts(em, caller)).map((a) => a.id);
}

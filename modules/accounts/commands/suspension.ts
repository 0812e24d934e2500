/**
 * `PATCH /api/v1/accounts/{id}/suspension` (docs/api.md §4.8, §5.4 `prop:manage`): an operator suspends
 * any account of the tenant or lifts the suspension. Compose refuses a suspended account's orders
 * with `403 account_suspended`; flatten and cancel through the OMS batch still run.
 */
import { ApiError } from '../../../domain/errors.js';
import { Account, type AccountRow } from '../../../db/entities.js';
import { scoped } from '../../../db/orm.js';
import type { ApiDeps, Caller } from '../../../api/context.js';

/**
 * Suspends (keeping the first suspension time; reason `reason`, else the one before, else
 * "suspended by the operator") or lifts the suspension. @throws ApiError `404 account_not_found`.
 */
export async function setSuspension(
  deps: ApiDeps,
  caller: Caller,
  accountId: string,
  body: { suspended: boolean; reason?: string },
): Promise<AccountRow> {
  const em = scoped(deps.orm, caller.tenantId);
  const account = await em.findOne(Account, { id: accountId });
  if (!account) throw new ApiError('account_not_found', `no account ${accountId}`);
  const reason = body.reason ?? account.suspensionReason ?? 'suspended by the operator';
  Object.assign(
    account,
    body.suspended
      ? { suspendedAt: account.suspendedAt ?? new Date(), suspensionReason: reason }
      : { suspendedAt: null, suspensionReason: null },
  );
  await em.flush();
  return account;
}

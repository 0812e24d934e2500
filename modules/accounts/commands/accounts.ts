/**
 * A trader's own accounts (docs/api.md §4.3): create a paper account (`POST /accounts`,
 * `POST /sandbox/paper-account`), rename it or change its settings (`PATCH /accounts/{id}`).
 */
import type { AccountRow } from '../../../db/entities.js';
import { DEFAULT_PAPER_DEPOSIT_USD, provisionPaperAccount } from '../../../db/accounts.js';
import { scoped } from '../../../db/orm.js';
import { ownedAccount } from '../../../api/auth/ownership.js';
import type { ApiDeps, Caller } from '../../../api/context.js';

/** Opens a paper (internalised) account for the caller, funded with `initialDepositUsd` (default 100000 USD). */
export function createPaperAccount(
  deps: ApiDeps,
  caller: Caller,
  body: { name: string; initialDepositUsd?: string },
): Promise<AccountRow> {
  const em = scoped(deps.orm, caller.tenantId);
  return provisionPaperAccount(em, {
    tenantId: caller.tenantId,
    ownerId: caller.ownerId,
    name: body.name,
    depositUsd: body.initialDepositUsd ?? DEFAULT_PAPER_DEPOSIT_USD,
  });
}

/** Renames the caller's account and merges `settings` into its settings. @throws as ownedAccount (auth/ownership.ts). */
export async function updateAccount(
  deps: ApiDeps,
  caller: Caller,
  id: string,
  body: { name?: string; settings?: Record<string, unknown> },
): Promise<AccountRow> {
  const em = scoped(deps.orm, caller.tenantId);
  const row = await ownedAccount(em, caller, id);
  if (body.name !== undefined) row.name = body.name;
  if (body.settings !== undefined) row.settings = { ...row.settings, ...body.settings };
  await em.flush();
  return row;
}

/**
 * A trader's own accounts (docs/api.md §4.3): create a paper account (`POST /accounts`,
 * `POST /sandbox/paper-account`), rename it or change its settings (`PATCH /accounts/{id}`).
 * A new account stays under the tenant's rules (issue 16): it joins the trading group of the account
 * the caller's credential acts for, else the tenant's default group, and its deposit follows the
 * tenant's deposit policy (domain/tenant/config.ts `accountsSchema`); the tenant's plan bounds how many
 * accounts it holds (`maxAccounts`).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { dec } from '../../../domain/decimal.js';
import { ApiError } from '../../../domain/errors.js';
import { readSection } from '../../../domain/tenant/config.js';
import { Account, Tenant, TradingGroup, type AccountRow } from '../../../db/entities.js';
import { provisionPaperAccount } from '../../../db/accounts.js';
import { scoped } from '../../../db/orm.js';
import { ownedAccount } from '../../../api/auth/ownership.js';
import type { ApiDeps, Caller } from '../../../api/context.js';
import { assertAccountRoom } from '../../tenants/queries/entitlements.js';

/**
 * The trading group of a new account of `caller`: that of the account its credential acts for,
 * else `fallback` (the tenant's default). `em` is scoped to the caller's tenant.
 * @throws ApiError `404 trading_group_not_found` when the tenant's default group no longer exists
 * (an uncapped account is never opened in its place).
 */
async function newAccountGroup(em: EntityManager, caller: Caller, fallback: string | null): Promise<string | null> {
  const own = caller.accountId ? await em.findOne(Account, { id: caller.accountId }) : null;
  if (own?.tradingGroupId) return own.tradingGroupId;
  if (fallback && !(await em.findOne(TradingGroup, { id: fallback })))
    throw new ApiError('trading_group_not_found', `the tenant's default trading group ${fallback} no longer exists`);
  return fallback;
}

/**
 * Opens a paper (internalised) account for the caller, funded with `initialDepositUsd` (decimal
 * string, USD; default the tenant's `accounts.deposit.defaultUsd`, 100000 unless configured), in the
 * trading group {@link newAccountGroup} picks. Nothing is written when it refuses.
 * @throws ApiError `400 validation_failed` (code `deposit_above_limit`) above the tenant's
 * `accounts.deposit.maxUsd` (1000000 unless configured); `404 trading_group_not_found`;
 * `409 plan_limit_reached` when the tenant holds its plan's `maxAccounts` (docs/api.md §2.4).
 */
export async function createPaperAccount(
  deps: ApiDeps,
  caller: Caller,
  body: { name: string; initialDepositUsd?: string },
): Promise<AccountRow> {
  const em = scoped(deps.orm, caller.tenantId);
  const tenant = await em.findOneOrFail(Tenant, { id: caller.tenantId });
  const policy = readSection('accounts', tenant.accounts);
  const depositUsd = body.initialDepositUsd ?? policy.deposit.defaultUsd;
  if (dec(depositUsd).gt(policy.deposit.maxUsd))
    throw new ApiError('validation_failed', [
      {
        path: 'body.initialDepositUsd',
        message: `at most ${policy.deposit.maxUsd} USD on this tenant`,
        code: 'deposit_above_limit',
      },
    ]);
  const tradingGroupId = await newAccountGroup(em, caller, policy.defaultTradingGroupId);
  return em.transactional(async (tx) => {
    await assertAccountRoom(tx, caller.tenantId);
    return provisionPaperAccount(tx, {
      tenantId: caller.tenantId,
      ownerId: caller.ownerId,
      name: body.name,
      depositUsd,
      tradingGroupId,
    });
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

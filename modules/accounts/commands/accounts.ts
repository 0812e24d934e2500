/**
 * A trader's own accounts (docs/api.md §4.3): open one (`POST /accounts`, `POST /sandbox/paper-account`),
 * rename it or change its settings (`PATCH /accounts/{id}`). A new account stays under the tenant's rules
 * (issue 16, 17): its execution mode follows the tenant's policy (domain/oms/execution.ts), it joins the
 * trading group of the account the caller's credential acts for, else the tenant's default group, and its
 * deposit follows the tenant's deposit policy (domain/tenant/config.ts `accountsSchema`); the tenant's plan
 * bounds how many accounts it holds (`maxAccounts`).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { dec } from '../../../domain/decimal.js';
import { ApiError } from '../../../domain/errors.js';
import { readSection } from '../../../domain/tenant/config.js';
import { newAccountMode, type ExecutionMode } from '../../../domain/oms/execution.js';
import { Account, Tenant, TradingGroup, type AccountRow } from '../../../db/entities.js';
import { accountMode, DEFAULT_ACCOUNT_NAME, provisionAccount } from '../../../db/accounts.js';
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
 * Opens an account for the caller (docs/api.md §4.3) in the execution mode the tenant's policy gives
 * (`accounts.executionMode`; under `trader_choice` the body's `executionMode`, default `internalised`), in the
 * trading group {@link newAccountGroup} picks. An internalised account is funded on `paper` with
 * `initialDepositUsd` (decimal string, USD; default the tenant's `accounts.deposit.defaultUsd`, 100000 unless
 * configured); a routed one holds its money on the exchanges and takes no deposit. Nothing is written when it refuses.
 * @throws ApiError `403 execution_mode_not_allowed` (a mode the policy does not give); `400 validation_failed`
 * (code `deposit_above_limit`) above the tenant's `accounts.deposit.maxUsd` (1000000 unless configured), or
 * (code `deposit_not_applicable`) a deposit for a routed account; `404 trading_group_not_found`;
 * `409 plan_limit_reached` when the tenant holds its plan's `maxAccounts` (docs/api.md §2.4).
 */
export async function createAccount(
  deps: ApiDeps,
  caller: Caller,
  body: { name?: string; initialDepositUsd?: string; executionMode?: ExecutionMode },
): Promise<AccountRow> {
  const em = scoped(deps.orm, caller.tenantId);
  const tenant = await em.findOneOrFail(Tenant, { id: caller.tenantId });
  const policy = readSection('accounts', tenant.accounts);
  const mode = newAccountMode(policy.executionMode, body.executionMode);
  const depositUsd = body.initialDepositUsd ?? policy.deposit.defaultUsd;
  const refusal = depositRefusal(mode, body.initialDepositUsd, policy.deposit.maxUsd);
  if (refusal) throw new ApiError('validation_failed', [{ path: 'body.initialDepositUsd', ...refusal }]);
  const tradingGroupId = await newAccountGroup(em, caller, policy.defaultTradingGroupId);
  return em.transactional(async (tx) => {
    await assertAccountRoom(tx, caller.tenantId);
    return provisionAccount(tx, {
      tenantId: caller.tenantId,
      ownerId: caller.ownerId,
      name: body.name ?? DEFAULT_ACCOUNT_NAME[mode],
      tradingGroupId,
      ...accountMode(mode, depositUsd),
    });
  });
}

/** Why the opening deposit a trader asked for is refused, as a field issue's code and message; null when it is not. */
function depositRefusal(
  mode: ExecutionMode,
  initialDepositUsd: string | undefined,
  maxUsd: string,
): { code: string; message: string } | null {
  if (initialDepositUsd === undefined) return null;
  if (mode === 'routed')
    return {
      code: 'deposit_not_applicable',
      message: 'a routed account holds its money on the exchanges: it takes no paper deposit',
    };
  if (dec(initialDepositUsd).gt(maxUsd))
    return { code: 'deposit_above_limit', message: `at most ${maxUsd} USD on this tenant` };
  return null;
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

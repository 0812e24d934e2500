/**
 * `POST /api/v1/prop/challenges` (docs/api.md §3.5; issue 6): a trader buys a challenge of a live firm: a
 * prop account `pending_payment` with its own paper trading account funded with the template's
 * account size. The workflow `challenge-<propAccountId>` sees the on-chain deposit into the firm's
 * PropInstance, activates the account and watches its rules.
 */
import { randomBytes } from 'node:crypto';
import { ApiError } from '../../../domain/errors.js';
import {
  Account,
  AccountBalance,
  AccountEvent,
  AccountStateSnapshot,
  Firm,
  PropAccount,
  PropTemplate,
  type PropAccountRow,
} from '../../../db/entities.js';
import { provisionAccount } from '../../../db/accounts.js';
import { scoped } from '../../../db/orm.js';
import { searchAttributes } from '../../../workflows/shared.definitions.js';
import { challengeWorkflowId } from '../workflows/challenge.definitions.js';
import { challengeWorkflow } from '../workflows/challenge.js';
import type { ApiDeps, Caller } from '../../../api/context.js';
import { assertAccountRoom, assertPlanFeature } from '../../tenants/queries/entitlements.js';

/**
 * Buys a challenge of template `templateId` for the caller and starts its workflow; without its
 * workflow, the challenge and its account are removed again (no orphan rows).
 * @throws ApiError `403 plan_feature_unavailable` (plan without `propFirm`), `403 feature_disabled` (flag
 *   `propFirm` off), `404 template_not_found`, `409 firm_not_live`, `409 plan_limit_reached` (the plan's
 *   `maxAccounts` held; docs/api.md §2.4).
 */
export async function buyChallenge(deps: ApiDeps, caller: Caller, templateId: string): Promise<PropAccountRow> {
  await assertPlanFeature(deps.auth, caller.tenantId, 'propFirm', 'propFirm');
  const em = scoped(deps.orm, caller.tenantId);
  const template = await em.findOne(PropTemplate, { id: templateId, archived: false });
  if (!template) throw new ApiError('template_not_found', `no challenge template ${templateId}`);
  const firm = await em.findOneOrFail(Firm, { id: template.firmId });
  if (firm.status !== 'live')
    throw new ApiError('firm_not_live', `firm ${firm.id} is ${firm.status}; challenges are sold while it is live`);
  const id = `pa_${randomBytes(8).toString('hex')}`;
  const size = template.accountSizeUsd;
  const pa = await em.transactional(async (tx) => {
    await assertAccountRoom(tx, caller.tenantId);
    // The operator's template decides where a challenge trades: its `venue` is `paper` (the only one a
    // template takes), so a challenge account is internalised whatever the tenant's account policy.
    const account = await provisionAccount(tx, {
      tenantId: caller.tenantId,
      ownerId: caller.ownerId,
      name: `${template.name} challenge`,
      executionMode: 'internalised',
      depositUsd: size,
      tradingGroupId: template.tradingGroupId ?? null,
    });
    const fields = {
      id,
      tenantId: caller.tenantId,
      firmId: firm.id,
      templateId: template.id,
      accountId: account.id,
      ownerId: caller.ownerId,
      status: 'pending_payment',
    };
    return tx.create(
      PropAccount,
      {
        ...fields,
        startingBalanceUsd: size,
        peakEquityUsd: size,
        dayStartEquityUsd: size,
        tradingDays: 0,
        paidOutUsd: '0',
        attempt: 1,
      },
      { partial: true },
    );
  });
  try {
    await watchChallenge(deps, caller.tenantId, pa);
  } catch (err) {
    await em.transactional(async (tx) => {
      await tx.nativeDelete(PropAccount, { id });
      await tx.nativeDelete(AccountStateSnapshot, { accountId: pa.accountId });
      await tx.nativeDelete(AccountEvent, { accountId: pa.accountId });
      await tx.nativeDelete(AccountBalance, { accountId: pa.accountId });
      await tx.nativeDelete(Account, { id: pa.accountId });
    });
    throw err;
  }
  return em.findOneOrFail(PropAccount, { id });
}

/**
 * Starts `challenge-<propAccountId>`, the workflow that sees the deposit and watches the rules of `pa`'s current
 * attempt; a watch already running for it carries on (`USE_EXISTING`).
 */
export async function watchChallenge(
  deps: ApiDeps,
  tenantId: string,
  pa: { id: string; accountId: string },
): Promise<void> {
  await deps.temporal.workflow.start(challengeWorkflow, {
    workflowId: challengeWorkflowId(pa.id),
    taskQueue: deps.config.temporal.taskQueue,
    args: [{ tenantId, propAccountId: pa.id, pollMs: deps.config.chain.pollMs }],
    workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: searchAttributes({ tenantId, accountId: pa.accountId, venue: 'paper' }),
  });
}

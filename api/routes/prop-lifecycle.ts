/**
 * Operator actions on a challenge (docs/api.md §3.5, §5.4 `prop:manage`: "account resets and
 * promotions"; operator audience). Listing and reading prop accounts: api/routes/prop-accounts.ts.
 *
 * - `POST /api/v1/prop-accounts/{id}/promote` → `passed` → `funded` (the trader keeps the payout
 *   ceiling; `409 invalid_state` from any other status).
 * - `POST /api/v1/prop-accounts/{id}/reset` → a new attempt from `active`, `breached` or
 *   `suspended`: the trading account's paper balance goes back to the account size (a
 *   `funding.deposit` or `funding.withdrawal` event of the difference), peak and day-start equity
 *   to the account size, trading days from now, suspension lifted, status `active`; the challenge
 *   workflow watches again. `409 invalid_state` while positions or working orders are open
 *   (flatten first), or from `pending_payment`, `passed`, `funded`.
 */
import Router from '@koa/router';
import { ApiError } from '../../domain/errors.js';
import { Decimal, fmt } from '../../domain/decimal.js';
import { Account, AccountBalance, OrderIntent, Position, PropAccount, PropTemplate } from '../../db/entities.js';
import { scoped } from '../../db/orm.js';
import { appendEvents, lockAccount } from '../../db/events.js';
import { recordStateSnapshot } from '../../db/state-snapshots.js';
import { challengeWorkflowId, searchAttributes } from '../../workflows/definitions.js';
import { callerOf, gate } from '../middleware/auth.js';
import type { ApiDeps, ApiState } from '../context.js';
import type { OpenApiRegistry } from '../openapi.js';
import { endpoint } from '../route.js';
import { propAccountView } from './prop-accounts.js';
import { propAccountParams, propAccountViewSchema } from './prop-accounts.schemas.js';

/** Statuses a reset starts a new attempt from. */
const RESETTABLE = ['active', 'breached', 'suspended'];

export function propLifecycleRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1' });
  const tags = ['prop-accounts'];
  const manage = gate({ audience: 'operator', scope: 'prop:manage', write: true });

  endpoint(router, openapi, { method: 'post', path: '/prop-accounts/:id/promote', summary: 'Promote a passed challenge to funded', tags, gate: manage, requires: 'prop:manage', schemas: { params: propAccountParams }, responses: { '200': { description: 'Prop account', schema: propAccountViewSchema } } }, async (ctx, { params }) => {
    const em = scoped(deps.orm, callerOf(ctx).tenantId);
    const pa = await em.findOne(PropAccount, { id: params.id });
    if (!pa) throw new ApiError('prop_account_not_found', `no prop account ${params.id}`);
    if (pa.status !== 'passed') throw new ApiError('invalid_state', `prop account ${pa.id} is ${pa.status}; only a passed challenge is promoted`);
    pa.status = 'funded';
    await em.flush();
    ctx.body = propAccountView(pa);
  });

  endpoint(router, openapi, { method: 'post', path: '/prop-accounts/:id/reset', summary: 'Start a new attempt: balance back to the account size, rules watched again', tags, gate: manage, requires: 'prop:manage', schemas: { params: propAccountParams }, responses: { '200': { description: 'Prop account', schema: propAccountViewSchema } } }, async (ctx, { params }) => {
    const caller = callerOf(ctx);
    const em = scoped(deps.orm, caller.tenantId);
    const pa = await em.transactional(async (tx) => {
      const row = await tx.findOne(PropAccount, { id: params.id }, { lockMode: 4 /* PESSIMISTIC_WRITE */ });
      if (!row) throw new ApiError('prop_account_not_found', `no prop account ${params.id}`);
      if (!RESETTABLE.includes(row.status)) throw new ApiError('invalid_state', `prop account ${row.id} is ${row.status}; a reset starts from ${RESETTABLE.join(', ')}`);
      await lockAccount(tx, row.accountId);
      const open = (await tx.count(Position, { accountId: row.accountId, qty: { $ne: '0' } })) + (await tx.count(OrderIntent, { accountId: row.accountId, orderStatus: 'open' }));
      if (open) throw new ApiError('invalid_state', `account ${row.accountId} has open positions or working orders; flatten it first`);
      const template = await tx.findOneOrFail(PropTemplate, { id: row.templateId });
      const balance = await tx.findOneOrFail(AccountBalance, { accountId: row.accountId, venue: 'paper' });
      const delta = new Decimal(template.accountSizeUsd).sub(balance.balanceUsd);
      if (!delta.isZero()) {
        balance.balanceUsd = template.accountSizeUsd;
        const kind = delta.isPos() ? 'funding.deposit' : 'funding.withdrawal';
        await appendEvents(tx, caller.tenantId, row.accountId, [{ kind, frameType: 'Funding-Update', venue: 'paper', data: { accountId: row.accountId, venue: 'paper', type: delta.isPos() ? 'deposit' : 'withdrawal', amountUsd: fmt(delta.abs()), reason: `challenge reset (attempt ${row.attempt + 1})` } }]);
        await recordStateSnapshot(tx, { tenantId: caller.tenantId, accountId: row.accountId, venue: 'paper', reason: 'deposit' });
      }
      const account = await tx.findOneOrFail(Account, { id: row.accountId });
      Object.assign(account, { suspendedAt: null, suspensionReason: null });
      Object.assign(row, { status: 'active', attempt: row.attempt + 1, attemptStartedAt: new Date(), startingBalanceUsd: template.accountSizeUsd, peakEquityUsd: template.accountSizeUsd, dayStartEquityUsd: template.accountSizeUsd, day: null, tradingDays: 0, breachReason: null, breachedAt: null });
      return row;
    });
    // Watch the new attempt (a still-running watch of an active attempt carries on).
    await deps.temporal.workflow.start('challengeWorkflow', { workflowId: challengeWorkflowId(pa.id), taskQueue: deps.config.temporal.taskQueue, args: [{ tenantId: caller.tenantId, propAccountId: pa.id, pollMs: deps.config.chain.pollMs }], workflowIdConflictPolicy: 'USE_EXISTING', typedSearchAttributes: searchAttributes({ tenantId: caller.tenantId, accountId: pa.accountId, venue: 'paper' }) });
    ctx.body = propAccountView(pa);
  });

  return router;
}

/**
 * Operator actions on a challenge (docs/api.md §3.5, §5.4 `prop:manage`: "account resets and promotions").
 *
 * - Promote: `passed` → `funded` (the trader keeps the payout ceiling; `409 invalid_state` from any other status).
 * - Reset: a new attempt from `active`, `breached` or `suspended`: the trading account's paper balance
 *   goes back to the account size (a `funding.deposit` or `funding.withdrawal` event of the
 *   difference), peak and day-start equity to the account size, trading days from now, suspension
 *   lifted, status `active`; the challenge workflow watches again. `409 invalid_state` while positions
 *   or working orders are open (flatten first), or from `pending_payment`, `passed`, `funded`.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../../../domain/errors.js';
import { Decimal, fmt } from '../../../domain/decimal.js';
import {
  Account,
  AccountBalance,
  OrderIntent,
  Position,
  PropAccount,
  PropTemplate,
  type PropAccountRow,
} from '../../../db/entities.js';
import { appendEvents, lockAccount } from '../../../db/events.js';
import { scoped } from '../../../db/orm.js';
import { recordStateSnapshot } from '../../../db/state-snapshots.js';
import { watchChallenge } from './challenges.js';
import type { ApiDeps, Caller } from '../../../api/context.js';

/** Statuses a reset starts a new attempt from. */
const RESETTABLE = ['active', 'breached', 'suspended'];

/** The tenant's prop account `id` (`em` is tenant-scoped). @throws ApiError `404 prop_account_not_found`. */
export async function propAccountOf(em: EntityManager, id: string): Promise<PropAccountRow> {
  const pa = await em.findOne(PropAccount, { id });
  if (!pa) throw new ApiError('prop_account_not_found', `no prop account ${id}`);
  return pa;
}

/** Promotes a passed challenge to funded. @throws ApiError `404 prop_account_not_found`, `409 invalid_state`. */
export async function promote(deps: ApiDeps, caller: Caller, id: string): Promise<PropAccountRow> {
  const em = scoped(deps.orm, caller.tenantId);
  const pa = await propAccountOf(em, id);
  if (pa.status !== 'passed')
    throw new ApiError('invalid_state', `prop account ${pa.id} is ${pa.status}; only a passed challenge is promoted`);
  pa.status = 'funded';
  await em.flush();
  return pa;
}

/**
 * Starts a new attempt (module doc) and the challenge workflow's watch of it.
 * @throws ApiError `404 prop_account_not_found`, `409 invalid_state`.
 */
export async function reset(deps: ApiDeps, caller: Caller, id: string): Promise<PropAccountRow> {
  const em = scoped(deps.orm, caller.tenantId);
  const pa = await em.transactional(async (tx) => {
    const row = await tx.findOne(PropAccount, { id }, { lockMode: 4 /* PESSIMISTIC_WRITE */ });
    if (!row) throw new ApiError('prop_account_not_found', `no prop account ${id}`);
    if (!RESETTABLE.includes(row.status))
      throw new ApiError(
        'invalid_state',
        `prop account ${row.id} is ${row.status}; a reset starts from ${RESETTABLE.join(', ')}`,
      );
    await lockAccount(tx, row.accountId);
    const open =
      (await tx.count(Position, { accountId: row.accountId, qty: { $ne: '0' } })) +
      (await tx.count(OrderIntent, { accountId: row.accountId, orderStatus: 'open' }));
    if (open)
      throw new ApiError(
        'invalid_state',
        `account ${row.accountId} has open positions or working orders; flatten it first`,
      );
    const template = await tx.findOneOrFail(PropTemplate, { id: row.templateId });
    const balance = await tx.findOneOrFail(AccountBalance, { accountId: row.accountId, venue: 'paper' });
    const delta = new Decimal(template.accountSizeUsd).sub(balance.balanceUsd);
    if (!delta.isZero()) {
      balance.balanceUsd = template.accountSizeUsd;
      const kind = delta.isPos() ? 'funding.deposit' : 'funding.withdrawal';
      const data = {
        accountId: row.accountId,
        venue: 'paper',
        type: delta.isPos() ? 'deposit' : 'withdrawal',
        amountUsd: fmt(delta.abs()),
        reason: `challenge reset (attempt ${row.attempt + 1})`,
      };
      await appendEvents(tx, caller.tenantId, row.accountId, [
        { kind, frameType: 'Funding-Update', venue: 'paper', data },
      ]);
      await recordStateSnapshot(tx, {
        tenantId: caller.tenantId,
        accountId: row.accountId,
        venue: 'paper',
        reason: 'deposit',
      });
    }
    const account = await tx.findOneOrFail(Account, { id: row.accountId });
    Object.assign(account, { suspendedAt: null, suspensionReason: null });
    const size = template.accountSizeUsd;
    Object.assign(row, {
      status: 'active',
      attempt: row.attempt + 1,
      attemptStartedAt: new Date(),
      startingBalanceUsd: size,
      peakEquityUsd: size,
      dayStartEquityUsd: size,
      day: null,
      tradingDays: 0,
      breachReason: null,
      breachedAt: null,
    });
    return row;
  });
  // Watch the new attempt (a still-running watch of an active attempt carries on).
  await watchChallenge(deps, caller.tenantId, pa);
  return pa;
}

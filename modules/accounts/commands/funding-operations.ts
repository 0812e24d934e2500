/**
 * Funding operations (docs/api.md §4.3 "Funding operations", §4.8; rules in domain/funding/operations.ts): a
 * trader deposits to, withdraws from, or transfers between its own internalised accounts, under the tenant's
 * `accounts.funding` policy; an operator with `accounts:intervene` approves or rejects the ones the policy holds.
 *
 * Every balance change is one transaction under the account locks (taken in id order, so two transfers in
 * opposite directions cannot deadlock): the `funding_operations` row, the `paper` cash balance, a
 * `funding.deposit` / `funding.withdrawal` / `funding.transfer` event on each account it touches (the
 * `/ws/risk` `Funding` topic, webhooks, `GET /accounts/{id}/funding`) and a state snapshot of each
 * (db/state-snapshots.ts). A held operation moves nothing: it is logged `funding.requested`, and its
 * rejection `funding.rejected`, on the account it acts on. A routed account holds its money on the venues:
 * nothing here touches one.
 */
import { randomBytes } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { dec, fmt } from '../../../domain/decimal.js';
import { ApiError } from '../../../domain/errors.js';
import { executionModeOf } from '../../../domain/oms/execution.js';
import { readSection } from '../../../domain/tenant/config.js';
import {
  assertAllowed,
  FUNDING_DECISION_KIND,
  FUNDING_OPERATION,
  needsApproval,
  type FundingOperationType,
} from '../../../domain/funding/operations.js';
import {
  AccountBalance,
  FundingOperation,
  Tenant,
  type AccountRow,
  type FundingOperationRow,
} from '../../../db/entities.js';
import { appendEvents, lockAccount, type NewEvent } from '../../../db/events.js';
import { scoped } from '../../../db/orm.js';
import { recordStateSnapshot, stateNow } from '../../../db/state-snapshots.js';
import { ownedAccount } from '../../../api/auth/ownership.js';
import type { ApiDeps, Caller } from '../../../api/context.js';

/** The venue an internalised account's cash is held on. */
const VENUE = 'paper';

/** What a trader asks for on its account: an amount (USD decimal string > 0) and, for a transfer, the destination. */
export interface FundingRequest {
  type: FundingOperationType;
  amountUsd: string;
  toAccountId?: string;
}

/**
 * The balance legs of each type: which account of the operation (`accountId` or `toAccountId`) gains
 * (+1) or loses (−1) the amount. A losing leg must be covered by the account's margin available.
 */
const LEGS: Record<FundingOperationType, { account: 'accountId' | 'toAccountId'; sign: 1 | -1 }[]> = {
  deposit: [{ account: 'accountId', sign: 1 }],
  withdrawal: [{ account: 'accountId', sign: -1 }],
  transfer: [
    { account: 'accountId', sign: -1 },
    { account: 'toAccountId', sign: 1 },
  ],
};

/**
 * Opens a funding operation on the caller's account `accountId` (docs/api.md §4.3): `completed` at once, or
 * `pending` when the tenant's policy holds it for an operator (its balance moves on approval). Nothing is
 * written when it refuses.
 * @throws ApiError `404 account_not_found`, `403 forbidden` (either account not the caller's: ownership.ts);
 *   `400 validation_failed` (code `same_account`: a transfer to itself); `400 account_routed` (either account
 *   routed); `403 funding_operation_disabled`, `400 validation_failed` (code `deposit_above_limit`) per the
 *   policy (domain/funding/operations.ts `assertAllowed`); `409 insufficient_margin` (a withdrawal or transfer
 *   above the margin available, with `availableUsd`, `requestedUsd`).
 */
export async function requestFundingOperation(
  deps: ApiDeps,
  caller: Caller,
  accountId: string,
  req: FundingRequest,
): Promise<FundingOperationRow> {
  const em = scoped(deps.orm, caller.tenantId);
  const account = await ownedAccount(em, caller, accountId);
  const to = req.toAccountId === undefined ? null : await ownedAccount(em, caller, req.toAccountId);
  if (to?.id === account.id)
    throw new ApiError('validation_failed', [
      { path: 'body.toAccountId', message: 'a transfer goes to another of your accounts', code: 'same_account' },
    ]);
  for (const a of [account, to]) if (a) assertInternalised(a);
  const policy = readSection('accounts', (await em.findOneOrFail(Tenant, { id: caller.tenantId })).accounts);
  assertAllowed(policy.funding, policy.deposit.maxUsd, req.type, req.amountUsd);
  const held = needsApproval(policy.funding, req.type);
  return em.transactional(async (tx) => {
    await lockAccounts(tx, [account.id, to?.id]);
    const op = tx.create(FundingOperation, {
      id: `fop_${randomBytes(8).toString('hex')}`,
      tenantId: caller.tenantId,
      accountId: account.id,
      toAccountId: to?.id ?? null,
      type: req.type,
      amountUsd: req.amountUsd,
      status: held ? 'pending' : 'completed',
      requestedBy: caller.credentialId,
      decidedBy: null,
      rejectReason: null,
      decidedAt: held ? null : new Date(),
    });
    if (!held) await applyLegs(tx, op);
    else {
      // Refuse at once what the account cannot cover now; approval checks again.
      await assertCovered(tx, op);
      await appendEvents(tx, caller.tenantId, op.accountId, [decisionEvent(op, 'requested')]);
    }
    return op;
  });
}

/**
 * An operator's decision on a pending operation of its tenant: `approve` completes it (the balance moves
 * now, as {@link requestFundingOperation} describes), else it is `rejected` with `reason` and nothing moves.
 * @throws ApiError `404 funding_operation_not_found`; `409 invalid_state` (not `pending`: decided already);
 *   `409 insufficient_margin` (approving a withdrawal or transfer the account no longer covers; it stays pending).
 */
export async function decideFundingOperation(
  deps: ApiDeps,
  caller: Caller,
  id: string,
  decision: { approve: true } | { approve: false; reason?: string },
): Promise<FundingOperationRow> {
  return scoped(deps.orm, caller.tenantId).transactional(async (tx) => {
    const op = await tx.findOne(FundingOperation, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!op) throw new ApiError('funding_operation_not_found', `no funding operation ${id}`);
    if (op.status !== 'pending')
      throw new ApiError('invalid_state', `funding operation ${id} is ${op.status}; only a pending one is decided`);
    await lockAccounts(tx, [op.accountId, op.toAccountId]);
    Object.assign(op, { decidedBy: caller.credentialId, decidedAt: new Date() });
    if (decision.approve) {
      op.status = 'completed';
      await applyLegs(tx, op);
    } else {
      Object.assign(op, { status: 'rejected', rejectReason: decision.reason ?? null });
      await appendEvents(tx, op.tenantId, op.accountId, [decisionEvent(op, 'rejected')]);
    }
    return op;
  });
}

/** @throws ApiError `400 account_routed` when `account` is routed (its money is on the venues). */
function assertInternalised(account: AccountRow): void {
  if (executionModeOf(account.executionMode) === 'routed')
    throw new ApiError(
      'account_routed',
      `account ${account.id} is routed: its money is on the exchanges, where you deposit and withdraw it`,
      { accountId: account.id },
    );
}

/** Locks the accounts (nulls skipped) in id order: two operations on the same pair cannot deadlock. */
async function lockAccounts(tx: EntityManager, ids: (string | null | undefined)[]): Promise<void> {
  for (const id of [...new Set(ids.filter((x): x is string => Boolean(x)))].sort()) await lockAccount(tx, id);
}

/**
 * Refuses an operation whose losing leg exceeds its account's margin available on `paper` now (§2.5).
 * @throws ApiError `409 insufficient_margin` with `accountId`, `availableUsd`, `requestedUsd`.
 */
async function assertCovered(tx: EntityManager, op: FundingOperationRow): Promise<void> {
  for (const leg of LEGS[op.type as FundingOperationType].filter((l) => l.sign < 0)) {
    const accountId = op[leg.account]!;
    const available = (await stateNow(tx, accountId, VENUE))?.state.marginAvailableUsd ?? dec(0);
    if (available.lt(op.amountUsd))
      throw new ApiError(
        'insufficient_margin',
        `account ${accountId} has ${fmt(available)} USD of margin available; ${fmt(dec(op.amountUsd))} USD was asked`,
        { accountId, availableUsd: fmt(available), requestedUsd: fmt(dec(op.amountUsd)) },
      );
  }
}

/**
 * Moves the balances of a completed operation (accounts locked by the caller): checks cover, then per leg
 * the cash balance, the account event and the state snapshot. @throws as {@link assertCovered}.
 */
async function applyLegs(tx: EntityManager, op: FundingOperationRow): Promise<void> {
  await assertCovered(tx, op);
  const type = op.type as FundingOperationType;
  for (const leg of LEGS[type]) {
    const accountId = op[leg.account]!;
    const signed = dec(op.amountUsd).times(leg.sign);
    const balance =
      (await tx.findOne(AccountBalance, { accountId, venue: VENUE })) ??
      tx.create(AccountBalance, { accountId, venue: VENUE, tenantId: op.tenantId, balanceUsd: '0' });
    balance.balanceUsd = fmt(dec(balance.balanceUsd).plus(signed));
    await appendEvents(tx, op.tenantId, accountId, [
      {
        kind: FUNDING_OPERATION[type].kind,
        frameType: 'Funding-Update',
        venue: VENUE,
        data: {
          accountId,
          venue: VENUE,
          type,
          operationId: op.id,
          // A transfer is signed per account (− out, + in); a deposit or withdrawal is its positive amount.
          amountUsd: fmt(type === 'transfer' ? signed : signed.abs()),
          ...(op.toAccountId ? { fromAccountId: op.accountId, toAccountId: op.toAccountId } : {}),
        },
      },
    ]);
    await recordStateSnapshot(tx, {
      tenantId: op.tenantId,
      accountId,
      venue: VENUE,
      reason: FUNDING_OPERATION[type].snapshot,
    });
  }
}

/** The event of a decision that moves nothing: the operation held (`requested`) or refused (`rejected`). */
function decisionEvent(op: FundingOperationRow, decision: keyof typeof FUNDING_DECISION_KIND): NewEvent {
  return {
    kind: FUNDING_DECISION_KIND[decision],
    frameType: 'Funding-Update',
    venue: VENUE,
    data: {
      accountId: op.accountId,
      venue: VENUE,
      type: decision,
      operation: op.type,
      operationId: op.id,
      status: op.status,
      amountUsd: fmt(dec(op.amountUsd)),
      ...(op.toAccountId ? { toAccountId: op.toAccountId } : {}),
      ...(decision === 'rejected' ? { reason: op.rejectReason ?? null } : {}),
    },
  };
}

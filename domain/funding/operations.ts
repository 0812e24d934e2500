/**
 * Funding operations (docs/api.md §4.3 "Funding operations"; the tenant's `accounts.funding` policy, §2.4): a
 * trader's deposit to, withdrawal from, or transfer between its own internalised accounts. What each type is
 * allowed by, which approval policies hold it for an operator (`accounts:intervene`, §5.4), the account event
 * it is logged as and the state snapshot it writes, as one table; and the refusals of the policy. Pure.
 *
 * Lifecycle (§3.5): `pending` (the policy holds it for an operator) → `completed` or `rejected`; an operation
 * the policy does not hold is `completed` when it is answered. The balance moves only on `completed`.
 */
import { dec } from '../decimal.js';
import { ApiError } from '../errors.js';

/** The operations a trader asks for. */
export const FUNDING_OPERATION_TYPES = ['deposit', 'withdrawal', 'transfer'] as const;
export type FundingOperationType = (typeof FUNDING_OPERATION_TYPES)[number];

/** The statuses of an operation (module doc). */
export const FUNDING_OPERATION_STATUSES = ['pending', 'completed', 'rejected'] as const;
export type FundingOperationStatus = (typeof FUNDING_OPERATION_STATUSES)[number];

/** Which operations a tenant holds for an operator's approval: none, withdrawals only, or every one. */
export const FUNDING_APPROVALS = ['none', 'withdrawals', 'all'] as const;
export type FundingApproval = (typeof FUNDING_APPROVALS)[number];

/** A tenant's funding policy as domain/tenant/config.ts `accountsSchema` reads it (USD decimal strings). */
export interface FundingPolicy {
  deposits: boolean;
  withdrawals: boolean;
  transfers: boolean;
  approval: FundingApproval;
  /** Largest single deposit, USD; null: the tenant's `accounts.deposit.maxUsd`. */
  maxDepositUsd: string | null;
}

/**
 * Per type: the policy switch that allows it, the approval policies that hold it for an operator, the
 * account event kind of the balance change (`/ws/risk` `Funding-Update`, webhook `type`), and the state
 * snapshot reason (db/state-snapshots.ts).
 */
export const FUNDING_OPERATION = {
  deposit: { allowedBy: 'deposits', heldUnder: ['all'], kind: 'funding.deposit', snapshot: 'deposit' },
  withdrawal: {
    allowedBy: 'withdrawals',
    heldUnder: ['withdrawals', 'all'],
    kind: 'funding.withdrawal',
    snapshot: 'withdrawal',
  },
  transfer: { allowedBy: 'transfers', heldUnder: ['all'], kind: 'funding.transfer', snapshot: 'transfer' },
} as const satisfies Record<
  FundingOperationType,
  {
    allowedBy: 'deposits' | 'withdrawals' | 'transfers';
    heldUnder: readonly FundingApproval[];
    kind: `funding.${string}`;
    snapshot: string;
  }
>;

/** The account event kinds of an operation's decision: held for an operator, and refused by one. */
export const FUNDING_DECISION_KIND = { requested: 'funding.requested', rejected: 'funding.rejected' } as const;

/** Whether `policy` holds an operation of `type` for an operator's approval. */
export const needsApproval = (policy: Pick<FundingPolicy, 'approval'>, type: FundingOperationType): boolean =>
  (FUNDING_OPERATION[type].heldUnder as readonly FundingApproval[]).includes(policy.approval);

/**
 * Refuses what `policy` does not allow: a type switched off, or a deposit above the policy's largest
 * (`maxDepositUsd`, else `depositMaxUsd`, the tenant's `accounts.deposit.maxUsd`).
 * @throws ApiError `403 funding_operation_disabled` with `operation`; `400 validation_failed` (code
 *   `deposit_above_limit`, path `body.amountUsd`).
 */
export function assertAllowed(
  policy: FundingPolicy,
  depositMaxUsd: string,
  type: FundingOperationType,
  amountUsd: string,
): void {
  if (!policy[FUNDING_OPERATION[type].allowedBy])
    throw new ApiError(
      'funding_operation_disabled',
      `this tenant does not allow ${type}s (its accounts.funding.${FUNDING_OPERATION[type].allowedBy} policy)`,
      { operation: type },
    );
  const max = policy.maxDepositUsd ?? depositMaxUsd;
  if (type === 'deposit' && dec(amountUsd).gt(max))
    throw new ApiError('validation_failed', [
      { path: 'body.amountUsd', message: `at most ${max} USD per deposit on this tenant`, code: 'deposit_above_limit' },
    ]);
}

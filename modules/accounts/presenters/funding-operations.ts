/**
 * Funding operations as the API shows them (docs/api.md §4.3 "Funding operations", §4.8; routes' schemas
 * `fundingOperationView`, `operatorFundingOperationView`): USD as decimal strings, times ISO 8601.
 */
import { dec, fmt } from '../../../domain/decimal.js';
import type { FundingOperationStatus, FundingOperationType } from '../../../domain/funding/operations.js';
import type { FundingOperationRow } from '../../../db/entities.js';

/** An operation as its trader sees it. */
export function toFundingOperationView(op: FundingOperationRow) {
  return {
    operationId: op.id,
    type: op.type as FundingOperationType,
    status: op.status as FundingOperationStatus,
    accountId: op.accountId,
    toAccountId: op.toAccountId ?? null,
    amountUsd: fmt(dec(op.amountUsd)),
    rejectReason: op.rejectReason ?? null,
    createdAt: new Date(op.createdAt).toISOString(),
    decidedAt: op.decidedAt ? new Date(op.decidedAt).toISOString() : null,
  };
}

/** An operation as an operator sees it: who asked (credential id) and who decided. */
export function toOperatorFundingOperationView(op: FundingOperationRow) {
  return { ...toFundingOperationView(op), requestedBy: op.requestedBy, decidedBy: op.decidedBy ?? null };
}

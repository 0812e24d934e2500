/**
 * The tenant's funding operations for its operators (docs/api.md §4.8 `GET /api/v1/operator/funding`):
 * newest first, optionally of one status (`pending`: those waiting for a decision) or one account.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { FundingOperation } from '../../../db/entities.js';
import { newestFirst } from '../../../api/operator-list.js';
import { toOperatorFundingOperationView } from '../presenters/funding-operations.js';

/** One page `{ data, nextCursor, hasMore }` (`em` tenant-scoped). @throws ApiError `400 invalid_cursor`. */
export function listFundingOperations(
  em: EntityManager,
  query: { status?: string; accountId?: string; limit: number; cursor?: string },
) {
  const where = {
    ...(query.status ? { status: query.status } : {}),
    ...(query.accountId ? { $or: [{ accountId: query.accountId }, { toAccountId: query.accountId }] } : {}),
  };
  return newestFirst(em, FundingOperation, where, query, toOperatorFundingOperationView);
}

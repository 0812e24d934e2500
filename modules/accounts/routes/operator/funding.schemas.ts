/** Schemas of `/api/v1/operator/funding*` (docs/api.md §4.3 "Funding operations", §4.8; scope `accounts:intervene`). */
import { z } from 'zod';
import { FUNDING_OPERATION_STATUSES } from '../../../../domain/funding/operations.js';
import { idParams, listPage, listQuery } from '../../../../api/operator-common.schemas.js';
import { fundingOperationView } from '../accounts/accounts.schemas.js';

/** `GET /operator/funding`: newest first, of one status and/or one account. */
export const fundingListQuery = listQuery.extend({
  status: z
    .enum(FUNDING_OPERATION_STATUSES)
    .optional()
    .meta({ description: '`pending`: the operations waiting for a decision' }),
  accountId: z
    .string()
    .min(1)
    .max(255)
    .optional()
    .meta({ description: 'Operations acting on this account (as source or destination)' }),
});

/** `{ id }` of one funding operation. */
export const fundingParams = idParams;

/** `POST /operator/funding/{id}/reject`. */
export const rejectBody = z
  .object({ reason: z.string().min(1).max(500).optional().meta({ description: 'Shown to the trader' }) })
  .meta({ id: 'FundingRejection' });

/** A funding operation as an operator sees it. */
export const operatorFundingOperationView = fundingOperationView
  .extend({
    requestedBy: z.string().meta({ description: "The trader's credential id" }),
    decidedBy: z.string().nullable().meta({ description: "The deciding operator's credential id; null unless held" }),
  })
  .meta({ id: 'OperatorFundingOperation' });

export const fundingPage = listPage('FundingOperationPage', operatorFundingOperationView);

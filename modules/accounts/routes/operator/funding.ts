/**
 * `/api/v1/operator/funding*` (docs/api.md §4.3 "Funding operations", §4.8; operator audience, scope
 * `accounts:intervene`): the funding operations of the tenant's traders, and the decision on those the
 * tenant's policy holds (`accounts.funding.approval`, §2.4). The work: modules/accounts/commands/funding-operations.ts.
 *
 * - `GET /api/v1/operator/funding` (`?status&accountId&limit&cursor`) → `{ data, nextCursor, hasMore }`, newest first.
 * - `POST …/{id}/approve` → the operation `completed`: the balance moves now (`409 insufficient_margin` when
 *   the account no longer covers it; it stays pending).
 * - `POST …/{id}/reject` `{ reason? }` → the operation `rejected`; nothing moves.
 * `404 funding_operation_not_found`; `409 invalid_state` for an operation no longer pending.
 */
import type Router from '@koa/router';
import type { ApiDeps, ApiState } from '../../../../api/context.js';
import { callerOf } from '../../../../api/middleware/auth.js';
import type { OpenApiRegistry } from '../../../../api/openapi.js';
import { operatorSurface } from '../../../../api/route.js';
import { decideFundingOperation } from '../../commands/funding-operations.js';
import { listFundingOperations } from '../../queries/funding-operations.js';
import { toOperatorFundingOperationView } from '../../presenters/funding-operations.js';
import {
  fundingListQuery,
  fundingPage,
  fundingParams,
  operatorFundingOperationView,
  rejectBody,
} from './funding.schemas.js';

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function operatorFundingRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const { router, route, read, write, em } = operatorSurface(deps, openapi, 'accounts:intervene', ['funding']);

  route
    .get(
      '/operator/funding',
      "The tenant's funding operations, newest first (`?status=pending`: those waiting for a decision)",
      read,
    )
    .input({ query: fundingListQuery })
    .answers({ '200': { description: 'Page', schema: fundingPage } })
    .handle(async (ctx, { query }) => {
      ctx.body = await listFundingOperations(em(ctx), query);
    });

  route
    .post('/operator/funding/:id/approve', 'Approve a pending funding operation: the balance moves now', write)
    .input({ params: fundingParams })
    .answers({ '200': { description: 'Completed', schema: operatorFundingOperationView } })
    .handle(async (ctx, { params }) => {
      const op = await decideFundingOperation(deps, callerOf(ctx), params.id, { approve: true });
      ctx.body = toOperatorFundingOperationView(op);
    });

  route
    .post('/operator/funding/:id/reject', 'Reject a pending funding operation: nothing moves', write)
    .input({ params: fundingParams, body: rejectBody })
    .answers({ '200': { description: 'Rejected', schema: operatorFundingOperationView } })
    .handle(async (ctx, { params, body }) => {
      const op = await decideFundingOperation(deps, callerOf(ctx), params.id, { approve: false, reason: body.reason });
      ctx.body = toOperatorFundingOperationView(op);
    });

  return router;
}

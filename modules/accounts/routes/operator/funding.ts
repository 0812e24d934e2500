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
import { endpoint, operatorSurface } from '../../../../api/route.js';
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
  const { router, tags, read, write, requires, em } = operatorSurface(deps, 'accounts:intervene', ['funding']);

  endpoint(
    router,
    openapi,
    {
      method: 'get',
      path: '/operator/funding',
      summary: "The tenant's funding operations, newest first (`?status=pending`: those waiting for a decision)",
      tags,
      gate: read,
      requires,
      schemas: { query: fundingListQuery },
      responses: { '200': { description: 'Page', schema: fundingPage } },
    },
    async (ctx, { query }) => {
      ctx.body = await listFundingOperations(em(ctx), query);
    },
  );

  endpoint(
    router,
    openapi,
    {
      method: 'post',
      path: '/operator/funding/:id/approve',
      summary: 'Approve a pending funding operation: the balance moves now',
      tags,
      gate: write,
      requires,
      schemas: { params: fundingParams },
      responses: { '200': { description: 'Completed', schema: operatorFundingOperationView } },
    },
    async (ctx, { params }) => {
      const op = await decideFundingOperation(deps, callerOf(ctx), params.id, { approve: true });
      ctx.body = toOperatorFundingOperationView(op);
    },
  );

  endpoint(
    router,
    openapi,
    {
      method: 'post',
      path: '/operator/funding/:id/reject',
      summary: 'Reject a pending funding operation: nothing moves',
      tags,
      gate: write,
      requires,
      schemas: { params: fundingParams, body: rejectBody },
      responses: { '200': { description: 'Rejected', schema: operatorFundingOperationView } },
    },
    async (ctx, { params, body }) => {
      const op = await decideFundingOperation(deps, callerOf(ctx), params.id, { approve: false, reason: body.reason });
      ctx.body = toOperatorFundingOperationView(op);
    },
  );

  return router;
}

/**
 * `/api/v1/firms/{id}/payouts*` (docs/api.md §1 custody rules, §4.8, §5.4 `firm:operate`; operator audience):
 * the payout requests of a firm and their approval by the firm's multisig owners.
 *
 * - `GET /api/v1/firms/{id}/payouts?status` → `{ data }`, newest first.
 * - `GET /api/v1/firms/{id}/payouts/{payoutId}` → the payout with `safeTx` (what the owners sign).
 * - `POST /api/v1/firms/{id}/payouts/{payoutId}/authorization` `{ signatures }` → the payout
 *   `authorized` (`400 payout_authorization_invalid` when the signatures do not verify on-chain
 *   against the multisig's owners and threshold; `409 payout_authorization_stale` when they are for a
 *   Safe nonce the payout was rebuilt away from; `409 invalid_state` when not awaiting one).
 * - `POST /api/v1/firms/{id}/payouts/{payoutId}/cancel` `{ reason? }` → the payout `canceled`
 *   (`409 payout_already_executed`, `409 payout_cancel_unsafe`, `409 invalid_state`).
 */
import Router from '@koa/router';
import { Payout } from '../../../../db/entities.js';
import { payoutQuery, payoutWorkflowId } from '../../workflows/payout.definitions.js';
import { authorizePayout, cancelPayout } from '../../commands/firm-payouts.js';
import type { ApiDeps, ApiState } from '../../../../api/context.js';
import { callerOf } from '../../../../api/middleware/auth.js';
import { errorBody, type OpenApiRegistry } from '../../../../api/openapi.js';
import { toPayoutView } from '../../presenters/firms.js';
import { firmOf, payoutOf } from '../../queries/firms.js';
import { operatorSurface } from '../../../../api/route.js';
import { firmParams } from './firms.schemas.js';
import {
  authorizePayoutBody,
  cancelPayoutBody,
  firmPayoutParams,
  payoutListQuery,
  payoutListView,
  payoutView,
} from './payouts.schemas.js';
import { WORKFLOW_UNAVAILABLE } from '../../../../api/temporal-errors.js';

/** A documented refusal of an endpoint: its codes and when, with the error body. */
const refusal = (description: string) => ({ description, schema: errorBody });

/** At most this many payouts in a firm's list. */
const MAX_PAYOUTS = 500;

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function firmPayoutRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const { router, route, read, write, em } = operatorSurface(deps, openapi, 'firm:operate', ['firms']);

  route
    .get('/firms/:id/payouts', 'Payout requests of the firm, newest first', read)
    .input({ params: firmParams, query: payoutListQuery })
    .answers({ '200': { description: '{ data }', schema: payoutListView } })
    .handle(async (ctx, { params, query }) => {
      const e = em(ctx);
      await firmOf(e, params.id);
      const rows = await e.find(
        Payout,
        { firmId: params.id, ...(query.status ? { status: query.status } : {}) },
        { orderBy: { createdAt: 'desc', id: 'desc' }, limit: MAX_PAYOUTS },
      );
      ctx.body = { data: rows.map((p) => toPayoutView(p)) };
    });

  route
    .get('/firms/:id/payouts/:payoutId', 'One payout, with the multisig transaction the owners sign', read)
    .input({ params: firmPayoutParams })
    .answers({ '200': { description: 'Payout', schema: payoutView } })
    .handle(async (ctx, { params }) => {
      const p = await payoutOf(em(ctx), params.id, params.payoutId);
      const live = await deps.temporal.workflow
        .getHandle(payoutWorkflowId(p.id))
        .query(payoutQuery)
        .catch(() => null);
      ctx.body = toPayoutView(p, live);
    });

  route
    .post(
      '/firms/:id/payouts/:payoutId/authorization',
      "Authorise a payout with the owners' multisig signatures (verified on-chain)",
      write,
    )
    .input({ params: firmPayoutParams, body: authorizePayoutBody })
    .answers({
      '200': { description: 'Payout (authorized)', schema: payoutView },
      '400': refusal('`payout_authorization_invalid`: the signatures do not verify on-chain (reason in `detail`)'),
      '409': refusal(
        '`payout_authorization_stale`: signed for a Safe nonce the payout was rebuilt away from (`detail` names the `safeTxHash` to sign); `invalid_state`: not awaiting an authorisation',
      ),
      '503': WORKFLOW_UNAVAILABLE,
    })
    .handle(async (ctx, { params, body }) => {
      const { row, live } = await authorizePayout(deps, callerOf(ctx), params.id, params.payoutId, body.signatures);
      ctx.body = toPayoutView(row, live);
    });

  route
    .post(
      '/firms/:id/payouts/:payoutId/cancel',
      'Cancel a payout that is not paid; it no longer counts against the payout ceiling',
      write,
    )
    .input({ params: firmPayoutParams, body: cancelPayoutBody })
    .answers({
      '200': { description: 'Payout (canceled)', schema: payoutView },
      '409': refusal(
        '`payout_already_executed`: paid on-chain (recorded, not canceled); `payout_cancel_unsafe`: authorized and its signed Safe transaction can still be executed (execute another Safe transaction at its nonce first); `invalid_state`: already canceled or rejected',
      ),
      '503': WORKFLOW_UNAVAILABLE,
    })
    .handle(async (ctx, { params, body }) => {
      const { row, live } = await cancelPayout(deps, callerOf(ctx), params.id, params.payoutId, body.reason);
      ctx.body = toPayoutView(row, live);
    });

  return router;
}

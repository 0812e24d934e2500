/**
 * `/api/v1/prop/payouts*`: the trader's payouts (docs/api.md §3.5; trader audience).
 *
 * - `POST /api/v1/prop/payouts` `{ propAccountId, amountUsd, toAddress }` → 201 payout `requested`
 *   (workflow `payout-<payoutId>`; the firm's owners authorise it and execute it on-chain).
 *   `409 invalid_state` unless the challenge is `passed` or `funded`; `400 payout_exceeds_ceiling`
 *   above the payout ceiling less what is paid or pending (modules/prop/commands/payouts.ts).
 * - `GET /api/v1/prop/payouts/{id}` → the payout (the caller's own).
 */
import Router from '@koa/router';
import { requestPayout } from '../../commands/payouts.js';
import type { ApiDeps, ApiState } from '../../../../api/context.js';
import { callerOf, gate, callerEm } from '../../../../api/middleware/auth.js';
import type { OpenApiRegistry } from '../../../../api/openapi.js';
import { toPayoutView } from '../../presenters/firms.js';
import { myPayout } from '../../queries/prop.js';
import { routesOf } from '../../../../api/route.js';
import { payoutView } from '../firms/payouts.schemas.js';
import { payoutParams, requestPayoutBody } from './payouts.schemas.js';

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function payoutRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1/prop' });
  const tags = ['prop'];

  const route = routesOf(router, openapi, { tags });

  route
    .post(
      '/payouts',
      'Request a payout of a passed or funded challenge (the firm’s multisig authorises and executes it)',
      gate({ audience: 'trader', write: true }),
    )
    .input({ body: requestPayoutBody })
    .answers({ '201': { description: 'Payout (requested)', schema: payoutView } })
    .handle(async (ctx, { body }) => {
      const payout = await requestPayout(deps, callerOf(ctx), body);
      ctx.status = 201;
      ctx.body = toPayoutView(payout);
    });

  route
    .get('/payouts/:id', 'One of your payouts', gate({ audience: 'trader' }))
    .input({ params: payoutParams })
    .answers({ '200': { description: 'Payout', schema: payoutView } })
    .handle(async (ctx, { params }) => {
      ctx.body = toPayoutView(await myPayout(callerEm(deps.orm, ctx), callerOf(ctx), params.id));
    });

  return router;
}

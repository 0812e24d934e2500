/**
 * `POST /api/v1/oms/route-intents` (docs/api.md §4.4 route-intents, §2.11 decision): smart order routing of
 * a market order of a bare asset → `201 { intentId, decision }`. Only a wallet-linked cookie session
 * (docs/api.md §5.1) may call it: a bearer credential has no wallet (`403 wallet_session_required`).
 * Tier `fullTrading`; honours `Idempotency-Key` (the intent id derives from the session and the key,
 * like `/oms/intents`). `400 routing_disabled` unless the account's `settings.smartRouting` is `true`
 * (set it with `PATCH /api/v1/accounts/{id}`). The routing: modules/oms/commands/route-intent.ts; the
 * decision history: modules/oms/routes/sor.ts.
 */
import Router from '@koa/router';
import { ApiError } from '../../../../domain/errors.js';
import { routeIntent } from '../../commands/route-intent.js';
import { writeId } from '../../commands/write-id.js';
import type { ApiDeps, ApiMiddleware, ApiState } from '../../../../api/context.js';
import { callerOf, gate } from '../../../../api/middleware/auth.js';
import { idempotency } from '../../../../api/middleware/idempotency.js';
import { IDEMPOTENCY_HEADER } from '../../../../api/middleware/oms-write.js';
import type { OpenApiRegistry } from '../../../../api/openapi.js';
import { routesOf } from '../../../../api/route.js';
import { routeIntentBody, routeIntentResponse, routingRefusalView } from './route-intents.schemas.js';
import { WORKFLOW_UNAVAILABLE } from '../../../../api/temporal-errors.js';

/** Only a wallet-linked cookie session routes (docs/api.md §4.4). @throws ApiError `403 wallet_session_required`. */
const walletSession: ApiMiddleware = async (ctx, next) => {
  if (!callerOf(ctx).session) {
    throw new ApiError(
      'wallet_session_required',
      'smart routing needs a wallet-linked browser session (POST /api/auth/siwe/verify); ' +
        'a bearer API credential has no wallet: compose with an explicit venue on POST /api/v1/oms/intents',
    );
  }
  await next();
};

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function routeIntentRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1/oms' });
  const routeGate = gate({ audience: 'trader', tier: 'fullTrading', write: true }, walletSession);

  const route = routesOf(router, openapi, { tags: ['oms', 'sor'] });

  route
    .post(
      '/route-intents',
      'Route a market order of a bare asset to the cheapest eligible venue (hyperliquid, aster, polymarket) and compose it there',
      routeGate,
    )
    .input({ body: routeIntentBody })
    .answers({
      '201': {
        description: 'Composed on the selected venue; the decision as stored',
        schema: routeIntentResponse,
        headers: { 'Idempotency-Replay': '`true` on a replayed response' },
      },
      '400': {
        description:
          '`routing_disabled` (account setting smartRouting off); `asset_unknown`, `no_quotes`, `no_eligible_venue` with `candidates`; `validation_failed`',
        schema: routingRefusalView,
      },
      '503': WORKFLOW_UNAVAILABLE,
    })
    .with({
      requires: 'fullTrading, wallet-linked cookie session (bearer: 403 wallet_session_required)',
      use: [idempotency(deps.orm)],
      headers: IDEMPOTENCY_HEADER,
    })
    .handle(async (ctx, { body }) => {
      const caller = callerOf(ctx);
      const routed = await routeIntent(deps, caller, body, writeId('int', ctx, caller.credentialId));
      ctx.status = 201;
      ctx.body = routed;
    });

  return router;
}

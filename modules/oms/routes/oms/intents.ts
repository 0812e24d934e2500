/**
 * `/api/v1/oms/intents*` (docs/api.md §2.6, §3.1, §4.4): compose an order intent, sign a self-signed one,
 * read one, list recent ones. Compose: modules/oms/commands/compose.ts; dispatch and fills follow on /ws/risk.
 */
import Router from '@koa/router';
import { composeIntent } from '../../commands/compose.js';
import { signIntent } from '../../commands/sign.js';
import { composedSigningRequest } from '../../commands/venue-signing.js';
import { writeId } from '../../commands/write-id.js';
import type { ApiDeps, ApiState } from '../../../../api/context.js';
import { callerOf, gate } from '../../../../api/middleware/auth.js';
import { idempotency } from '../../../../api/middleware/idempotency.js';
import { IDEMPOTENCY_HEADER, omsWrite } from '../../../../api/middleware/oms-write.js';
import type { OpenApiRegistry } from '../../../../api/openapi.js';
import { ownIntent, recentIntents } from '../../queries/oms.js';
import { routesOf } from '../../../../api/route.js';
import {
  composeIntentBody,
  composedIntentView,
  intentList,
  intentParams,
  intentView,
  signResultBody,
  signResultRefusal,
  signResultResponse,
} from './oms.schemas.js';
import { WORKFLOW_UNAVAILABLE } from '../../../../api/temporal-errors.js';

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function intentRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1/oms' });
  const tags = ['oms'];
  const read = gate({ audience: 'trader' });

  const route = routesOf(router, openapi, { tags });

  route
    .post('/intents', 'Compose an order intent (docs/api.md §2.6); the outcome arrives on /ws/risk')
    .input({ body: composeIntentBody })
    .answers({
      '201': {
        description: 'Composed; `intentId` and the echoed `clientOrderId`',
        schema: composedIntentView,
        headers: { 'Idempotency-Replay': '`true` on a replayed response' },
      },
      '503': WORKFLOW_UNAVAILABLE,
    })
    .with(omsWrite(deps.orm, 'intents'))
    .handle(async (ctx, { body }) => {
      const caller = callerOf(ctx);
      const { view, input } = await composeIntent(deps, caller, body, writeId('int', ctx, caller.credentialId));
      ctx.status = 201;
      ctx.body =
        input.signing === 'self'
          ? { ...view, signingRequest: await composedSigningRequest(deps, caller, input) }
          : view;
    });

  route
    .post(
      '/intents/:id/sign-result',
      'Sign an intent_pending intent (self-signing credentials); answers once it is dispatched',
      gate({ audience: 'trader', write: true }),
    )
    .input({ params: intentParams, body: signResultBody })
    .answers({
      '200': {
        description: '`{ ok: true, intentId, venueOrderId, resting }`, `inlineFill` when it filled at once',
        schema: signResultResponse,
      },
      '400': {
        description: '`{ ok: false, error, detail }` when dispatch was refused; `invalid_signature`',
        schema: signResultRefusal,
      },
      '503': WORKFLOW_UNAVAILABLE,
    })
    .with({ requires: 'per credential', use: [idempotency(deps.orm)], headers: IDEMPOTENCY_HEADER })
    .handle(async (ctx, { params, body }) => {
      const result = await signIntent(deps, callerOf(ctx), params.id, body.signedPayload);
      ctx.status = result.ok ? 200 : 400;
      ctx.body = result;
    });

  route
    .get('/intents/:id', "One intent; another credential's intent is 404", read)
    .input({ params: intentParams })
    .answers({ '200': { description: 'Intent', schema: intentView } })
    .handle(async (ctx, { params }) => {
      ctx.body = await ownIntent(deps.orm, callerOf(ctx), params.id);
    });

  route
    .get('/intents', "The caller's own recent intents, newest first, at most 50", read)
    .answers({ '200': { description: 'Intents', schema: intentList } })
    .handle(async (ctx) => {
      ctx.body = await recentIntents(deps.orm, callerOf(ctx));
    });

  return router;
}

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
import { endpoint } from '../../../../api/route.js';
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

  endpoint(
    router,
    openapi,
    {
      method: 'post',
      path: '/intents',
      summary: 'Compose an order intent (docs/api.md §2.6); the outcome arrives on /ws/risk',
      tags,
      ...omsWrite(deps.orm, 'intents'),
      schemas: { body: composeIntentBody },
      responses: {
        '201': {
          description: 'Composed; `intentId` and the echoed `clientOrderId`',
          schema: composedIntentView,
          headers: { 'Idempotency-Replay': '`true` on a replayed response' },
        },
        '503': WORKFLOW_UNAVAILABLE,
      },
    },
    async (ctx, { body }) => {
      const caller = callerOf(ctx);
      const { view, input } = await composeIntent(deps, caller, body, writeId('int', ctx, caller.credentialId));
      ctx.status = 201;
      ctx.body =
        input.signing === 'self'
          ? { ...view, signingRequest: await composedSigningRequest(deps, caller, input) }
          : view;
    },
  );

  endpoint(
    router,
    openapi,
    {
      method: 'post',
      path: '/intents/:id/sign-result',
      summary: 'Sign an intent_pending intent (self-signing credentials); answers once it is dispatched',
      tags,
      gate: gate({ audience: 'trader', write: true }),
      schemas: { params: intentParams, body: signResultBody },
      use: [idempotency(deps.orm)],
      headers: IDEMPOTENCY_HEADER,
      requires: 'per credential',
      responses: {
        '200': {
          description: '`{ ok: true, intentId, venueOrderId, resting }`, `inlineFill` when it filled at once',
          schema: signResultResponse,
        },
        '400': {
          description: '`{ ok: false, error, detail }` when dispatch was refused; `invalid_signature`',
          schema: signResultRefusal,
        },
        '503': WORKFLOW_UNAVAILABLE,
      },
    },
    async (ctx, { params, body }) => {
      const result = await signIntent(deps, callerOf(ctx), params.id, body.signedPayload);
      ctx.status = result.ok ? 200 : 400;
      ctx.body = result;
    },
  );

  endpoint(
    router,
    openapi,
    {
      method: 'get',
      path: '/intents/:id',
      summary: "One intent; another credential's intent is 404",
      tags,
      gate: read,
      schemas: { params: intentParams },
      responses: { '200': { description: 'Intent', schema: intentView } },
    },
    async (ctx, { params }) => {
      ctx.body = await ownIntent(deps.orm, callerOf(ctx), params.id);
    },
  );

  endpoint(
    router,
    openapi,
    {
      method: 'get',
      path: '/intents',
      summary: "The caller's own recent intents, newest first, at most 50",
      tags,
      gate: read,
      schemas: {},
      responses: { '200': { description: 'Intents', schema: intentList } },
    },
    async (ctx) => {
      ctx.body = await recentIntents(deps.orm, callerOf(ctx));
    },
  );

  return router;
}

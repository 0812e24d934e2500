/**
 * Order operations under `/api/v1/oms` (docs/api.md §4.4): cancel, cancel-all, modify, chase, flatten,
 * reverse. Each is an OMS write (trader gate at its tier, `Idempotency-Key`); the work is in
 * api/commands/oms/. Intents: oms/intents.ts; brackets: oms/brackets.ts; smart routing: oms/route-intents.ts.
 */
import Router from '@koa/router';
import { flatten, reverse } from '../../commands/batch.js';
import { cancelAll, cancelIntentOrder, cancelOrder } from '../../commands/cancel.js';
import { startChase } from '../../commands/chase.js';
import { modifyIntent } from '../../commands/modify.js';
import { writeId } from '../../commands/write-id.js';
import type { ApiDeps, ApiState } from '../../../../api/context.js';
import { callerOf } from '../../../../api/middleware/auth.js';
import { omsWrite } from '../../../../api/middleware/oms-write.js';
import type { OpenApiRegistry } from '../../../../api/openapi.js';
import { routesOf } from '../../../../api/route.js';
import {
  batchPlanView,
  cancelAllBody,
  cancelAllResponse,
  cancelBody,
  cancelResponse,
  chaseBody,
  chaseView,
  flattenBody,
  modifyBody,
  modifyResponse,
  reverseBody,
} from './oms.schemas.js';
import { WORKFLOW_UNAVAILABLE } from '../../../../api/temporal-errors.js';

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function omsRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1/oms' });
  const tags = ['oms'];

  const route = routesOf(router, openapi, { tags });

  route
    .post('/cancel', "Cancel a working order by the venue's order id or its intent id")
    .input({ body: cancelBody })
    .answers({
      '200': {
        description:
          'Canceled; 409 invalid_state when the order is not working (filled, canceled, not yet dispatched); 409 agent_not_dispatchable for an intent never signed',
        schema: cancelResponse,
      },
      '503': WORKFLOW_UNAVAILABLE,
    })
    .with(omsWrite(deps.orm, 'cancel'))
    .handle(async (ctx, { body }) => {
      const caller = callerOf(ctx);
      ctx.body = body.intentId
        ? await cancelIntentOrder(deps, caller, body.intentId)
        : await cancelOrder(deps, caller, body.venueOrderId!);
    });

  route
    .post('/cancel-all', 'Cancel every working order of the account (optionally of one symbol)')
    .input({ body: cancelAllBody })
    .answers({
      '200': {
        description: 'What was canceled, and what could not be (e.g. filled meanwhile)',
        schema: cancelAllResponse,
      },
      '503': WORKFLOW_UNAVAILABLE,
    })
    .with(omsWrite(deps.orm, 'cancel-all'))
    .handle(async (ctx, { body }) => {
      ctx.body = await cancelAll(deps, callerOf(ctx), body);
    });

  route
    .post('/modify', 'Cancel-replace a working order with new numbers; resolves a new intent id')
    .input({ body: modifyBody })
    .answers({
      '200': {
        description: 'The replacement intent; 409 invalid_state when the order is not working',
        schema: modifyResponse,
      },
      '503': WORKFLOW_UNAVAILABLE,
    })
    .with(omsWrite(deps.orm, 'modify'))
    .handle(async (ctx, { body }) => {
      ctx.body = await modifyIntent(deps, callerOf(ctx), body);
    });

  route
    .post(
      '/chase',
      'Chase a working limit order: cancel-replace it at the touch whenever the touch moves, until it fills',
    )
    .input({ body: chaseBody })
    .answers({
      '200': { description: 'The chase; each replace resolves a new intent id (currentIntentId)', schema: chaseView },
      '503': WORKFLOW_UNAVAILABLE,
    })
    .with(omsWrite(deps.orm, 'chase'))
    .handle(async (ctx, { body }) => {
      ctx.body = await startChase(deps, callerOf(ctx), body);
    });

  route
    .post('/flatten', 'Close every open position: cancel working orders, then reduce-only market closes, as one batch')
    .input({ body: flattenBody })
    .answers({ '200': { description: 'The planned batch', schema: batchPlanView }, '503': WORKFLOW_UNAVAILABLE })
    .with(omsWrite(deps.orm, 'flatten'))
    .handle(async (ctx, { body }) => {
      const caller = callerOf(ctx);
      ctx.body = await flatten(deps, caller, writeId('bat', ctx, caller.credentialId), body.accountId);
    });

  route
    .post('/reverse', 'Close the position in a symbol and open the same size on the other side, as one batch')
    .input({ body: reverseBody })
    .answers({
      '200': { description: 'The planned batch; 409 invalid_state without a position', schema: batchPlanView },
      '503': WORKFLOW_UNAVAILABLE,
    })
    .with(omsWrite(deps.orm, 'reverse'))
    .handle(async (ctx, { body }) => {
      const caller = callerOf(ctx);
      ctx.body = await reverse(deps, caller, writeId('bat', ctx, caller.credentialId), body);
    });

  return router;
}

/**
 * `/api/v1/oms/brackets/*` (docs/api.md §3.3, §4.4): attach a take-profit / stop-loss pair to a parent
 * intent (`staged: true` until it fills) or to an open position, move its legs, read it. The work
 * is modules/oms/commands/brackets.ts; each bracket is the workflow `bracket-<bracketId>`.
 */
import Router from '@koa/router';
import { attachBracket, attachToPosition, moveBracket, ownedBracket } from '../../commands/brackets.js';
import type { ApiDeps, ApiState } from '../../../../api/context.js';
import { callerOf, gate } from '../../../../api/middleware/auth.js';
import { omsWrite } from '../../../../api/middleware/oms-write.js';
import type { OpenApiRegistry } from '../../../../api/openapi.js';
import { routesOf } from '../../../../api/route.js';
import {
  attachBracketBody,
  attachToPositionBody,
  bracketParams,
  bracketView,
  modifyBracketBody,
} from './brackets.schemas.js';
import { WORKFLOW_UNAVAILABLE } from '../../../../api/temporal-errors.js';

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function bracketRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1/oms/brackets' });
  const tags = ['oms'];

  const route = routesOf(router, openapi, { tags });

  route
    .post('/attach', 'Attach take-profit / stop-loss legs to a parent intent; staged until it fills')
    .input({ body: attachBracketBody })
    .answers({
      '200': { description: 'The bracket (`staged: true` while the parent is unfilled)', schema: bracketView },
      '503': WORKFLOW_UNAVAILABLE,
    })
    .with(omsWrite(deps.orm, 'brackets/attach'))
    .handle(async (ctx, { body }) => {
      ctx.body = await attachBracket(deps, callerOf(ctx), body);
    });

  route
    .post('/attach-to-position', 'Attach take-profit / stop-loss legs to the open position in a symbol')
    .input({ body: attachToPositionBody })
    .answers({ '200': { description: 'The armed bracket', schema: bracketView }, '503': WORKFLOW_UNAVAILABLE })
    .with(omsWrite(deps.orm, 'brackets/attach-to-position'))
    .handle(async (ctx, { body }) => {
      ctx.body = await attachToPosition(deps, callerOf(ctx), body);
    });

  route
    .post('/modify', 'Move a bracket leg (an armed leg is canceled and re-armed at the new trigger)')
    .input({ body: modifyBracketBody })
    .answers({
      '200': { description: 'The bracket after the move', schema: bracketView },
      '503': WORKFLOW_UNAVAILABLE,
    })
    .with(omsWrite(deps.orm, 'brackets/modify'))
    .handle(async (ctx, { body }) => {
      ctx.body = await moveBracket(deps, callerOf(ctx), body);
    });

  route
    .get('/:bracketId', 'One bracket: state, legs, which leg filled', gate({ audience: 'trader' }))
    .input({ params: bracketParams })
    .answers({ '200': { description: 'The bracket', schema: bracketView }, '503': WORKFLOW_UNAVAILABLE })
    .handle(async (ctx, { params }) => {
      ctx.body = await ownedBracket(deps, callerOf(ctx), params.bracketId);
    });

  return router;
}

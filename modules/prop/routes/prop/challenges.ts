/**
 * `/api/v1/prop/challenges*`: the trader's side of the prop firm (docs/api.md §3.5; issue 6; trader audience).
 * Paths are ours (the spec shows none). Payouts: prop/payouts.ts.
 *
 * - `POST /api/v1/prop/challenges` `{ templateId }` → 201 challenge, `pending_payment`, with its own paper
 *   trading account and `deposit`: what the payer's wallet sends (modules/prop/commands/challenges.ts).
 *   `404 template_not_found`; `409 firm_not_live` unless the firm is live.
 * - `GET /api/v1/prop/challenges` → `{ data }` (the caller's), `GET /api/v1/prop/challenges/{id}`.
 */
import Router from '@koa/router';
import { buyChallenge } from '../../commands/challenges.js';
import type { ApiContext, ApiDeps, ApiState } from '../../../../api/context.js';
import { callerOf, gate, callerEm } from '../../../../api/middleware/auth.js';
import type { OpenApiRegistry } from '../../../../api/openapi.js';
import { challengeView, myChallenge, myChallenges } from '../../queries/prop.js';
import { routesOf } from '../../../../api/route.js';
import {
  buyChallengeBody,
  challengeListView,
  challengeParams,
  challengeView as challengeSchema,
} from './challenges.schemas.js';

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function challengeRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1/prop' });
  const tags = ['prop'];
  const read = gate({ audience: 'trader' });
  const em = (ctx: ApiContext) => callerEm(deps.orm, ctx);

  const route = routesOf(router, openapi, { tags });

  route
    .post(
      '/challenges',
      'Buy a challenge: a funded paper account, paid by an on-chain deposit into the firm’s PropInstance',
      gate({ audience: 'trader', write: true }),
    )
    .input({ body: buyChallengeBody })
    .answers({ '201': { description: 'Challenge (pending_payment)', schema: challengeSchema } })
    .handle(async (ctx, { body }) => {
      const pa = await buyChallenge(deps, callerOf(ctx), body.templateId);
      ctx.status = 201;
      ctx.body = await challengeView(em(ctx), pa);
    });

  route
    .get('/challenges', 'Your challenges, newest first', read)
    .answers({ '200': { description: '{ data }', schema: challengeListView } })
    .handle(async (ctx) => {
      ctx.body = await myChallenges(em(ctx), callerOf(ctx));
    });

  route
    .get('/challenges/:id', 'One of your challenges', read)
    .input({ params: challengeParams })
    .answers({ '200': { description: 'Challenge', schema: challengeSchema } })
    .handle(async (ctx, { params }) => {
      const e = em(ctx);
      ctx.body = await challengeView(e, await myChallenge(e, callerOf(ctx), params.id));
    });

  return router;
}

/**
 * `/api/v1/prop-accounts*`: prop accounts, i.e. the challenges of the tenant's firms (docs/api.md §3.5, §4.8,
 * §5.4 `prop:manage`; operator audience). Reset and promotion: modules/prop/commands/prop-accounts.ts;
 * suspension: `PATCH /api/v1/accounts/{id}/suspension` (accounts/suspension.ts); a trader buys a
 * challenge at `POST /api/v1/prop/challenges` (prop/challenges.ts).
 *
 * - `GET /api/v1/prop-accounts?firmId&status&limit&cursor` → page, newest first.
 * - `GET /api/v1/prop-accounts/{id}` → prop account (`404 prop_account_not_found`).
 * - `POST /api/v1/prop-accounts/{id}/promote` → `passed` → `funded`.
 * - `POST /api/v1/prop-accounts/{id}/reset` → a new attempt.
 */
import Router from '@koa/router';
import { PropAccount } from '../../../db/entities.js';
import { promote, propAccountOf, reset } from '../commands/prop-accounts.js';
import type { ApiDeps, ApiState } from '../../../api/context.js';
import { callerOf } from '../../../api/middleware/auth.js';
import type { OpenApiRegistry } from '../../../api/openapi.js';
import { propAccountView } from '../presenters/prop.js';
import { newestFirst } from '../../../api/operator-list.js';
import { operatorSurface } from '../../../api/route.js';
import {
  propAccountListQuery,
  propAccountPage,
  propAccountParams,
  propAccountViewSchema,
} from './prop-accounts.schemas.js';

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function propAccountRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const { router, route, read, write: manage, em } = operatorSurface(deps, openapi, 'prop:manage', ['prop-accounts']);

  route
    .get('/prop-accounts', 'Challenges of the tenant’s firms, newest first', read)
    .input({ query: propAccountListQuery })
    .answers({ '200': { description: 'Page', schema: propAccountPage } })
    .handle(async (ctx, { query }) => {
      const where = {
        ...(query.firmId ? { firmId: query.firmId } : {}),
        ...(query.status ? { status: query.status } : {}),
      };
      ctx.body = await newestFirst(em(ctx), PropAccount, where, query, propAccountView);
    });

  route
    .get('/prop-accounts/:id', 'One challenge', read)
    .input({ params: propAccountParams })
    .answers({ '200': { description: 'Prop account', schema: propAccountViewSchema } })
    .handle(async (ctx, { params }) => {
      ctx.body = propAccountView(await propAccountOf(em(ctx), params.id));
    });

  /** The operator's two transitions: `POST /prop-accounts/{id}/<action>` → the prop account. */
  const TRANSITIONS = [
    { action: 'promote', summary: 'Promote a passed challenge to funded', run: promote },
    {
      action: 'reset',
      summary: 'Start a new attempt: balance back to the account size, rules watched again',
      run: reset,
    },
  ] as const;
  for (const { action, summary, run } of TRANSITIONS) {
    route
      .post(`/prop-accounts/:id/${action}`, summary, manage)
      .input({ params: propAccountParams })
      .answers({ '200': { description: 'Prop account', schema: propAccountViewSchema } })
      .handle(async (ctx, { params }) => {
        ctx.body = propAccountView(await run(deps, callerOf(ctx), params.id));
      });
  }

  return router;
}

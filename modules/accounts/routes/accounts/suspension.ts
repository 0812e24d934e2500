/**
 * `PATCH /api/v1/accounts/{id}/suspension` `{ suspended, reason? }` (docs/api.md §4.8, §5.4 `prop:manage`;
 * operator audience) → the account's suspension; compose refuses a suspended account's orders with
 * `403 account_suspended` (modules/accounts/commands/suspension.ts). Any account of the tenant (`404 account_not_found`).
 */
import Router from '@koa/router';
import { setSuspension } from '../../commands/suspension.js';
import type { ApiDeps, ApiState } from '../../../../api/context.js';
import { callerOf, gate } from '../../../../api/middleware/auth.js';
import type { OpenApiRegistry } from '../../../../api/openapi.js';
import { suspensionView } from '../../presenters/accounts.js';
import { routesOf } from '../../../../api/route.js';
import { accountParams } from './accounts.schemas.js';
import { suspensionBody, suspensionView as suspensionSchema } from './suspension.schemas.js';

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function suspensionRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1' });

  const route = routesOf(router, openapi, { tags: ['prop-accounts'] });

  route
    .patch(
      '/accounts/:id/suspension',
      'Suspend an account (compose refuses its orders) or lift the suspension',
      gate({ audience: 'operator', scope: 'prop:manage', write: true }),
    )
    .input({ params: accountParams, body: suspensionBody })
    .answers({ '200': { description: 'Suspension', schema: suspensionSchema } })
    .with({ requires: 'prop:manage' })
    .handle(async (ctx, { params, body }) => {
      ctx.body = suspensionView(await setSuspension(deps, callerOf(ctx), params.id, body));
    });

  return router;
}

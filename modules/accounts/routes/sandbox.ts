/**
 * `POST /api/v1/sandbox/paper-account` (docs/api.md §4.3): open an account exactly like
 * `POST /api/v1/accounts` (the tenant's execution-mode policy included), but only for a `fullTrading`
 * credential (any tier below: `403 tier_insufficient`).
 */
import Router from '@koa/router';
import { ApiError } from '../../../domain/errors.js';
import { createAccount } from '../commands/accounts.js';
import type { ApiDeps, ApiState } from '../../../api/context.js';
import { callerOf, gate } from '../../../api/middleware/auth.js';
import type { OpenApiRegistry } from '../../../api/openapi.js';
import { toAccountView } from '../presenters/accounts.js';
import { routesOf } from '../../../api/route.js';
import { accountView, createAccountBody } from './accounts/accounts.schemas.js';

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function sandboxRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1/sandbox' });

  const route = routesOf(router, openapi, { tags: ['accounts'] });

  route
    .post(
      '/paper-account',
      'Provision a paper account; any tier below fullTrading gets tier_insufficient',
      gate({ audience: 'trader', write: true }),
    )
    .input({ body: createAccountBody })
    .answers({ '201': { description: 'Created', schema: accountView } })
    .with({ requires: 'fullTrading' })
    .handle(async (ctx, { body }) => {
      const caller = callerOf(ctx);
      if (caller.tier !== 'fullTrading')
        throw new ApiError('tier_insufficient', `credential tier is ${caller.tier}; this route needs fullTrading`, {
          held: caller.tier,
          needed: 'fullTrading',
        });
      const row = await createAccount(deps, caller, body);
      ctx.status = 201;
      ctx.body = toAccountView(row);
    });

  return router;
}

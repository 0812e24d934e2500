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
import { endpoint } from '../../../api/route.js';
import { accountView, createAccountBody } from './accounts/accounts.schemas.js';

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function sandboxRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1/sandbox' });

  endpoint(
    router,
    openapi,
    {
      method: 'post',
      path: '/paper-account',
      summary: 'Provision a paper account; any tier below fullTrading gets tier_insufficient',
      tags: ['accounts'],
      gate: gate({ audience: 'trader', write: true }),
      schemas: { body: createAccountBody },
      responses: { '201': { description: 'Created', schema: accountView } },
      requires: 'fullTrading',
    },
    async (ctx, { body }) => {
      const caller = callerOf(ctx);
      if (caller.tier !== 'fullTrading')
        throw new ApiError('tier_insufficient', `credential tier is ${caller.tier}; this route needs fullTrading`, {
          held: caller.tier,
          needed: 'fullTrading',
        });
      const row = await createAccount(deps, caller, body);
      ctx.status = 201;
      ctx.body = toAccountView(row);
    },
  );

  return router;
}

/**
 * `/api/public/tenants/*`: self-serve tenant signup (docs/api.md §4.1, §5.6: no tenant and no auth; issue 7).
 * The flow and its errors: modules/tenants/commands/signup.ts.
 *
 * - `POST /api/public/tenants/signup` `{ email, slug }` → 202 pending; a mail with the token goes
 *   through the outbox.
 * - `POST /api/public/tenants/verify` `{ token }` → 201: the tenant, an admin invite (mailed), and
 *   where enabled (`SIGNUP_OPERATOR_CREDENTIAL`) an operator credential with `firm:operate` and
 *   `prop:manage` (secret shown once). A wrong, used or expired token: `400 signup_token_invalid`.
 * - `POST /api/public/tenants/invites/accept` `{ token }` (the admin invite mail's token) → 201 an
 *   operator credential with every operator scope, `tenant:config` included (secret shown once);
 *   each invite once (`400 signup_token_invalid` after).
 */
import Router from '@koa/router';
import { signupFlow } from '../../commands/signup.js';
import type { ApiDeps, ApiState } from '../../../../api/context.js';
import type { OpenApiRegistry } from '../../../../api/openapi.js';
import { routesOf } from '../../../../api/route.js';
import {
  acceptInviteBody,
  acceptInviteView,
  signupBody,
  signupView,
  verifyBody,
  verifyView,
} from './tenants.schemas.js';

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function publicTenantRoutes(deps: ApiDeps, openapi: OpenApiRegistry, baseUrl: () => string): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/public/tenants' });
  const tags = ['tenants'];
  const signup = signupFlow(deps, baseUrl);

  const route = routesOf(router, openapi, { tags });

  route
    .post('/signup', 'Start a white-label tenant: mails a verification token')
    .input({ body: signupBody })
    .answers({ '202': { description: 'Pending verification', schema: signupView } })
    .handle(async (ctx, { body }) => {
      const pending = await signup.start(body);
      ctx.status = 202;
      ctx.body = pending;
    });

  route
    .post(
      '/verify',
      'Verify a signup: provisions the tenant, an admin invite and (where enabled) an operator credential',
    )
    .input({ body: verifyBody })
    .answers({ '201': { description: 'Tenant provisioned', schema: verifyView } })
    .handle(async (ctx, { body }) => {
      const provisioned = await signup.verify(body.token);
      ctx.status = 201;
      ctx.body = provisioned;
    });

  route
    .post('/invites/accept', 'Accept an admin invite: an operator credential with every operator scope of the tenant')
    .input({ body: acceptInviteBody })
    .answers({ '201': { description: 'Credential (secret shown once)', schema: acceptInviteView } })
    .handle(async (ctx, { body }) => {
      const accepted = await signup.acceptInvite(body.token);
      ctx.status = 201;
      ctx.body = accepted;
    });

  return router;
}

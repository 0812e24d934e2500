/**
 * `/api/v1/sign-in/*` (docs/api.md §5.1 "Social sign-in"; operator audience, scope `tenant:config`): the sign-in
 * providers of the tenant's branded page and the invitations of an `invite_only` one. The work:
 * modules/auth/commands/signin-providers.ts.
 *
 * - `POST /api/v1/sign-in/providers` `{ slug, kind, displayName, issuer?, clientId?, clientSecret?, scopes?,
 *   joinPolicy, emailDomains?, enabled? }` → 201 the provider (the secret sealed, never shown).
 * - `GET /api/v1/sign-in/providers` → `{ data }`; `PATCH …/{providerId}` (name, secret, scopes, policy, domains,
 *   enabled); `DELETE …/{providerId}` → `{ id, deleted: true }`.
 * - `POST /api/v1/sign-in/invites` `{ email, ownerId? }` → 201 the invitation.
 * `400 validation_failed`; `404 signin_provider_not_found`; `409 signin_provider_exists`; `503 custody_unconfigured`.
 */
import type Router from '@koa/router';
import type { ApiDeps, ApiState } from '../../../../api/context.js';
import { callerOf } from '../../../../api/middleware/auth.js';
import type { OpenApiRegistry } from '../../../../api/openapi.js';
import { operatorSurface } from '../../../../api/route.js';
import {
  createProvider,
  deleteProvider,
  inviteEmail,
  listProviders,
  updateProvider,
} from '../../commands/signin-providers.js';
import { toProviderView } from '../../presenters/signin.js';
import {
  createProviderBody,
  deletedProvider,
  inviteBody,
  inviteView,
  providerIdParams,
  providerList,
  providerView,
  updateProviderBody,
} from './signin-providers.schemas.js';

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function signinProviderRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const { router, route, read, write } = operatorSurface(deps, openapi, 'tenant:config', ['sign-in']);
  const unsealable = {
    '503': { description: 'custody_unconfigured: a client secret and no AGENT_KEY_ENCRYPTION_KEYS' },
  };

  route
    .post(
      '/sign-in/providers',
      'Add a sign-in provider (OpenID Connect or the email magic link) to the branded page',
      write,
    )
    .input({ body: createProviderBody })
    .answers({
      '201': {
        description:
          'The provider. 400 validation_failed (an oidc provider without issuer or client id, an http issuer, scopes without openid, email_domains without domains); 409 signin_provider_exists (the slug, or a second email provider)',
        schema: providerView,
      },
      ...unsealable,
    })
    .handle(async (ctx, { body }) => {
      ctx.status = 201;
      ctx.body = toProviderView(await createProvider(deps, callerOf(ctx), body));
    });

  route
    .get('/sign-in/providers', 'The sign-in providers of the tenant, oldest first (never a secret)', read)
    .answers({ '200': { description: 'Providers', schema: providerList } })
    .handle(async (ctx) => {
      ctx.body = { data: (await listProviders(deps, callerOf(ctx))).map(toProviderView) };
    });

  route
    .patch(
      '/sign-in/providers/:providerId',
      'Change a sign-in provider’s name, secret, scopes or join policy, or switch it off or on',
      write,
    )
    .input({ params: providerIdParams, body: updateProviderBody })
    .answers({
      '200': {
        description: 'The provider. 400 validation_failed; 404 signin_provider_not_found',
        schema: providerView,
      },
      ...unsealable,
    })
    .handle(async (ctx, { params, body }) => {
      ctx.body = toProviderView(await updateProvider(deps, callerOf(ctx), params.providerId, body));
    });

  route
    .delete('/sign-in/providers/:providerId', 'Remove a sign-in provider; the identities it linked stay', write)
    .input({ params: providerIdParams })
    .answers({ '200': { description: 'Removed. 404 signin_provider_not_found', schema: deletedProvider } })
    .handle(async (ctx, { params }) => {
      await deleteProvider(deps, callerOf(ctx), params.providerId);
      ctx.body = { id: params.providerId, deleted: true };
    });

  route
    .post(
      '/sign-in/invites',
      'Invite an email to an invite-only sign-in (as a new trader, or as an existing one)',
      write,
    )
    .input({ body: inviteBody })
    .answers({
      '201': {
        description: 'The open invitation of that email. 404 not_found (ownerId has no account here)',
        schema: inviteView,
      },
    })
    .handle(async (ctx, { body }) => {
      const invite = await inviteEmail(deps, callerOf(ctx), body);
      ctx.status = 201;
      ctx.body = { ...invite, createdAt: invite.createdAt.toISOString() };
    });

  return router;
}

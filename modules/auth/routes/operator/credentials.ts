/**
 * `/api/v1/operator/credentials*` (docs/api.md §2.1, §4.8, §5.2; operator audience, scope
 * `credentials:manage`): the tenant's API credentials. The work: modules/auth/commands/credentials.ts.
 *
 * - `POST /api/v1/operator/credentials` `{ audience: 'trader', tier?, accountId?, signerAddress?, envelope?,
 *   allowedVenues?, allowedSymbols?, rateLimit?, label? }` or `{ audience: 'operator', scopes, rateLimit?,
 *   label? }` → 201 the credential with `apiSecret` (shown once).
 * - `GET /api/v1/operator/credentials` (`?audience&ownerId&accountId&limit&cursor`), `GET …/{id}`: never a secret.
 * - `PATCH …/{id}`: label, tier, scopes, signer, envelope (per limit), allowlists, rate limit.
 * - `POST …/{id}/rotate` → the credential with its new `apiSecret` (shown once); the old secret and every
 *   bearer minted from it stop working.
 * - `POST …/{id}/revoke` → the credential, `revokedAt` set (idempotent).
 * `404 credential_not_found`; `403 forbidden` for an operator scope the caller does not hold;
 * `409 invalid_state` to change or rotate a revoked credential.
 */
import type Router from '@koa/router';
import type { ApiDeps, ApiState } from '../../../../api/context.js';
import { callerOf } from '../../../../api/middleware/auth.js';
import type { OpenApiRegistry } from '../../../../api/openapi.js';
import { operatorSurface } from '../../../../api/route.js';
import {
  credentialOf,
  issueManagedCredential,
  revokeManagedCredential,
  rotateManagedCredential,
  updateManagedCredential,
} from '../../commands/credentials.js';
import { listCredentials } from '../../queries/credentials.js';
import { toCredentialView } from '../../presenters/credentials.js';
import {
  credentialListQuery,
  credentialPage,
  credentialParams,
  credentialView,
  credentialWithSecret,
  issueCredentialBody,
  updateCredentialBody,
} from './credentials.schemas.js';

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function operatorCredentialRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const { router, route, read, write, em } = operatorSurface(deps, openapi, 'credentials:manage', ['credentials']);

  route
    .post('/operator/credentials', 'Issue a trader or operator credential; the secret is shown once', write)
    .input({ body: issueCredentialBody })
    .answers({ '201': { description: 'Credential and secret', schema: credentialWithSecret } })
    .handle(async (ctx, { body }) => {
      const { row, apiSecret } = await issueManagedCredential(deps, callerOf(ctx), body);
      ctx.status = 201;
      ctx.body = { ...toCredentialView(row), apiSecret };
    });

  route
    .get('/operator/credentials', "The tenant's credentials, newest first (revoked ones included)", read)
    .input({ query: credentialListQuery })
    .answers({ '200': { description: 'Page', schema: credentialPage } })
    .handle(async (ctx, { query }) => {
      ctx.body = await listCredentials(em(ctx), query);
    });

  route
    .get('/operator/credentials/:id', 'One credential', read)
    .input({ params: credentialParams })
    .answers({ '200': { description: 'Credential', schema: credentialView } })
    .handle(async (ctx, { params }) => {
      ctx.body = toCredentialView(await credentialOf(em(ctx), params.id));
    });

  route
    .patch(
      '/operator/credentials/:id',
      "Change a credential's label, tier, scopes, signer, risk envelope, allowlists or rate limit",
      write,
    )
    .input({ params: credentialParams, body: updateCredentialBody })
    .answers({ '200': { description: 'Credential', schema: credentialView } })
    .handle(async (ctx, { params, body }) => {
      ctx.body = toCredentialView(await updateManagedCredential(deps, callerOf(ctx), params.id, body));
    });

  route
    .post(
      '/operator/credentials/:id/rotate',
      'Rotate the secret: the new one is shown once; the old one and its bearers stop working',
      write,
    )
    .input({ params: credentialParams })
    .answers({ '200': { description: 'Credential and its new secret', schema: credentialWithSecret } })
    .handle(async (ctx, { params }) => {
      const { row, apiSecret } = await rotateManagedCredential(deps, callerOf(ctx), params.id);
      ctx.body = { ...toCredentialView(row), apiSecret };
    });

  route
    .post('/operator/credentials/:id/revoke', 'Revoke a credential (idempotent)', write)
    .input({ params: credentialParams })
    .answers({ '200': { description: 'Credential', schema: credentialView } })
    .handle(async (ctx, { params }) => {
      ctx.body = toCredentialView(await revokeManagedCredential(deps, callerOf(ctx), params.id));
    });

  return router;
}

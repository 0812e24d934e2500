/**
 * `/api/v1/accounts/{id}/agents*`: agent custody (docs/api.md §1 custody rules, §7 `credential_missing_agent_wallet`,
 * `agent_authorization_revoked`, `agent_authorization_expired`); the work is modules/custody/commands/agents.ts.
 *
 * Routes (trader audience; writes need a live credential):
 * - `GET    /api/v1/accounts/{id}/agents` → `{ agents }`
 * - `POST   /api/v1/accounts/{id}/agents` `{ venue, owner, expiresInDays? }` → 201 created agent with `authorization`
 * - `POST   /api/v1/accounts/{id}/agents/{agentId}/authorization` `{ signature, keyId? }` → 200 agent (`active`)
 * - `DELETE /api/v1/accounts/{id}/agents/{agentId}` → 200 agent (`revoked`)
 */
import Router from '@koa/router';
import { authorizeAgent, createAgent, listAgents, revokeAgent } from '../../commands/agents.js';
import { custodyRing } from '../../commands/ring.js';
import type { ApiDeps, ApiState } from '../../../../api/context.js';
import { callerOf, gate } from '../../../../api/middleware/auth.js';
import type { OpenApiRegistry } from '../../../../api/openapi.js';
import { toAgentView } from '../../presenters/custody.js';
import { routesOf } from '../../../../api/route.js';
import { accountParams } from '../../../accounts/routes/accounts/accounts.schemas.js';
import {
  agentListView,
  agentParams,
  agentView,
  authorizeAgentBody,
  createAgentBody,
  createdAgentView,
} from './agents.schemas.js';
import { WORKFLOW_UNAVAILABLE } from '../../../../api/temporal-errors.js';

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function agentRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1' });
  const tags = ['custody'];
  const write = gate({ audience: 'trader', write: true });
  const ring = custodyRing(deps);

  const route = routesOf(router, openapi, { tags });

  route
    .get('/accounts/:id/agents', "The account's agents per routed venue (no keys)", gate({ audience: 'trader' }))
    .input({ params: accountParams })
    .answers({ '200': { description: '{ agents }', schema: agentListView } })
    .handle(async (ctx, { params }) => {
      ctx.body = { agents: (await listAgents(deps, callerOf(ctx), params.id)).map(toAgentView) };
    });

  route
    .post(
      '/accounts/:id/agents',
      'Create an agent key for a routed venue; returns what the owner’s wallet signs to authorise it',
      write,
    )
    .input({ params: accountParams, body: createAgentBody })
    .answers({
      '201': { description: 'Created, `pending_authorization`', schema: createdAgentView },
      '409': { description: '`agent_exists`: revoke the current agent first' },
      '503': { description: '`custody_unconfigured`' },
    })
    .handle(async (ctx, { params, body }) => {
      const { agent, authorization } = await createAgent(deps, ring, callerOf(ctx), params.id, body);
      ctx.status = 201;
      ctx.body = { ...toAgentView(agent), authorization };
    });

  route
    .post(
      '/accounts/:id/agents/:agentId/authorization',
      "Submit the owner's signed authorisation; the platform verifies it and hands it to the venue",
      write,
    )
    .input({ params: agentParams, body: authorizeAgentBody })
    .answers({
      '200': { description: 'The agent, `active`', schema: agentView },
      '400': { description: '`invalid_signature`: it does not recover the owner' },
      '422': { description: '`venue_rejected`: the venue refused the authorisation' },
      '503': WORKFLOW_UNAVAILABLE,
    })
    .handle(async (ctx, { params, body }) => {
      ctx.body = toAgentView(await authorizeAgent(deps, callerOf(ctx), params.id, params.agentId, body));
    });

  route
    .delete(
      '/accounts/:id/agents/:agentId',
      'Revoke an agent: compose refuses the venue with `agent_authorization_revoked` at once (also revoke it on the venue with your wallet)',
      write,
    )
    .input({ params: agentParams })
    .answers({ '200': { description: 'The agent, `revoked`', schema: agentView } })
    .handle(async (ctx, { params }) => {
      ctx.body = toAgentView(await revokeAgent(deps, callerOf(ctx), params.id, params.agentId));
    });

  return router;
}

/**
 * Agent custody (docs/api.md §1 custody rules, §7 `credential_missing_agent_wallet`,
 * `agent_authorization_revoked`, `agent_authorization_expired`): per account and routed venue, the
 * platform generates an agent key, encrypts it at rest and returns only what the owner's own
 * wallet must sign. The owner's signature is verified here, then handed to the venue by the
 * workflow `agent-authorize-<agentId>` (the api never calls a venue). The agent can place, cancel
 * and modify orders; it cannot withdraw or re-authorise (the venues' own agent models).
 *
 * Routes (trader audience; writes need a live credential):
 * - `GET    /api/v1/accounts/{id}/agents` → `{ agents }`
 * - `POST   /api/v1/accounts/{id}/agents` `{ venue, owner, expiresInDays? }` → 201 created agent with `authorization`
 * - `POST   /api/v1/accounts/{id}/agents/{agentId}/authorization` `{ signature, keyId? }` → 200 agent (`active`)
 * - `DELETE /api/v1/accounts/{id}/agents/{agentId}` → 200 agent (`revoked`)
 */
import Router from '@koa/router';
import { randomBytes } from 'node:crypto';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../../domain/errors.js';
import { AgentWallet, type AgentWalletRow } from '../../db/entities.js';
import { scoped } from '../../db/orm.js';
import { parseKeyRing, seal, type KeyRing } from '../../activities/custody/vault.js';
import { ADAPTERS } from '../../activities/venues/registry.js';
import { generateKalshiAgentKey } from '../../activities/venues/kalshi/signing.js';
import type { RoutedVenue } from '../../activities/venues/types.js';
import { agentAuthorizationWorkflowId } from '../../workflows/definitions.js';
import { viaWorkflow } from '../temporal-errors.js';
import { callerOf, gate } from '../middleware/auth.js';
import type { ApiDeps, ApiState } from '../context.js';
import type { OpenApiRegistry } from '../openapi.js';
import { endpoint } from '../route.js';
import { accountParams } from './accounts.schemas.js';
import { ownedAccount } from './accounts.js';
import { agentParams, agentView, authorizeAgentBody, createAgentBody, createdAgentView } from './agents.schemas.js';

/** An agent row as the API shows it (never the key, never venue API credentials). */
export function toAgentView(a: AgentWalletRow) {
  return {
    agentId: a.id,
    accountId: a.accountId,
    venue: a.venue as RoutedVenue,
    owner: a.owner,
    agentAddress: a.agentAddress,
    agentName: a.agentName,
    status: a.status as 'pending_authorization' | 'active' | 'revoked',
    expiresAt: a.expiresAt.toISOString(),
    authorizedAt: a.authorizedAt?.toISOString() ?? null,
    revokedAt: a.revokedAt?.toISOString() ?? null,
    createdAt: new Date(a.createdAt).toISOString(),
  };
}

/** A fresh agent key for a venue: its private part (sealed at once by the caller) and its public identity. */
function newAgentKey(venue: RoutedVenue): { secret: string; address: string; publicKeyPem?: string } {
  if (venue === 'kalshi') {
    const { publicKeyPem, privateKeyPem } = generateKalshiAgentKey();
    return { secret: privateKeyPem, address: 'pending', publicKeyPem };
  }
  const privateKey = generatePrivateKey();
  return { secret: privateKey, address: privateKeyToAddress(privateKey) };
}

export function agentRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1' });
  const tags = ['custody'];
  const ring: KeyRing | null = deps.config.agentKeyEncryptionKeys ? parseKeyRing(deps.config.agentKeyEncryptionKeys) : null;

  async function ownedAgent(em: EntityManager, accountId: string, agentId: string): Promise<AgentWalletRow> {
    const agent = await em.findOne(AgentWallet, { id: agentId, accountId });
    if (!agent) throw new ApiError('agent_not_found', `no agent ${agentId} on account ${accountId}`);
    return agent;
  }

  endpoint(router, openapi, { method: 'get', path: '/accounts/:id/agents', summary: "The account's agents per routed venue (no keys)", tags, gate: gate({ audience: 'trader' }), schemas: { params: accountParams }, responses: { '200': { description: '{ agents }' } } }, async (ctx, { params }) => {
    const em = scoped(deps.orm, callerOf(ctx).tenantId);
    await ownedAccount(em, callerOf(ctx), params.id);
    const rows = await em.find(AgentWallet, { accountId: params.id }, { orderBy: { createdAt: 'desc' } });
    ctx.body = { agents: rows.map(toAgentView) };
  });

  endpoint(
    router,
    openapi,
    {
      method: 'post',
      path: '/accounts/:id/agents',
      summary: 'Create an agent key for a routed venue; returns what the owner’s wallet signs to authorise it',
      tags,
      gate: gate({ audience: 'trader', write: true }),
      schemas: { params: accountParams, body: createAgentBody },
      responses: { '201': { description: 'Created, `pending_authorization`', schema: createdAgentView }, '409': { description: '`agent_exists`: revoke the current agent first' }, '503': { description: '`custody_unconfigured`' } },
    },
    async (ctx, { params, body }) => {
      if (!ring) throw new ApiError('custody_unconfigured', 'this deployment has no AGENT_KEY_ENCRYPTION_KEYS; routed venues are unavailable');
      const caller = callerOf(ctx);
      const em = scoped(deps.orm, caller.tenantId);
      const account = await ownedAccount(em, caller, params.id);
      const live = await em.findOne(AgentWallet, { accountId: account.id, venue: body.venue, status: { $ne: 'revoked' } });
      if (live) throw new ApiError('agent_exists', `account ${account.id} already has agent ${live.id} on ${body.venue} (${live.status}); revoke it first (agent addresses are never reused)`);
      const key = newAgentKey(body.venue);
      const expiresAt = Date.now() + body.expiresInDays * 86_400_000;
      const agentName = `mv-${account.id.slice(-8)}`;
      const authorization = ADAPTERS[body.venue].authorizationRequest({ owner: body.owner, agentAddress: key.address, agentPublicKeyPem: key.publicKeyPem, agentName, expiresAt, nonce: Date.now(), network: deps.config.venues.network });
      const agent = em.create(AgentWallet, {
        id: `agt_${randomBytes(10).toString('hex')}`,
        tenantId: caller.tenantId,
        accountId: account.id,
        venue: body.venue,
        owner: body.owner,
        agentAddress: key.address,
        agentName,
        encryptedKey: seal(ring, key.secret),
        keyVersion: ring.current,
        encryptedApiCredentials: null,
        status: 'pending_authorization',
        authorization: authorization as unknown as Record<string, unknown>,
        authorizationSignature: null,
        expiresAt: new Date(expiresAt),
        authorizedAt: null,
        revokedAt: null,
      });
      await em.flush();
      ctx.status = 201;
      ctx.body = { ...toAgentView(agent), authorization };
    },
  );

  endpoint(
    router,
    openapi,
    {
      method: 'post',
      path: '/accounts/:id/agents/:agentId/authorization',
      summary: "Submit the owner's signed authorisation; the platform verifies it and hands it to the venue",
      tags,
      gate: gate({ audience: 'trader', write: true }),
      schemas: { params: agentParams, body: authorizeAgentBody },
      responses: { '200': { description: 'The agent, `active`', schema: agentView }, '400': { description: '`invalid_signature`: it does not recover the owner' }, '422': { description: '`venue_rejected`: the venue refused the authorisation' } },
    },
    async (ctx, { params, body }) => {
      const caller = callerOf(ctx);
      const em = scoped(deps.orm, caller.tenantId);
      await ownedAccount(em, caller, params.id);
      const agent = await ownedAgent(em, params.id, params.agentId);
      if (agent.status === 'revoked') throw new ApiError('invalid_state', `agent ${agent.id} is revoked; create a new one`);
      if (agent.status === 'pending_authorization') {
        const adapter = ADAPTERS[agent.venue as RoutedVenue];
        const valid = await adapter.verifyAuthorization({ owner: agent.owner, request: agent.authorization as never, signature: body.signature }).catch(() => false);
        if (!valid) throw new ApiError('invalid_signature', `the signature does not authorise agent ${agent.agentAddress} for owner ${agent.owner}`);
        await viaWorkflow(
          () => deps.temporal.workflow.execute('agentAuthorizationWorkflow', { workflowId: agentAuthorizationWorkflowId(agent.id), taskQueue: deps.config.temporal.taskQueue, args: [{ agentId: agent.id, signature: body.signature, keyId: body.keyId ?? (agent.venue === 'kalshi' ? body.signature : undefined) }], workflowIdConflictPolicy: 'USE_EXISTING' }),
          new ApiError('invalid_state', `authorisation of agent ${agent.id} already ended`),
        );
        await em.refresh(agent);
      }
      ctx.body = toAgentView(agent);
    },
  );

  endpoint(
    router,
    openapi,
    {
      method: 'delete',
      path: '/accounts/:id/agents/:agentId',
      summary: 'Revoke an agent: compose refuses the venue with `agent_authorization_revoked` at once (also revoke it on the venue with your wallet)',
      tags,
      gate: gate({ audience: 'trader', write: true }),
      schemas: { params: agentParams },
      responses: { '200': { description: 'The agent, `revoked`', schema: agentView } },
    },
    async (ctx, { params }) => {
      const caller = callerOf(ctx);
      const em = scoped(deps.orm, caller.tenantId);
      await ownedAccount(em, caller, params.id);
      const agent = await ownedAgent(em, params.id, params.agentId);
      if (agent.status !== 'revoked') Object.assign(agent, { status: 'revoked', revokedAt: new Date() });
      await em.flush();
      ctx.body = toAgentView(agent);
    },
  );
  return router;
}

/**
 * Agent custody (docs/api.md §1 custody rules, §7 agent codes): per account and routed venue, the
 * platform generates an agent key, encrypts it at rest and returns only what the owner's own wallet
 * must sign. The owner's signature is verified here, then handed to the venue by the workflow
 * `agent-authorize-<agentId>` (the api never calls a venue). The agent can place, cancel and modify
 * orders; it cannot withdraw or re-authorise (the venues' own agent models).
 *
 * The authorisation request and its local signature check are the venue adapters' own wire format
 * (venues/registry.ts `ADAPTERS`: wire format and signing, no I/O here): this module is the api's one use of them.
 */
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../../../domain/errors.js';
import { seal, type KeyRing } from '../../../domain/custody/vault.js';
import { newId } from '../../../domain/ids.js';
import type { RoutedVenue } from '../../../domain/oms/intent.js';
import { AgentWallet, type AgentWalletRow } from '../../../db/entities.js';
import { scoped } from '../../../db/orm.js';
import { ADAPTERS } from '../../../venues/registry.js';
import { generateKalshiAgentKey } from '../../../venues/kalshi/signing.js';
import { agentAuthorizationWorkflowId } from '../workflows/agent-authorization.definitions.js';
import { agentAuthorizationWorkflow } from '../workflows/agent-authorization.js';
import { ownedAccount } from '../../../api/auth/ownership.js';
import type { ApiDeps, Caller } from '../../../api/context.js';
import { viaWorkflow } from '../../../api/temporal-errors.js';
import { requireRing } from './ring.js';

/** A fresh agent key for a venue: its private part (sealed at once by the caller) and its public identity. */
function newAgentKey(venue: RoutedVenue): { secret: string; address: string; publicKeyPem?: string } {
  if (venue === 'kalshi') {
    const { publicKeyPem, privateKeyPem } = generateKalshiAgentKey();
    return { secret: privateKeyPem, address: 'pending', publicKeyPem };
  }
  const privateKey = generatePrivateKey();
  return { secret: privateKey, address: privateKeyToAddress(privateKey) };
}

/** The agent `agentId` of the account. @throws ApiError `404 agent_not_found`. */
async function agentOf(em: EntityManager, accountId: string, agentId: string): Promise<AgentWalletRow> {
  const agent = await em.findOne(AgentWallet, { id: agentId, accountId });
  if (!agent) throw new ApiError('agent_not_found', `no agent ${agentId} on account ${accountId}`);
  return agent;
}

/** The caller's account's agents, newest first. @throws as ownedAccount (auth/ownership.ts). */
export async function listAgents(deps: ApiDeps, caller: Caller, accountId: string): Promise<AgentWalletRow[]> {
  const em = scoped(deps.orm, caller.tenantId);
  await ownedAccount(em, caller, accountId);
  return em.find(AgentWallet, { accountId }, { orderBy: { createdAt: 'desc' } });
}

/**
 * Creates a `pending_authorization` agent on `venue` for the caller's account, valid `expiresInDays`
 * days once authorised, and answers it with the `authorization` request the owner signs.
 *
 * `owner` is stored as given. On Hyperliquid, Aster and Polymarket it is proven before the agent
 * becomes active ({@link authorizeAgent} recovers the EIP-712 signature to it), and the active agent
 * then links that wallet to this account for Sign-In with Ethereum (api/auth/session.ts). On Kalshi
 * nobody signs with `owner` (the user registers an RSA API key on kalshi.com), so it is an unproven
 * label, any string, possibly someone else's wallet: it is shown back but never links a wallet
 * (db/agent-wallets.ts `OWNER_SIGNED_VENUES`).
 * @throws ApiError `503 custody_unconfigured` (no key ring), `409 agent_exists` (a live agent on that venue), as ownedAccount.
 */
export async function createAgent(
  deps: ApiDeps,
  ring: KeyRing | null,
  caller: Caller,
  accountId: string,
  body: { venue: RoutedVenue; owner: string; expiresInDays: number },
) {
  const keys = requireRing(ring, 'routed venues are unavailable');
  const em = scoped(deps.orm, caller.tenantId);
  const account = await ownedAccount(em, caller, accountId);
  const live = await em.findOne(AgentWallet, { accountId: account.id, venue: body.venue, status: { $ne: 'revoked' } });
  if (live) {
    const detail = `account ${account.id} already has agent ${live.id} on ${body.venue} (${live.status}); revoke it first (agent addresses are never reused)`;
    throw new ApiError('agent_exists', detail);
  }
  const key = newAgentKey(body.venue);
  const expiresAt = Date.now() + body.expiresInDays * 86_400_000;
  const agentName = `mv-${account.id.slice(-8)}`;
  const authorization = ADAPTERS[body.venue].authorizationRequest({
    owner: body.owner,
    agentAddress: key.address,
    agentPublicKeyPem: key.publicKeyPem,
    agentName,
    expiresAt,
    nonce: Date.now(),
    network: deps.config.venues.network,
  });
  const agent = em.create(AgentWallet, {
    id: newId('agt', 10),
    tenantId: caller.tenantId,
    accountId: account.id,
    venue: body.venue,
    owner: body.owner,
    agentAddress: key.address,
    agentName,
    encryptedKey: seal(keys, key.secret),
    keyVersion: keys.current,
    encryptedApiCredentials: null,
    status: 'pending_authorization',
    authorization: authorization,
    authorizationSignature: null,
    expiresAt: new Date(expiresAt),
    authorizedAt: null,
    revokedAt: null,
  });
  await em.flush();
  return { agent, authorization };
}

/**
 * Verifies the owner's signature (`signature`; Kalshi: the key id, or `keyId`) over a pending agent's
 * authorisation and runs `agent-authorize-<agentId>`, which hands it to the venue; an agent already
 * active is answered as it is.
 * @throws ApiError `404 agent_not_found`, `409 invalid_state` (revoked, or its authorisation ended),
 *   `400 invalid_signature`, `422 venue_rejected` (from the workflow), as ownedAccount.
 */
export async function authorizeAgent(
  deps: ApiDeps,
  caller: Caller,
  accountId: string,
  agentId: string,
  body: { signature: string; keyId?: string },
): Promise<AgentWalletRow> {
  const em = scoped(deps.orm, caller.tenantId);
  await ownedAccount(em, caller, accountId);
  const agent = await agentOf(em, accountId, agentId);
  if (agent.status === 'revoked') throw new ApiError('invalid_state', `agent ${agent.id} is revoked; create a new one`);
  if (agent.status === 'pending_authorization') {
    const adapter = ADAPTERS[agent.venue as RoutedVenue];
    const valid = await adapter
      .verifyAuthorization({ owner: agent.owner, request: agent.authorization as never, signature: body.signature })
      .catch(() => false);
    if (!valid)
      throw new ApiError(
        'invalid_signature',
        `the signature does not authorise agent ${agent.agentAddress} for owner ${agent.owner}`,
      );
    const keyId = body.keyId ?? (agent.venue === 'kalshi' ? body.signature : undefined);
    await viaWorkflow(
      () =>
        deps.temporal.workflow.execute(agentAuthorizationWorkflow, {
          workflowId: agentAuthorizationWorkflowId(agent.id),
          taskQueue: deps.config.temporal.taskQueue,
          args: [{ agentId: agent.id, signature: body.signature, keyId }],
          workflowIdConflictPolicy: 'USE_EXISTING',
        }),
      new ApiError('invalid_state', `authorisation of agent ${agent.id} already ended`),
    );
    await em.refresh(agent);
  }
  return agent;
}

/**
 * Revokes the agent: compose refuses its venue with `agent_authorization_revoked` at once.
 * @throws ApiError `404 agent_not_found`, as ownedAccount.
 */
export async function revokeAgent(
  deps: ApiDeps,
  caller: Caller,
  accountId: string,
  agentId: string,
): Promise<AgentWalletRow> {
  const em = scoped(deps.orm, caller.tenantId);
  await ownedAccount(em, caller, accountId);
  const agent = await agentOf(em, accountId, agentId);
  if (agent.status !== 'revoked') Object.assign(agent, { status: 'revoked', revokedAt: new Date() });
  await em.flush();
  return agent;
}

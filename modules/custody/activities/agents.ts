/**
 * Agent authorisation (docs/api.md §1 custody): hands the owner's signed authorisation to the venue
 * (Hyperliquid `approveAgent`, Aster `registerAndApproveAgent`, Polymarket signer authorisation and
 * L2 API-key derivation, Kalshi's proof call with the registered key id) and records it. The agent
 * key is decrypted only here and in routed dispatch; venue API credentials come back sealed.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { ApplicationFailure } from '@temporalio/common';
import { AgentWallet } from '../../../db/entities.js';
import { platformEm } from '../../../db/orm.js';
import { seal } from '../../../domain/custody/vault.js';
import { ADAPTERS } from '../../../venues/registry.js';
import { inAgentLane } from '../../oms/activities/agent-lane.js';
import { venueContext, type RoutedDeps } from '../../oms/activities/routed.js';
import { VenueRejected, type AuthorizationRequest, type RoutedVenue } from '../../../venues/types.js';

/** The outcome of an authorisation: the agent's status and public identity. */
export interface AgentAuthorizationResult {
  agentId: string;
  status: string;
  agentAddress: string;
}

export function custodyActivities(deps: RoutedDeps & { orm: MikroORM }) {
  return {
    /**
     * Submits agent `agentId`'s authorisation (`signature` by the owner; `keyId` for Kalshi) to its
     * venue and marks the agent `active`, once: an already active agent is returned unchanged.
     * @throws ApplicationFailure `agent_not_found`, `invalid_state` (revoked), `venue_rejected` (the venue refused; detail is its reason) — all non-retryable.
     */
    async submitAgentAuthorization(
      agentId: string,
      signature: string,
      keyId?: string,
    ): Promise<AgentAuthorizationResult> {
      const em = platformEm(deps.orm);
      const agent = await em.findOne(AgentWallet, { id: agentId }, { filters: false });
      if (!agent)
        throw ApplicationFailure.create({
          type: 'agent_not_found',
          message: `agent ${agentId} not found`,
          nonRetryable: true,
        });
      if (agent.status === 'active') return { agentId, status: agent.status, agentAddress: agent.agentAddress };
      if (agent.status === 'revoked')
        throw ApplicationFailure.create({
          type: 'invalid_state',
          message: `agent ${agentId} is revoked`,
          nonRetryable: true,
        });
      const venue = agent.venue as RoutedVenue;
      const ctx = venueContext(deps, venue === 'kalshi' && keyId ? { ...agent, agentAddress: keyId } : agent);
      let credentials: Record<string, string> | undefined;
      try {
        credentials = await inAgentLane(agent.id, () =>
          ADAPTERS[venue].submitAuthorization(ctx, {
            request: agent.authorization as AuthorizationRequest,
            signature,
            keyId,
          }),
        );
      } catch (err) {
        if (err instanceof VenueRejected)
          throw ApplicationFailure.create({ type: 'venue_rejected', message: err.reason, nonRetryable: true });
        throw err;
      }
      agent.status = 'active';
      agent.authorizationSignature = signature;
      agent.authorizedAt = new Date();
      if (venue === 'kalshi' && keyId) agent.agentAddress = keyId;
      if (credentials && venue !== 'kalshi')
        agent.encryptedApiCredentials = seal(deps.ring!, JSON.stringify(credentials));
      await em.flush();
      return { agentId, status: agent.status, agentAddress: agent.agentAddress };
    },
  };
}

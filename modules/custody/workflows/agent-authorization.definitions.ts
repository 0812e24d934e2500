/**
 * Contract of `agent-authorize-<agentId>` (modules/custody/workflows/agent-authorization.ts, docs/api.md §1 custody): the
 * hand-off of an agent's authorisation to its venue.
 */

/** Workflow id of an agent's authorisation hand-off to its venue: `agent-authorize-<agentId>`. */
export const agentAuthorizationWorkflowId = (agentId: string) => `agent-authorize-${agentId}`;

/** Input of `agentAuthorizationWorkflow`: the agent, the owner's signature, and (Kalshi) the key id the venue assigned. */
export interface AgentAuthorizationInput {
  agentId: string;
  signature: string;
  keyId?: string;
}

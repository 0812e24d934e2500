/**
 * When an account's agent may sign for it (docs/api.md §1 custody, §7 agent codes). Pure: the api
 * refuses compose with these codes, and routed dispatch rejects the intent with them.
 */

/** What {@link agentBlock} reads of an agent wallet row (`agent_wallets`). */
export interface AgentStanding {
  status: string;
  expiresAt: Date;
}

/** The docs/api.md §7 code of an agent that cannot sign. */
export type AgentBlock =
  'credential_missing_agent_wallet' | 'agent_authorization_revoked' | 'agent_authorization_expired';

/** Why an agent cannot sign at `now` (epoch ms), or null when it can; no agent, or one still pending, is `credential_missing_agent_wallet`. */
export function agentBlock(agent: AgentStanding | null, now = Date.now()): AgentBlock | null {
  if (!agent || agent.status === 'pending_authorization') return 'credential_missing_agent_wallet';
  if (agent.status === 'revoked') return 'agent_authorization_revoked';
  if (agent.expiresAt.getTime() <= now) return 'agent_authorization_expired';
  return null;
}

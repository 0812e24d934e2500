/** Agent wallets as the API shows them (docs/api.md §1 custody; agents.schemas.ts `agentView`). */
import type { RoutedVenue } from '../../../domain/oms/intent.js';
import type { AgentWalletRow } from '../../../db/entities.js';

/** An agent: never its key, never its venue API credentials. */
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

/**
 * Reads of `agent_wallets` (docs/api.md §1 custody): the agent an account signs with on a venue.
 * Used by compose and smart routing (api) and by routed dispatch (modules/oms/activities/routed.ts).
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { AgentWallet, type AgentWalletRow } from './entities.js';
import { platformEm } from './orm.js';

/** The account's current agent on a venue: the newest non-revoked of its last five, else the newest; null when it has none. */
export async function currentAgent(orm: MikroORM, accountId: string, venue: string): Promise<AgentWalletRow | null> {
  const rows = await platformEm(orm).find(
    AgentWallet,
    { accountId, venue },
    { filters: false, orderBy: { createdAt: 'desc' }, limit: 5 },
  );
  return rows.find((r) => r.status !== 'revoked') ?? rows[0] ?? null;
}

/**
 * Reads of `agent_wallets` (docs/api.md §1 custody): the agent an account signs with on a venue, and
 * which agents link their owner's wallet to the account for Sign-In with Ethereum.
 * Used by compose and smart routing (api), routed dispatch (modules/oms/activities/routed.ts) and the
 * SIWE session lookups (api/auth/session.ts).
 */
import type { RoutedVenue } from '../domain/oms/intent.js';
import { AgentWallet, type AgentWalletRow } from './entities.js';
import { prefixed, selectList, sqlFor, withDates, type Db } from './sql.js';

const AGENT_PROPS = Object.keys(AgentWallet.meta.properties);
/** The timestamp properties of an agent row ({@link withDates}). */
const AGENT_DATES = ['expiresAt', 'authorizedAt', 'revokedAt', 'createdAt'] as const;

/**
 * The statement text of {@link currentAgent}, the account and venue given as placeholders (`$1`, …) so it can be a
 * lateral subquery of a larger statement; each column named `<prefix><property>` (db/sql.ts `selectList`).
 */
export function currentAgentSql(account: string, venue: string, prefix = ''): string {
  return `select ${selectList(AGENT_PROPS, 'w', prefix)}
    from (select * from agent_wallets where account_id = ${account} and venue = ${venue} order by created_at desc limit 5) w
   order by w.status = 'revoked', w.created_at desc limit 1`;
}

/**
 * The account's current agent on a venue: the newest non-revoked of its last five, else the newest; null when it
 * has none. Any tenant (the caller holds the account). One statement through `db` (a MikroORM fork or a `pg` runner).
 */
export async function currentAgent(db: Db, accountId: string, venue: string): Promise<AgentWalletRow | null> {
  const [row] = await sqlFor(db).rows<AgentWalletRow>(currentAgentSql('$1', '$2'), [accountId, venue]);
  return row ? withDates(row, AGENT_DATES) : null;
}

/**
 * The agent row read by {@link currentAgentSql} with `prefix` as part of a larger statement's row (its dates as
 * `Date`s); null when the statement found none.
 */
export function agentOfRow(row: Record<string, unknown>, prefix: string): AgentWalletRow | null {
  const agent = prefixed<AgentWalletRow>(row, prefix, 'id');
  return agent ? withDates(agent, AGENT_DATES) : null;
}

/**
 * Venues whose agent authorisation is signed by the owner's own wallet: an EIP-712 signature that
 * modules/custody/commands/agents.ts `authorizeAgent` recovers to `owner` before the agent can become
 * active (Hyperliquid `ApproveAgent`, Aster registration, Polymarket `AuthorizeSigner`). Only on these
 * venues is `owner` a proven wallet. Kalshi is absent on purpose: its agent is an RSA API key the
 * user registers on kalshi.com, nobody signs anything with `owner`, so a Kalshi agent's `owner` is
 * an unproven label (any string, someone else's wallet included) and never links a wallet.
 */
export const OWNER_SIGNED_VENUES: readonly RoutedVenue[] = ['hyperliquid', 'aster', 'polymarket'];

/**
 * The SQL condition (on `agent_wallets` under alias `alias`) for an agent that links its owner's
 * wallet to its account for SIWE: active, unexpired, on a venue of {@link OWNER_SIGNED_VENUES}. The
 * caller adds the wallet match (`lower(<alias>.owner) = …`). A constant fragment: no user input.
 */
export function walletLinkingAgentSql(alias: string): string {
  const venues = OWNER_SIGNED_VENUES.map((v) => `'${v}'`).join(', ');
  return `${alias}.status = 'active' and ${alias}.expires_at > now() and ${alias}.venue in (${venues})`;
}

/**
 * Transaction nonces of platform chain keys (the prop-firm deployer), allocated like agent nonces
 * (db/agent-nonces.ts, same table `agent_nonces`, key `deployer:<chainId>:<address>`): one upsert
 * taking max(last + 1, the chain's pending nonce), so concurrent deploys on any worker never share
 * a nonce, and a chain that moved on (transactions sent elsewhere) is followed.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { platformEm } from './orm.js';

/** The next transaction nonce of `key`, at least `chainPending`. */
export async function nextChainNonce(orm: MikroORM, key: string, chainPending: number): Promise<number> {
  const rows = await platformEm(orm)
    .getConnection()
    .execute<{ last_nonce: string }[]>(
      `insert into agent_nonces (agent_id, last_nonce) values (?, ?)
       on conflict (agent_id) do update set last_nonce = greatest(agent_nonces.last_nonce + 1, excluded.last_nonce)
       returning last_nonce`,
      [key, String(chainPending)],
    );
  return Number(rows[0].last_nonce);
}

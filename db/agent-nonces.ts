/**
 * Nonces per agent key (docs/venues.md §5 "allocate nonces serially per signing key"): one
 * row per agent in `agent_nonces`; each allocation is a single upsert that takes
 * max(last + 1, now in the venue's unit), under PostgreSQL's row lock. Every worker process and
 * every concurrent activity therefore gets a distinct, strictly increasing nonce that also tracks
 * the clock (Hyperliquid wants ms within a day of now; Aster µs within ±10 s).
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { platformEm } from './orm.js';

/**
 * The next nonce of `agentId`, as a bigint in `unit` (epoch milliseconds or microseconds).
 * An agent keeps one unit for its whole life (its venue's).
 */
export async function nextAgentNonce(
  orm: MikroORM,
  agentId: string,
  unit: 'ms' | 'us',
  now = Date.now(),
): Promise<bigint> {
  return allocateNonce(orm, agentId, unit === 'ms' ? BigInt(now) : BigInt(now) * 1000n);
}

/**
 * The next nonce of signing key `key`: max(last + 1, `floor`), in one upsert under the row lock.
 * Agent keys pass the clock as the floor; chain keys (db/chain-nonces.ts) the chain's pending nonce.
 */
export async function allocateNonce(orm: MikroORM, key: string, floor: bigint): Promise<bigint> {
  const rows = await platformEm(orm)
    .getConnection()
    .execute<{ last_nonce: string }[]>(
      `insert into agent_nonces (agent_id, last_nonce) values (?, ?)
       on conflict (agent_id) do update set last_nonce = greatest(agent_nonces.last_nonce + 1, excluded.last_nonce)
       returning last_nonce`,
      [key, floor.toString()],
    );
  return BigInt(rows[0].last_nonce);
}

/**
 * Nonces per agent key (docs/venues.md §5 "allocate nonces serially per signing key"): one
 * row per agent in `agent_nonces`; each allocation is a single upsert that takes
 * max(last + 1, now in the venue's unit), under PostgreSQL's row lock. Every worker process and
 * every concurrent activity therefore gets a distinct, strictly increasing nonce that also tracks
 * the clock (Hyperliquid wants ms within a day of now; Aster µs within ±10 s).
 */
import { sqlFor, type Db } from './sql.js';

/**
 * The next nonce of `agentId`, as a bigint in `unit` (epoch milliseconds or microseconds), allocated through `db`
 * (routed dispatch: the worker's ledger pool; compose: a MikroORM fork). An agent keeps one unit for its whole life
 * (its venue's).
 */
export async function nextAgentNonce(db: Db, agentId: string, unit: 'ms' | 'us', now = Date.now()): Promise<bigint> {
  return allocateNonce(db, agentId, nonceFloor(unit, now));
}

/** The clock `now` (epoch ms) in `unit`: the least nonce an agent key may take next. */
export const nonceFloor = (unit: 'ms' | 'us', now = Date.now()): bigint =>
  unit === 'ms' ? BigInt(now) : BigInt(now) * 1000n;

/**
 * The upsert that allocates a nonce, its key and floor given by `source` (`values ($1, $2)`, or a `select` of a larger
 * statement): max(last + 1, floor) under the row lock, answered as `lastNonce` (text).
 */
export const nonceUpsertSql = (source: string) => `insert into agent_nonces (agent_id, last_nonce) ${source}
     on conflict (agent_id) do update set last_nonce = greatest(agent_nonces.last_nonce + 1, excluded.last_nonce)
     returning last_nonce::text as "lastNonce"`;

/**
 * The next nonce of signing key `key`: max(last + 1, `floor`), in one upsert under the row lock.
 * Agent keys pass the clock as the floor; chain keys (db/chain-nonces.ts) the chain's pending nonce.
 */
export async function allocateNonce(db: Db, key: string, floor: bigint): Promise<bigint> {
  const [row] = await sqlFor(db).rows<{ lastNonce: string }>(nonceUpsertSql('values ($1, $2)'), [
    key,
    floor.toString(),
  ]);
  return BigInt(row.lastNonce);
}

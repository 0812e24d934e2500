/**
 * Transaction nonces of platform chain keys (the prop-firm deployer), allocated like agent nonces
 * (db/agent-nonces.ts, same table, key `deployer:<chainId>:<address>`): max(last + 1, the chain's
 * pending nonce), so concurrent deploys on any worker never share a nonce, and a chain that moved
 * on (transactions sent elsewhere) is followed.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { allocateNonce } from './agent-nonces.js';
import { platformEm } from './orm.js';

/** The next transaction nonce of `key`, at least `chainPending`. */
export async function nextChainNonce(orm: MikroORM, key: string, chainPending: number): Promise<number> {
  return Number(await allocateNonce(platformEm(orm), key, BigInt(chainPending)));
}

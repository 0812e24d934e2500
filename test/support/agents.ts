/**
 * Authorised agent rows for tests: what `POST /accounts/{id}/agents` and the owner's signed
 * authorisation leave behind, inserted directly (a real sealed key, active for 24 h). A wallet that
 * owns such an agent can sign in with SIWE as the account's trader (api/auth/session.ts).
 */
import { randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import { AgentWallet } from '../../db/entities.js';
import { scoped } from '../../db/orm.js';
import { parseKeyRing, seal } from '../../domain/custody/vault.js';
import { TEST_AGENT_KEYS } from './stack.js';

/** Inserts an active agent of `owner` (0x address) on `accountId` for `venue`. */
export async function addAgent(
  orm: MikroORM,
  tenantId: string,
  accountId: string,
  venue: string,
  owner: string,
): Promise<void> {
  const em = scoped(orm, tenantId);
  const key = generatePrivateKey();
  em.create(AgentWallet, {
    id: `agt_${randomBytes(8).toString('hex')}`,
    tenantId,
    accountId,
    venue,
    owner,
    agentAddress: privateKeyToAddress(key),
    agentName: 'test-agent',
    encryptedKey: seal(parseKeyRing(TEST_AGENT_KEYS), key),
    keyVersion: 'test1',
    status: 'active',
    authorization: {},
    expiresAt: new Date(Date.now() + 86_400_000),
    authorizedAt: new Date(),
  });
  await em.flush();
}

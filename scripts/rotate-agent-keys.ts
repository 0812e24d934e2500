/**
 * `npm run rotate-agent-keys`: after putting a new key version first in AGENT_KEY_ENCRYPTION_KEYS
 * (keep the old one after it), re-encrypts every sealed secret under the new version: agent keys and
 * their venue API credentials, webhook secrets and API keys, sign-in providers' client secrets
 * (modules/custody/activities/rotate.ts). Prints how many rows moved and any it could not open (exit
 * code 1); run it until it prints 0, then the old version can leave the ring.
 */
import { loadConfig } from '../config.js';
import { openOrm } from '../db/orm.js';
import { parseKeyRing } from '../domain/custody/vault.js';
import { rotateSealedSecrets } from '../modules/custody/activities/rotate.js';

const config = loadConfig();
if (!config.agentKeyEncryptionKeys) throw new Error('AGENT_KEY_ENCRYPTION_KEYS is not set');
const ring = parseKeyRing(config.agentKeyEncryptionKeys);
const orm = await openOrm(config.databaseUrl);
const { rotated, failed } = await rotateSealedSecrets(orm, ring);
console.log(`re-encrypted ${rotated} row(s) of sealed secrets under ${ring.current}`);
for (const f of failed) console.log(`  could not open ${f.row}: ${f.error}`);
await orm.close();
if (failed.length) process.exitCode = 1;

/**
 * Custody at rest (docs/api.md §1, docs/architecture.md "Secrets"): agent keys sealed with AES-256-GCM under a
 * versioned key ring, rotation to a new version, and the per-agent nonce allocator that keeps
 * nonces strictly increasing and unique under concurrency (docs/venues.md §5).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { MikroORM } from '@mikro-orm/postgresql';
import { generatePrivateKey } from 'viem/accounts';
import { openOrm, platformEm } from '../../db/orm.js';
import { AgentWallet } from '../../db/entities.js';
import { nextAgentNonce } from '../../db/agent-nonces.js';
import { open, parseKeyRing, seal } from '../../domain/custody/vault.js';
import { rotateSealedSecrets } from '../../modules/custody/activities/rotate.js';

const k = (byte: number) => Buffer.alloc(32, byte).toString('base64');

describe('agent key vault', () => {
  const ring = parseKeyRing(`v1:${k(1)}`);

  it('seals with a fresh IV each time and opens back to the key', () => {
    const key = generatePrivateKey();
    const a = seal(ring, key);
    const b = seal(ring, key);
    expect(a).not.toBe(b);
    expect(a).not.toContain(key.slice(2));
    expect(open(ring, a)).toBe(key);
  });

  it('refuses a tampered ciphertext, an unknown key version and malformed rings', () => {
    const sealed = seal(ring, 'secret');
    const [v, iv, tag, body] = sealed.split('.');
    const flipped = Buffer.from(body, 'base64');
    flipped[0] ^= 1;
    expect(() => open(ring, [v, iv, tag, flipped.toString('base64')].join('.'))).toThrow();
    expect(() => open(parseKeyRing(`v2:${k(2)}`), sealed)).toThrow(/unknown key version v1/);
    expect(() => parseKeyRing('v1:c2hvcnQ=')).toThrow(/32/);
    expect(() => parseKeyRing(`v1:${k(1)},v1:${k(2)}`)).toThrow(/twice/);
    expect(() => parseKeyRing('')).toThrow(/empty/);
  });
});

describe('with the database', () => {
  let orm: MikroORM;
  beforeAll(async () => (orm = await openOrm(inject('databaseUrl'))));
  afterAll(async () => orm?.close());

  it('rotation re-encrypts every agent key and sealed secret under the new version; the old version can then leave the ring', async () => {
    const old = parseKeyRing(`v1:${k(1)}`);
    const key = generatePrivateKey();
    const id = `agt_rot_${Date.now()}`;
    await platformEm(orm).insert(AgentWallet, {
      id,
      tenantId: 't-rot',
      accountId: `acc_rot_${Date.now()}`,
      venue: 'hyperliquid',
      owner: '0x0',
      agentAddress: '0x1',
      agentName: 'rot',
      encryptedKey: seal(old, key),
      keyVersion: 'v1',
      encryptedApiCredentials: null,
      status: 'active',
      authorization: {},
      authorizationSignature: null,
      expiresAt: new Date(Date.now() + 86_400_000),
      authorizedAt: new Date(),
      revokedAt: null,
      createdAt: new Date(),
    });
    // A webhook endpoint's secret and API key, and a sign-in provider's client secret, sealed under v1 too.
    const conn = platformEm(orm).getConnection();
    const hook = `whe_rot_${Date.now()}`;
    await conn.execute(
      `insert into webhook_endpoints (id, tenant_id, url, events, sealed_secret, sealed_api_key, status, created_at)
       values (?, 't-rot', 'https://hooks.example/rot', '["*"]', ?, ?, 'disabled', now())`,
      [hook, seal(old, 'whsec_rot'), seal(old, 'static-key')],
    );
    const provider = `sip_rot_${Date.now()}`;
    await conn.execute(
      `insert into signin_providers (id, tenant_id, slug, kind, display_name, issuer, client_id, sealed_client_secret, join_policy, enabled)
       values (?, 't-rot', ?, 'oidc', 'Rot', 'https://id.example', 'client', ?, 'open', false)`,
      [provider, provider, seal(old, 'client-secret')],
    );
    const both = parseKeyRing(`v2:${k(2)},v1:${k(1)}`);
    const first = await rotateSealedSecrets(orm, both);
    expect(first.rotated).toBeGreaterThanOrEqual(3);
    expect(first.failed.map((f) => f.row)).not.toContain(`agent_wallets/${id}`);
    const row = await platformEm(orm).findOneOrFail(AgentWallet, { id }, { filters: false, disableIdentityMap: true });
    expect(row.keyVersion).toBe('v2');
    const v2 = parseKeyRing(`v2:${k(2)}`);
    expect(open(v2, row.encryptedKey)).toBe(key);
    const [h] = await conn.execute<{ sealed_secret: string; sealed_api_key: string }[]>(
      'select sealed_secret, sealed_api_key from webhook_endpoints where id = ?',
      [hook],
    );
    expect([open(v2, h.sealed_secret), open(v2, h.sealed_api_key)]).toEqual(['whsec_rot', 'static-key']);
    const [p] = await conn.execute<{ sealed_client_secret: string }[]>(
      'select sealed_client_secret from signin_providers where id = ?',
      [provider],
    );
    expect(open(v2, p.sealed_client_secret)).toBe('client-secret');
    expect((await rotateSealedSecrets(orm, both)).rotated).toBe(0);
  });

  it('1,000 concurrent nonce allocations for one agent are unique and never below the clock', async () => {
    const agent = `agt_nonce_${Date.now()}`;
    const start = BigInt(Date.now());
    const nonces = await Promise.all(Array.from({ length: 1000 }, () => nextAgentNonce(platformEm(orm), agent, 'ms')));
    expect(new Set(nonces.map(String)).size).toBe(1000);
    expect(nonces.every((n) => n >= start)).toBe(true);
    const sorted = [...nonces].sort((a, b) => (a < b ? -1 : 1));
    expect(sorted.at(-1)! - sorted[0]).toBeGreaterThanOrEqual(999n);
    // Microsecond agents get µs nonces.
    expect(await nextAgentNonce(platformEm(orm), `${agent}-us`, 'us')).toBeGreaterThan(start * 1000n);
  });
});

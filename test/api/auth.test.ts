/** Bearer mint and revocation (docs/api.md §4.1, §5.2): what a revoked token or credential can still do. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { Credential } from '../../db/entities.js';
import { platformEm } from '../../db/orm.js';
import { ensureTenant, revokeCredential } from '../../db/seed.js';
import { TEST_JWT_SECRET, type Stack } from '../support/stack.js';
import { startStackWithMark } from '../support/trading.js';

describe('bearer tokens and revocation', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStackWithMark('SOL.PAPER', 0.7, { worker: false });
  });
  afterAll(async () => s?.stop());
  const order = { venue: 'paper', symbol: 'SOL.PAPER', side: 'buy', type: 'market', qty: '1' };

  it('mints a 24 h bearer and refuses a wrong secret', async () => {
    const t = await s.trader('liquidation');
    const res = await s.call('POST', '/api/auth/api-token', { body: { apiKey: t.apiKey, apiSecret: t.apiSecret } });
    expect(res.body).toMatchObject({
      tier: 'liquidation',
      audience: 'trader',
      tokenType: 'Bearer',
      accountId: t.accountId,
    });
    const ttl = Date.parse(res.body.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(24 * 3600_000 - 60_000);
    expect(ttl).toBeLessThanOrEqual(24 * 3600_000);
    const wrong = await s.call('POST', '/api/auth/api-token', { body: { apiKey: t.apiKey, apiSecret: 'nope' } });
    expect(wrong).toMatchObject({ status: 401, body: { error: 'invalid_credentials' } });
  });

  it('a revoked token stops reading at once', async () => {
    const t = await s.trader();
    expect((await s.call('GET', '/api/v1/accounts', { token: t.token })).status).toBe(200);
    const revoked = await s.call('POST', '/api/auth/api-token/revoke', { body: { token: t.token } });
    expect(revoked.body).toEqual({ ok: true, revoked: true });
    expect(await s.call('GET', '/api/v1/accounts', { token: t.token })).toMatchObject({
      status: 401,
      body: { error: 'token_revoked' },
    });
  });

  it('a revoked credential: no new mint, no writes, but its live token still reads', async () => {
    const t = await s.trader();
    await revokeCredential(s.orm, s.tenant.id, t.credentialId);
    expect(
      (await s.call('POST', '/api/auth/api-token', { body: { apiKey: t.apiKey, apiSecret: t.apiSecret } })).body.error,
    ).toBe('credential_revoked');
    expect(await s.call('POST', '/api/v1/oms/intents', { token: t.token, body: order })).toMatchObject({
      status: 401,
      body: { error: 'credential_revoked' },
    });
    expect((await s.call('GET', `/api/v1/accounts/${t.accountId}/state`, { token: t.token })).status).toBe(200);
  });

  it('an expired token is 401 token_expired', async () => {
    const t = await s.trader();
    const old = await new SignJWT({ tid: s.tenant.id })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(t.credentialId)
      .setJti('expired-jti')
      .setIssuer('multivenue-platform')
      .setExpirationTime(Math.floor(Date.now() / 1000) - 10)
      .sign(new TextEncoder().encode(TEST_JWT_SECRET));
    expect(await s.call('GET', '/api/v1/accounts', { token: old })).toMatchObject({
      status: 401,
      body: { error: 'token_expired' },
    });
  });

  it("a token whose pinned tenant disagrees with its credential's row is 403", async () => {
    const t = await s.trader();
    const other = await ensureTenant(s.orm, {
      slug: `moved-${t.credentialId.slice(-6)}`,
      displayName: 'Moved',
      origins: [],
    });
    const em = platformEm(s.orm);
    await em.nativeUpdate(Credential, { id: t.credentialId }, { tenantId: other.id }, { filters: false });
    expect(await s.call('GET', '/api/v1/accounts', { token: t.token })).toMatchObject({
      status: 403,
      body: { error: 'tenant_mismatch' },
    });
  });

  it('serves an OpenAPI 3.1 document generated from the route schemas', async () => {
    const res = await fetch(`${s.api.baseUrl}/api/v1/openapi.json`);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, any>> };
    expect(doc.openapi).toBe('3.1.0');
    const compose = doc.paths['/api/v1/oms/intents'].post;
    expect(compose.requestBody.content['application/json'].schema).toBeDefined();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/auth/api-token',
        '/api/auth/bootstrap',
        '/api/v1/accounts/{id}/state',
        '/api/v1/oms/intents/{id}',
      ]),
    );
    expect(doc.paths['/api/v1/accounts/{id}/state'].get.parameters[0]).toMatchObject({ in: 'path', name: 'id' });
  });
});

describe('no worker running', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStackWithMark('BTC.PAPER', 0.2, { worker: false });
  });
  afterAll(async () => s?.stop());

  it('compose answers 503 after the deadline; the retry with the same key attaches to the same intent once a worker runs', async () => {
    const t = await s.trader();
    const body = { venue: 'paper', symbol: 'BTC.PAPER', side: 'buy', type: 'market', qty: '0.001' };
    const first = await s.call('POST', '/api/v1/oms/intents', {
      token: t.token,
      body,
      headers: { 'idempotency-key': 'no-worker-key-1' },
    });
    expect(first).toMatchObject({ status: 503, body: { error: 'service_unavailable' } });
    await s.startWorker();
    const retry = await s.call('POST', '/api/v1/oms/intents', {
      token: t.token,
      body,
      headers: { 'idempotency-key': 'no-worker-key-1' },
    });
    expect(retry.status, JSON.stringify(retry.body)).toBe(201);
    const list = await s.call('GET', '/api/v1/oms/intents', { token: t.token });
    expect(list.body.intents.map((i: { intentId: string }) => i.intentId)).toEqual([retry.body.intentId]);
  }, 40_000);
});

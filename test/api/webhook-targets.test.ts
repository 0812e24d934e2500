/**
 * WEBHOOK_ALLOW_LOOPBACK (README "Configuration checks"; off by default with NODE_ENV=production):
 * with it off, `POST /api/v1/webhooks` refuses every spelling of a loopback target with
 * `400 webhook_target_forbidden` and registers nothing; other hosts are registered as before.
 * (With it on, the default elsewhere, test/api/webhooks.test.ts delivers to receivers on 127.0.0.1.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueCredential } from '../../db/seed.js';
import { startStack, type Stack } from '../support/stack.js';

describe('webhook targets with WEBHOOK_ALLOW_LOOPBACK=off', () => {
  let s: Stack;
  let op: string;
  beforeAll(async () => {
    s = await startStack({ worker: false, env: { WEBHOOK_ALLOW_LOOPBACK: 'off' } });
    const cred = await issueCredential(s.orm, {
      tenantId: s.tenant.id,
      audience: 'operator',
      scopes: ['tenant:config'],
    });
    op = (await s.call('POST', '/api/auth/api-token', { body: { apiKey: cred.apiKey, apiSecret: cred.apiSecret } }))
      .body.token;
  });
  afterAll(async () => s?.stop());

  it('refuses loopback targets in any spelling, naming the host, and registers none of them', async () => {
    const cases: [string, string][] = [
      ['http://127.0.0.1:8080/hook', '127.0.0.1'],
      ['http://127.1/hook', '127.0.0.1'],
      ['http://2130706433/hook', '127.0.0.1'],
      ['https://[::1]:8443/hook', '::1'],
      ['http://[::ffff:127.0.0.1]/hook', '::ffff:7f00:1'],
      ['http://LOCALHOST./hook', 'localhost'],
      ['http://api.localhost:3000/hook', 'api.localhost'],
      ['http://0.0.0.0:3000/hook', '0.0.0.0'],
    ];
    for (const [url, host] of cases) {
      const res = await s.call('POST', '/api/v1/webhooks', { token: op, body: { url } });
      expect(res.status, url).toBe(400);
      expect(res.body.error, url).toBe('webhook_target_forbidden');
      expect(res.body.detail, url).toContain(`(${host})`);
    }
    const list = await s.call('GET', '/api/v1/webhooks', { token: op });
    expect(list.body.data).toEqual([]);
  });

  it('registers other hosts, including names that merely contain "localhost" or "127"', async () => {
    for (const url of [
      'https://hooks.example.com/platform',
      'https://localhost.example.com/hook',
      'http://127.example.net/hook',
      'http://10.0.0.5:8080/hook',
    ]) {
      const res = await s.call('POST', '/api/v1/webhooks', { token: op, body: { url } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.url).toBe(url);
    }
  });
});

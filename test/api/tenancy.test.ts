/**
 * Tenant resolution as docs/api.md §5.6, as a table over real HTTP requests (headers set exactly,
 * including requests with no Host at all). `/api/auth/bootstrap` without a body is tenant-gated
 * and then needs a credential: 401 means "resolved", 404 "no tenant", 410 "suspended".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { ensureTenant } from '../../db/seed.js';
import { startStack, type Stack } from '../support/stack.js';

/** A raw request whose headers are exactly `headers` (no automatic Host). */
function raw(baseUrl: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const u = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: u.hostname, port: u.port, path, method: 'POST', headers, setHost: false },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('tenant resolution (docs/api.md §5.6)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ worker: false });
    await ensureTenant(s.orm, {
      slug: 'platform',
      displayName: 'Platform',
      origins: ['https://app.platform.test'],
      isPlatform: true,
    });
    await ensureTenant(s.orm, {
      slug: 'acme',
      displayName: 'Acme DEX',
      origins: ['https://trade.acme.test', 'http://acme.localhost:3000'],
    });
    await ensureTenant(s.orm, {
      slug: 'frozen',
      displayName: 'Frozen',
      origins: ['https://frozen.test'],
      suspended: true,
    });
  });
  afterAll(async () => s?.stop());

  const RESOLVED = { status: 401, error: 'unauthorized' };
  const NO_TENANT = { status: 404, error: 'unknown_tenant_origin' };
  const SUSPENDED = { status: 410, error: 'tenant_suspended' };
  const table: [string, Record<string, string>, { status: number; error: string }][] = [
    ['a real slug', { 'x-tenant-slug': 'acme' }, RESOLVED],
    ['a real slug beats an unregistered origin', { 'x-tenant-slug': 'acme', origin: 'https://evil.test' }, RESOLVED],
    [
      'an unknown slug falls through to a registered origin',
      { 'x-tenant-slug': 'nope', origin: 'https://trade.acme.test' },
      RESOLVED,
    ],
    [
      'an unknown slug with an unregistered origin',
      { 'x-tenant-slug': 'nope', origin: 'https://evil.test' },
      NO_TENANT,
    ],
    ['an unknown slug and nothing else falls through to the platform', { 'x-tenant-slug': 'nope' }, RESOLVED],
    ['a registered origin', { origin: 'https://trade.acme.test' }, RESOLVED],
    ['an origin is compared as an origin (case, default port)', { origin: 'HTTPS://TRADE.ACME.TEST:443' }, RESOLVED],
    ['an unregistered origin', { origin: 'https://evil.test' }, NO_TENANT],
    ['Host when there is no Origin', { host: 'acme.localhost:3000' }, RESOLVED],
    ['an unregistered Host', { host: 'unknown.localhost:3000' }, NO_TENANT],
    ["the platform's own origin", { origin: 'https://app.platform.test' }, RESOLVED],
    ['neither Origin nor Host: the platform default', {}, RESOLVED],
    ["a suspended tenant's slug still resolves, then 410", { 'x-tenant-slug': 'frozen' }, SUSPENDED],
    ["a suspended tenant's origin", { origin: 'https://frozen.test' }, SUSPENDED],
  ];

  it.each(table)('%s', async (_name, headers, expected) => {
    const res = await raw(s.api.baseUrl, '/api/auth/bootstrap', headers);
    expect({ status: res.status, error: res.body?.error }).toEqual(expected);
  });

  it('exempt paths answer without a tenant', async () => {
    const res = await fetch(`${s.api.baseUrl}/api/v1/discovery`, { headers: { origin: 'https://evil.test' } });
    expect(res.status).toBe(200);
    const mint = await fetch(`${s.api.baseUrl}/api/auth/api-token`, {
      method: 'POST',
      headers: { origin: 'https://evil.test', 'content-type': 'application/json' },
      body: JSON.stringify({ apiKey: 'x', apiSecret: 'y' }),
    });
    expect(mint.status).toBe(401);
    expect(((await mint.json()) as { error: string }).error).toBe('invalid_credentials');
  });
});

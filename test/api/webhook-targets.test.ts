/**
 * Webhook targets (issue 16, SSRF; docs/api.md §6.4; README "Configuration checks"): with
 * WEBHOOK_ALLOW_PRIVATE=false (the default; `true` is refused with NODE_ENV=production):
 * - `POST /api/v1/webhooks` refuses every loopback, private, link-local, multicast, unspecified and
 *   reserved target, in every spelling the URL parser normalises, with `400 webhook_target_forbidden`
 *   and registers nothing; public hosts are registered as before;
 * - a delivery checks again after DNS: an endpoint whose name resolves to 127.0.0.1 is never
 *   reached, its deliveries show `forbidden_target`, and it cannot be re-enabled;
 * - the delivery's connection (modules/webhooks/activities/receiver.ts) resolves once, refuses a
 *   name with any non-public address, connects to the address it checked with the URL's host as
 *   `Host` and TLS server name, and names failures with short classes, never error messages.
 * (With it true, as the test stacks run, test/api/webhooks.test.ts delivers to receivers on 127.0.0.1.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { createSecureContext } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WebhookEndpoint } from '../../db/entities.js';
import { scoped } from '../../db/orm.js';
import { parseKeyRing, seal } from '../../domain/custody/vault.js';
import { deliveryErrorClass, postToReceiver, type Resolve } from '../../modules/webhooks/activities/receiver.js';
import { startStack, TEST_AGENT_KEYS, type Stack } from '../support/stack.js';
import { publish, recordedTick } from '../support/marks.js';
import { waitFor } from '../support/wait.js';
import { makeCertificates } from '../temporal/certs.js';

/** An HTTP server on 127.0.0.1 answering `status` (after `delayMs`), keeping each request's headers. */
async function receiver(status = 204, delayMs = 0) {
  const got: IncomingMessage['headers'][] = [];
  const server: Server = createServer((req, res) => {
    got.push(req.headers);
    setTimeout(() => res.writeHead(status).end(), delayMs);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { port, got, close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

/** A resolver answering `addresses` for every name, counting its calls. */
function resolver(...addresses: string[]): Resolve & { calls: string[] } {
  const calls: string[] = [];
  return Object.assign(
    async (hostname: string) => {
      calls.push(hostname);
      return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    },
    { calls },
  );
}

describe('webhook targets with WEBHOOK_ALLOW_PRIVATE=false', () => {
  let s: Stack;
  let op: string;
  beforeAll(async () => {
    // One attempt per delivery within the test (the first retry would wait a minute).
    s = await startStack({ env: { WEBHOOK_ALLOW_PRIVATE: 'false', WEBHOOK_INITIAL_BACKOFF_MS: '60000' } });
    op = (await s.operator(['tenant:config'])).token;
  });
  afterAll(async () => s?.stop());

  it('refuses every non-public target in any spelling, naming the host and its range, and registers none of them', async () => {
    const cases: [url: string, host: string, range: string][] = [
      ['http://127.0.0.1:8080/hook', '127.0.0.1', 'loopback'],
      ['http://127.1/hook', '127.0.0.1', 'loopback'],
      ['http://2130706433/hook', '127.0.0.1', 'loopback'],
      ['http://0x7f000001/hook', '127.0.0.1', 'loopback'],
      ['http://0177.0.0.1/hook', '127.0.0.1', 'loopback'],
      ['http://127.0.0.1:5432/', '127.0.0.1', 'loopback'],
      ['https://[::1]:8443/hook', '::1', 'loopback'],
      ['http://[::ffff:127.0.0.1]/hook', '::ffff:7f00:1', 'loopback'],
      ['http://LOCALHOST./hook', 'localhost', 'loopback'],
      ['http://api.localhost:3000/hook', 'api.localhost', 'loopback'],
      ['http://169.254.169.254/latest/meta-data/', '169.254.169.254', 'linkLocal'],
      ['http://[::ffff:169.254.169.254]/', '::ffff:a9fe:a9fe', 'linkLocal'],
      ['http://[fe80::1]/hook', 'fe80::1', 'linkLocal'],
      ['http://10.0.0.5:8080/hook', '10.0.0.5', 'private'],
      ['http://172.16.3.4/hook', '172.16.3.4', 'private'],
      ['http://0xc0.0xa8.1.1/hook', '192.168.1.1', 'private'],
      ['http://[64:ff9b::a00:5]/hook', '64:ff9b::a00:5', 'private'],
      ['http://100.64.0.1/hook', '100.64.0.1', 'carrierGradeNat'],
      ['http://[fd00::5]/hook', 'fd00::5', 'uniqueLocal'],
      ['http://224.0.0.1/hook', '224.0.0.1', 'multicast'],
      ['http://[ff02::1]/hook', 'ff02::1', 'multicast'],
      ['http://0.0.0.0:3000/hook', '0.0.0.0', 'unspecified'],
      ['http://[::]/hook', '::', 'unspecified'],
      ['http://255.255.255.255/hook', '255.255.255.255', 'broadcast'],
      ['http://240.0.0.1/hook', '240.0.0.1', 'reserved'],
      ['http://192.0.2.1/hook', '192.0.2.1', 'reserved'],
      ['http://[::7f00:1]/hook', '::7f00:1', 'ipv4Compatible'],
    ];
    for (const [url, host, range] of cases) {
      const res = await s.call('POST', '/api/v1/webhooks', { token: op, body: { url } });
      expect(res.status, url).toBe(400);
      expect(res.body.error, url).toBe('webhook_target_forbidden');
      expect(res.body.detail, url).toContain(`a ${range} host (${host})`);
    }
    expect((await s.call('GET', '/api/v1/webhooks', { token: op })).body.data).toEqual([]);
    expect(await scoped(s.orm, s.tenant.id).count(WebhookEndpoint, {})).toBe(0);
  });

  it('registers public hosts, including names that merely contain "localhost" or "127"', async () => {
    for (const url of [
      'https://hooks.example.com/platform',
      'https://localhost.example.com/hook',
      'http://127.example.net/hook',
      'http://8.8.8.8/hook',
      'https://[2606:4700:4700::1111]/hook',
    ]) {
      const res = await s.call('POST', '/api/v1/webhooks', { token: op, body: { url } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.url).toBe(url);
      // Disabled at once: no delivery leaves this machine.
      await s.call('POST', `/api/v1/webhooks/${res.body.id}/disable`, { token: op });
    }
  });

  it('refuses at connect time a name that resolves to 127.0.0.1: the receiver hears nothing, the deliveries show forbidden_target, re-enabling is refused', async () => {
    const r = await receiver();
    try {
      // As registered while WEBHOOK_ALLOW_PRIVATE was true (or a public name whose DNS now answers 127.0.0.1).
      const em = scoped(s.orm, s.tenant.id);
      const id = 'whe_resolves_loopback';
      em.create(
        WebhookEndpoint,
        {
          id,
          tenantId: s.tenant.id,
          url: `http://localhost:${r.port}/hook`,
          events: ['*'],
          sealedSecret: seal(parseKeyRing(TEST_AGENT_KEYS), 'whsec_test'),
          sealedApiKey: null,
          status: 'enabled',
          lastEventId: '0',
        },
        { partial: true },
      );
      await em.flush();
      await publish(s.orm, await recordedTick('ETH.PAPER', 0.5));
      const t = await s.trader();
      const order = { venue: 'paper', symbol: 'ETH.PAPER', side: 'buy', type: 'market', qty: '0.01' };
      expect((await s.call('POST', '/api/v1/oms/intents', { token: t.token, body: order })).status).toBe(201);
      const deliveries = await waitFor(
        async () => (await s.call('GET', `/api/v1/webhooks/${id}/deliveries`, { token: op })).body.data as unknown[],
        (d) => d.length >= 3,
        20_000,
      );
      for (const d of deliveries)
        expect(d).toMatchObject({ status: 'pending', attempts: 1, lastStatus: null, lastError: 'forbidden_target' });
      expect(r.got).toEqual([]);

      await s.call('POST', `/api/v1/webhooks/${id}/disable`, { token: op });
      const enable = await s.call('POST', `/api/v1/webhooks/${id}/enable`, { token: op });
      expect(enable).toMatchObject({ status: 400, body: { error: 'webhook_target_forbidden' } });
      expect(enable.body.detail).toContain('a loopback host (localhost)');
      expect((await s.call('GET', `/api/v1/webhooks/${id}`, { token: op })).body.status).toBe('disabled');
    } finally {
      await r.close();
    }
  });
});

describe('the delivery connection (receiver.ts)', () => {
  const post = (url: string, o: { allowPrivate?: boolean; resolve?: Resolve; timeoutMs?: number } = {}) =>
    postToReceiver({ url, headers: {}, body: '{}', timeoutMs: 2_000, allowPrivate: false, ...o }).then(
      (status) => `http_${status}`,
      deliveryErrorClass,
    );

  it('resolves a name once and refuses it when any address is not public, before connecting', async () => {
    const r = await receiver();
    try {
      for (const addresses of [
        ['127.0.0.1'],
        ['93.184.216.34', '127.0.0.1'],
        ['::1'],
        ['10.1.2.3'],
        ['169.254.169.254'],
      ]) {
        const dns = resolver(...addresses);
        expect(await post(`http://hook.example:${r.port}/hook`, { resolve: dns }), addresses.join()).toBe(
          'forbidden_target',
        );
        expect(dns.calls).toEqual(['hook.example']);
      }
      expect(await post(`http://127.0.0.1:${r.port}/hook`)).toBe('forbidden_target');
      expect(r.got).toEqual([]);
    } finally {
      await r.close();
    }
  });

  it('connects to the address it resolved and checked, with the URL host as Host', async () => {
    const r = await receiver(202);
    try {
      const dns = resolver('127.0.0.1');
      expect(await post(`http://hook.example:${r.port}/in`, { allowPrivate: true, resolve: dns })).toBe('http_202');
      expect(dns.calls).toEqual(['hook.example']);
      expect(r.got.map((h) => h.host)).toEqual([`hook.example:${r.port}`]);
    } finally {
      await r.close();
    }
  });

  it('keeps the URL host as the TLS server name and checks its certificate (tls)', async () => {
    // A certificate of a CA the platform does not trust (test/temporal/certs.ts, made with openssl).
    const dir = mkdtempSync(path.join(tmpdir(), 'webhook-tls-'));
    const certs = makeCertificates(dir);
    const tls = { key: readFileSync(certs.serverKeyFile), cert: readFileSync(certs.serverCertFile) };
    const names: string[] = [];
    const server = createTlsServer({
      ...tls,
      SNICallback: (name, cb) => (names.push(name), cb(null, createSecureContext(tls))),
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as AddressInfo).port;
      expect(
        await post(`https://hook.example:${port}/in`, { allowPrivate: true, resolve: resolver('127.0.0.1') }),
      ).toBe('tls');
      expect(names).toEqual(['hook.example']);
    } finally {
      await new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r())));
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names failures by short classes, never by their messages', async () => {
    const slow = await receiver(200, 1_000);
    const failing = await receiver(503);
    const closed = await receiver();
    await closed.close();
    try {
      const local = { allowPrivate: true };
      const notFound: Resolve = () =>
        Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }));
      expect(await post(`http://127.0.0.1:${closed.port}/`, local)).toBe('connect_refused');
      expect(await post(`http://127.0.0.1:${slow.port}/`, { ...local, timeoutMs: 200 })).toBe('timeout');
      expect(await post(`http://127.0.0.1:${failing.port}/`, local)).toBe('http_503');
      expect(await post('http://nowhere.example/', { resolve: notFound })).toBe('dns');
      expect(deliveryErrorClass(new Error('something unexpected at 10.0.0.5:5432'))).toBe('network');
    } finally {
      await slow.close();
      await failing.close();
    }
  });
});

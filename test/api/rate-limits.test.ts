/**
 * Issue 16 items 12, 14, 16: request rate limits per credential and per client IP, counted in PostgreSQL
 * across api processes (docs/api.md §8 "Rate limits"); failed secret checks of the mint throttled before
 * their scrypt; a revocation refuses bootstrap and closes `/ws/risk` at once; a cancel of another trader's
 * order is answered as an unknown order.
 */
import http from 'node:http';
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import type { MikroORM } from '@mikro-orm/postgresql';
import { openOrm, platformEm } from '../../db/orm.js';
import { revokeCredential } from '../../db/seed.js';
import { startApi, type RunningApi } from '../../api/server.js';
import type { Config } from '../../config.js';
import { startStack, type Stack } from '../support/stack.js';
import { extremeTicks, publish } from '../support/marks.js';
import { openRisk } from '../support/ws.js';
import { waitFor } from '../support/wait.js';

interface Answer {
  status: number;
  body: any;
  headers: http.IncomingHttpHeaders;
}

/** A loopback source address of this test alone (127.a.b.c), so its per-IP counters start at zero. */
const freshAddress = () => `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;

/** An HTTP call to `baseUrl` sent from the local address `from`. */
function callFrom(
  from: string,
  baseUrl: string,
  method: string,
  path: string,
  opts: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const url = new URL(path, baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        localAddress: from,
        headers: { 'content-type': 'application/json', ...opts.headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined, headers: res.headers }),
        );
      },
    );
    req.on('error', reject);
    req.end(opts.body === undefined ? undefined : JSON.stringify(opts.body));
  });
}

/** The api's secret checks so far, of either outcome (`platform_auth_secret_checks_total`, api/ops/metrics.ts). */
async function secretChecks(baseUrl: string): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  return [...text.matchAll(/^platform_auth_secret_checks_total\{[^}]*\} (\d+)$/gm)].reduce(
    (sum, m) => sum + Number(m[1]),
    0,
  );
}

describe('rate limits and revocation', () => {
  let s: Stack;
  /** Two more api processes of one deployment with low limits: 2 requests per second and a burst of 3. */
  let apis: RunningApi[] = [];
  let secondOrm: MikroORM;
  let low: Config;
  beforeAll(async () => {
    s = await startStack({ env: { RATE_LIMIT_SECRET_FAILURES_PER_MINUTE: '3' } });
    low = {
      ...s.config,
      rateLimits: { ...s.config.rateLimits, perSecond: 2, burst: 3, ipPerSecond: 2, ipBurst: 3 },
    };
    secondOrm = await openOrm(s.config.databaseUrl);
    const logger = pino({ level: 'silent' });
    apis = [
      await startApi({ config: low, orm: s.orm, logger }),
      await startApi({ config: low, orm: secondOrm, logger }),
    ];
  });
  afterAll(async () => {
    for (const api of apis) await api.stop();
    await secondOrm?.close();
    await s?.stop();
  });

  /** Gives a credential its own limit of 1,000 per second and a burst of 1,000. */
  const liftLimit = (credentialId: string) =>
    platformEm(s.orm)
      .getConnection()
      .execute('update credentials set rate_limit_per_second = 1000, rate_limit_burst = 1000 where id = ?', [
        credentialId,
      ]);

  /** `n` requests at once, alternating between the two low-limit apis. */
  const burst = (n: number, path: string, headers: Record<string, string>, from = '127.0.0.1') =>
    Promise.all(
      Array.from({ length: n }, (_, i) =>
        callFrom(from, apis[i % 2].baseUrl, 'GET', path, { headers }).then((a) => ({ ...a, api: i % 2 })),
      ),
    );

  it('counts a credential across api processes: over its limit, 429 rate_limited with Retry-After', async () => {
    const t = await s.trader();
    const headers = { 'x-tenant-slug': s.tenant.slug, authorization: `Bearer ${t.token}` };
    const answers = await burst(16, '/api/v1/accounts', headers);
    const ok = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 429);
    // 2 per second + a burst of 3, counted once for both processes (each counting alone would pass 10);
    // the one-second window may roll over once while the 16 are answered.
    expect(ok.length).toBeGreaterThanOrEqual(5);
    expect(ok.length).toBeLessThanOrEqual(7);
    expect(ok.length + refused.length).toBe(16);
    expect(new Set(refused.map((a) => a.api))).toEqual(new Set([0, 1]));
    expect(ok[0].headers['x-ratelimit-limit']).toBe('2');
    const r = refused[0];
    expect(r.body).toEqual({ error: 'rate_limited', detail: expect.any(String), retryAfter: 1 });
    expect(r.headers['retry-after']).toBe('1');
    expect(r.headers).toMatchObject({
      'x-ratelimit-limit': '2',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '1',
    });

    // After Retry-After the next second's requests pass again.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await callFrom('127.0.0.1', apis[1].baseUrl, 'GET', '/api/v1/accounts', { headers })).status).toBe(200);
  });

  it("a credential's own limit lifts the deployment's", async () => {
    const t = await s.trader();
    await liftLimit(t.credentialId);
    const answers = await burst(16, '/api/v1/accounts', {
      'x-tenant-slug': s.tenant.slug,
      authorization: `Bearer ${t.token}`,
    });
    expect(answers.map((a) => a.status)).toEqual(Array(16).fill(200));
    expect(answers[0].headers['x-ratelimit-limit']).toBe('1000');
  });

  it('far below its limit a caller is answered from memory, and its requests still reach the shared count', async () => {
    const t = await s.trader();
    await liftLimit(t.credentialId);
    const headers = { 'x-tenant-slug': s.tenant.slug, authorization: `Bearer ${t.token}` };
    const answers = await burst(10, '/api/v1/accounts', headers);
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    // Each process sends its batch within FLUSH_MS: PostgreSQL's per-second counter holds all ten.
    const counted = await waitFor(
      () =>
        platformEm(s.orm)
          .getConnection()
          .execute<{ points: number }[]>(`select points from rate_limits where key = ?`, [
            `rl:1000/1:cred:${t.credentialId}`,
          ]),
      (rows) => rows[0]?.points === 10,
      900,
    );
    expect(counted[0].points).toBe(10);
  });

  it('counts requests without a credential per client IP', async () => {
    const from = freshAddress();
    const answers = await burst(12, '/api/v1/discovery', {}, from);
    const refused = answers.filter((a) => a.status === 429);
    expect(answers.length - refused.length).toBeLessThanOrEqual(7);
    expect(refused[0].body).toMatchObject({ error: 'rate_limited', retryAfter: 1 });
    // Another address has its own count.
    expect((await callFrom(freshAddress(), apis[0].baseUrl, 'GET', '/api/v1/discovery')).status).toBe(200);
  });

  it('throttles failed secret checks per API key and per IP before any scrypt', async () => {
    const mint = (from: string, apiKey: string, apiSecret: string) =>
      callFrom(from, s.api.baseUrl, 'POST', '/api/auth/api-token', { body: { apiKey, apiSecret } });
    const scrypts = () => secretChecks(s.api.baseUrl);
    const t = await s.trader();
    // Per key: 3 failed checks a minute (RATE_LIMIT_SECRET_FAILURES_PER_MINUTE=3 on this stack), from anywhere.
    const start = await scrypts();
    for (let i = 0; i < 3; i++)
      expect((await mint(freshAddress(), t.apiKey, 'wrong')).body.error).toBe('invalid_credentials');
    const before = await scrypts();
    expect(before - start).toBe(3);
    const locked = await mint(freshAddress(), t.apiKey, t.apiSecret);
    expect(locked).toMatchObject({ status: 429, body: { error: 'rate_limited', detail: expect.any(String) } });
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(locked.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(locked.body.retryAfter).toBe(Number(locked.headers['retry-after']));
    expect((await mint(freshAddress(), t.apiKey, 'wrong')).status).toBe(429);
    expect(await scrypts()).toBe(before); // refused before the secret was checked

    // Per IP: 3 failed checks, each on another key; then even a right secret from that IP waits.
    const from = freshAddress();
    for (let i = 0; i < 3; i++)
      expect((await mint(from, (await s.trader()).apiKey, 'wrong')).body.error).toBe('invalid_credentials');
    const other = await s.trader();
    const checks = await scrypts();
    expect(await mint(from, other.apiKey, other.apiSecret)).toMatchObject({
      status: 429,
      body: { error: 'rate_limited' },
    });
    expect(await scrypts()).toBe(checks);
    // The same credential from another address mints; a success clears nothing it should not.
    expect((await mint(freshAddress(), other.apiKey, other.apiSecret)).status).toBe(200);
  });

  it('a revoked credential: bootstrap refused at once, its open /ws/risk socket closed at once', async () => {
    const t = await s.trader();
    const bootstrap = () => s.call('POST', '/api/auth/bootstrap', { token: t.token });
    const hs = (await bootstrap()).body.data.riskEngineWss;
    const spare = (await bootstrap()).body.data.riskEngineWss;
    const ws = await openRisk(hs.endpoint, { 'x-tenant-slug': s.tenant.slug });
    ws.send({ type: 'Authenticate', token: hs.token });
    await ws.next((f) => f.type === 'Authenticated');

    const revokedAt = Date.now();
    await revokeCredential(s.orm, s.tenant.id, t.credentialId);
    expect(await bootstrap()).toMatchObject({ status: 401, body: { error: 'credential_revoked' } });
    // The stack re-checks every 5 s; the NOTIFY closes the socket well before that.
    expect(await ws.next((f) => f.type === 'Result' && f.ok === false, 1000)).toMatchObject({
      error: 'credential_revoked',
    });
    expect((await ws.closed).code).toBe(4401);
    expect(Date.now() - revokedAt).toBeLessThan(1000);

    // A token bootstrapped before the revocation no longer opens a socket.
    const late = await openRisk(spare.endpoint, { 'x-tenant-slug': s.tenant.slug });
    late.send({ type: 'Authenticate', token: spare.token });
    expect(await late.next((f) => f.type === 'Result' && f.ok === false)).toMatchObject({
      error: 'credential_revoked',
    });
    expect((await late.closed).code).toBe(4401);
  });

  it("a cancel of another trader's venueOrderId is 404 order_not_found, like an unknown order", async () => {
    const { low: lowTick, high } = await extremeTicks('ETH.PAPER');
    await publish(s.orm, high);
    const owner = await s.trader();
    const stranger = await s.trader('liquidation');
    const composed = await s.call('POST', '/api/v1/oms/intents', {
      token: owner.token,
      body: {
        venue: 'paper',
        symbol: 'ETH.PAPER',
        side: 'buy',
        type: 'limit',
        price: lowTick.mark.minus(50).toDecimalPlaces(1).toFixed(),
        qty: '0.1',
      },
    });
    expect(composed.status).toBe(201);
    const resting = await waitFor(
      () => s.call('GET', `/api/v1/oms/intents/${composed.body.intentId}`, { token: owner.token }),
      (x) => x.body.orderStatus === 'open',
    );
    const cancel = (token: string, venueOrderId: string) =>
      s.call('POST', '/api/v1/oms/cancel', { token, body: { venueOrderId } });
    const theirs = await cancel(stranger.token, resting.body.venueOrderId);
    const unknown = await cancel(stranger.token, 'paper-no-such-order');
    expect(theirs).toMatchObject({ status: 404, body: { error: 'order_not_found' } });
    expect(unknown).toMatchObject({ status: 404, body: { error: 'order_not_found' } });
    expect(Object.keys(theirs.body)).toEqual(Object.keys(unknown.body));
    // Still working: the owner cancels it.
    expect((await cancel(owner.token, resting.body.venueOrderId)).body).toMatchObject({ ok: true, state: 'canceled' });
  });
});

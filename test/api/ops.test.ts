/**
 * Health, readiness and metrics of the api and the worker (README "Operating it"), against a real stack:
 * /healthz and /readyz with both dependencies up; /readyz naming Temporal, then PostgreSQL, when an api
 * process can no longer reach it (a TCP forwarder in front of the shared server is cut); the api's
 * /metrics (route templates, compose outcomes, idempotent replays, open sockets); the worker's ops
 * server (/readyz with its pollers running, dispatch latency and terminal states after a fill); and the
 * frame counters of a backed-up consumer over a real socket pair.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { WebSocket, WebSocketServer } from 'ws';
import type { AddressInfo } from 'node:net';
import type { Config } from '../../config.js';
import { startApi } from '../../api/server.js';
import { createApiMetrics } from '../../api/ops/metrics.js';
import { Outbox } from '../../api/ws/outbox.js';
import { startStack, type Stack } from '../support/stack.js';
import { publish, recordedTick } from '../support/marks.js';
import { openRisk } from '../support/ws.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { waitFor } from '../support/wait.js';

/** The value of the sample `name{labels}` (exactly these labels) in Prometheus text, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (
      Object.keys(got).length === Object.keys(labels).length &&
      Object.entries(labels).every(([k, v]) => got[k] === v)
    )
      return Number(m[3]);
  }
  return undefined;
}

const get = async (url: string) => {
  const res = await fetch(url);
  const text = await res.text();
  return {
    status: res.status,
    type: res.headers.get('content-type') ?? '',
    text,
    body: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined,
  };
};

describe('operations: health, readiness, metrics', () => {
  let s: Stack;
  const metrics = async () => (await get(`${s.api.baseUrl}/metrics`)).text;
  beforeAll(async () => {
    s = await startStack();
  });
  afterAll(async () => s?.stop());

  it('answers /healthz and /readyz with both dependencies up, without a tenant, and documents them', async () => {
    expect(await get(`${s.api.baseUrl}/healthz`)).toMatchObject({ status: 200, body: { ok: true } });
    expect(await get(`${s.api.baseUrl}/readyz`)).toMatchObject({
      status: 200,
      body: { ok: true, checks: { postgres: 'up', temporal: 'up' } },
    });
    const doc = (await get(`${s.api.baseUrl}/api/v1/openapi.json`)).body;
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/healthz', '/readyz', '/metrics']));
    expect(Object.keys(doc.paths['/readyz'].get.responses)).toEqual(expect.arrayContaining(['200', '503']));
  });

  it('labels request durations with the route template, never the raw URL', async () => {
    const t = await s.trader();
    const res = await s.call('GET', '/api/v1/oms/intents/int_00000000000000000000', { token: t.token });
    expect(res.status).toBe(404);
    await s.call('GET', '/no/such/route/12345');
    const text = await metrics();
    expect(text).toMatch(/^# TYPE platform_http_request_duration_seconds histogram$/m);
    expect(
      sample(text, 'platform_http_request_duration_seconds_count', {
        method: 'GET',
        route: '/api/v1/oms/intents/:id',
        status: '404',
      }),
    ).toBe(1);
    expect(
      sample(text, 'platform_http_request_duration_seconds_count', {
        method: 'GET',
        route: 'unmatched',
        status: '404',
      }),
    ).toBe(1);
    expect(text).not.toContain('int_00000000000000000000');
    expect(text).not.toContain('12345');
    expect(text).toMatch(/^process_cpu_user_seconds_total /m); // the default process metrics
  });

  it('counts open /ws/quotes sockets up on connect and down on close', async () => {
    const open = async () => sample(await metrics(), 'platform_ws_open_sockets', { channel: 'quotes' });
    expect(await open()).toBe(0);
    const ws = await openRisk(`${s.api.baseUrl.replace('http', 'ws')}/ws/quotes`, {});
    ws.send({ type: 'Ping' });
    await ws.next((f) => f.type === 'Pong');
    expect(await open()).toBe(1);
    expect(sample(await metrics(), 'platform_ws_frames_sent_total', { channel: 'quotes' })).toBeGreaterThanOrEqual(1);
    ws.close();
    await ws.closed;
    await waitFor(open, (n) => n === 0);
  });

  it('counts compose outcomes and idempotent replays; the worker reports the dispatch latency and the fill', async () => {
    await publish(s.orm, await recordedTick('BTC.PAPER', 0));
    const t = await s.trader();
    const order = { venue: 'paper', symbol: 'BTC.PAPER', side: 'buy', type: 'market', qty: '0.01' };
    const headers = { 'idempotency-key': `ops-test-${t.accountId}` };
    const first = await s.call('POST', '/api/v1/oms/intents', { token: t.token, body: order, headers });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const replay = await s.call('POST', '/api/v1/oms/intents', { token: t.token, body: order, headers });
    expect(replay.headers.get('idempotency-replay')).toBe('true');
    const refused = await s.call('POST', '/api/v1/oms/intents', {
      token: t.token,
      body: { ...order, symbol: 'NOPE.PAPER' },
    });
    expect(refused.body.error).toBe('symbol_unknown');
    const api = await metrics();
    expect(sample(api, 'platform_oms_compose_total', { outcome: 'created' })).toBe(1);
    expect(sample(api, 'platform_oms_compose_total', { outcome: 'symbol_unknown' })).toBe(1);
    expect(sample(api, 'platform_idempotency_replays_total', { route: '/api/v1/oms/intents' })).toBe(1);

    await waitFor(
      () => s.call('GET', `/api/v1/oms/intents/${first.body.intentId}`, { token: t.token }),
      (r) => r.body.state === 'filled',
    );
    const opsUrl = s.worker!.opsUrl;
    expect(await get(`${opsUrl}/healthz`)).toMatchObject({ status: 200, body: { ok: true } });
    expect(await get(`${opsUrl}/readyz`)).toMatchObject({
      status: 200,
      body: { ok: true, checks: { postgres: 'up', temporal: 'up', worker: 'up' } },
    });
    const worker = await get(`${opsUrl}/metrics`);
    expect(worker.type).toContain('text/plain');
    expect(sample(worker.text, 'platform_venue_dispatch_seconds_count', { venue: 'paper' })).toBe(1);
    expect(sample(worker.text, 'platform_venue_dispatch_seconds_sum', { venue: 'paper' })).toBeGreaterThan(0);
    expect(sample(worker.text, 'platform_intents_terminal_total', { venue: 'paper', state: 'filled' })).toBe(1);
    expect(worker.text).toMatch(/^nodejs_heap_size_used_bytes /m);
    expect(worker.text).not.toContain('temporal_'); // the test Runtime has no Prometheus exporter
    expect(await get(`${opsUrl}/nope`)).toMatchObject({ status: 404, body: { error: 'not_found' } });
  });

  /**
   * Starts a second api that reaches `dep` through a TCP proxy; checks it is ready (200), cuts the proxy and
   * checks `/readyz` answers 503 `not_ready` naming `dep` down and the other dependency up, with a detail
   * starting `<dep> down: `; then runs `after` with the api's base URL and the proxy, and stops both.
   */
  async function withDependencyCut(
    dep: 'postgres' | 'temporal',
    after: (baseUrl: string, proxy: TcpProxy) => Promise<void>,
  ) {
    let proxy: TcpProxy;
    let config: Config;
    if (dep === 'temporal') {
      proxy = await startTcpProxy(s.config.temporal.address);
      config = { ...s.config, temporal: { ...s.config.temporal, address: proxy.address } };
    } else {
      const url = new URL(s.config.databaseUrl);
      proxy = await startTcpProxy(`${url.hostname}:${url.port || 5432}`);
      Object.assign(url, { hostname: '127.0.0.1', port: String(proxy.port) });
      config = { ...s.config, databaseUrl: url.toString() };
    }
    const api = await startApi({ config, orm: s.orm, logger: pino({ level: 'silent' }) });
    try {
      expect((await get(`${api.baseUrl}/readyz`)).status).toBe(200);
      await proxy.cut();
      const down = await get(`${api.baseUrl}/readyz`);
      const checks = dep === 'temporal' ? { postgres: 'up', temporal: 'down' } : { postgres: 'down', temporal: 'up' };
      expect(down).toMatchObject({ status: 503, body: { error: 'not_ready', checks } });
      expect(down.body.detail).toMatch(new RegExp(`^${dep} down: `));
      await after(api.baseUrl, proxy);
    } finally {
      await api.stop();
      await proxy.stop();
    }
  }

  it('answers 503 naming temporal when this api can no longer reach Temporal', async () => {
    await withDependencyCut('temporal', async (baseUrl) => {
      expect((await get(`${baseUrl}/healthz`)).status).toBe(200); // alive all the same
    });
  });

  it('answers 503 naming postgres when this api can no longer reach PostgreSQL, and 200 once it can again', async () => {
    await withDependencyCut('postgres', async (baseUrl, proxy) => {
      await proxy.restore();
      expect(await get(`${baseUrl}/readyz`)).toMatchObject({
        status: 200,
        body: { checks: { postgres: 'up', temporal: 'up' } },
      });
    });
  });
});

describe('WebSocket frame counters', () => {
  it("count frames written, coalesced away and dropped with a slow consumer's backlog, and the socket while open", async () => {
    const metrics = createApiMetrics();
    const wss = new WebSocketServer({ port: 0 });
    const serverSide = new Promise<WebSocket>((r) => wss.once('connection', r));
    const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`);
    const frames: any[] = [];
    client.on('message', (raw) => frames.push(JSON.parse(String(raw))));
    await new Promise((r) => client.once('open', r));
    const server = await serverSide;
    const count = async (name: string, labels: Record<string, string>) =>
      sample(await metrics.registry.metrics(), name, { channel: 'market', ...labels }) ?? 0;
    try {
      const meter = metrics.socket(server, 'market');
      expect(await count('platform_ws_open_sockets', {})).toBe(1);
      (client as any)._socket.pause(); // the consumer stops reading
      const out = new Outbox(server, 64 << 20, meter);
      const filler = 'y'.repeat(64 * 1024);
      for (let i = 0; i < 200; i++) out.push({ type: 'Trades', filler }); // back the socket up
      for (let i = 0; i < 100; i++) out.push({ type: 'L2-Book', version: i }, 'l2Book:paper:BTC.PAPER');
      (client as any)._socket.resume();
      await waitFor(
        async () => frames.length,
        (n) => n === 201,
      );
      expect(await count('platform_ws_frames_dropped_total', { reason: 'coalesced' })).toBe(99);
      expect(await count('platform_ws_frames_sent_total', {})).toBe(201);

      (client as any)._socket.pause();
      const small = new Outbox(server, 256 * 1024, meter);
      for (let i = 0; i < 40_000; i++) small.push({ type: 'Trades', n: i, filler: 'x'.repeat(1024) });
      expect(small.resyncs).toBeGreaterThan(0);
      expect(await count('platform_ws_frames_dropped_total', { reason: 'slow_consumer' })).toBeGreaterThan(1000);
    } finally {
      client.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
    }
    await waitFor(
      () => count('platform_ws_open_sockets', {}),
      (n) => n === 0,
    );
  });
});

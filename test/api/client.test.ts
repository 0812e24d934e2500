/**
 * The TypeScript client (clients/typescript/, README "TypeScript client") against a real stack: the bearer minted
 * on first use, refreshed before it expires and once after a `401`; a market order composed and its fill seen on
 * `/ws/risk`; `Idempotency-Key` replays; a cursor collection walked page by page; `/ws/quotes`; and a socket
 * that loses its connection, bootstraps again, re-subscribes and asks for a resync.
 */
import { randomUUID } from 'node:crypto';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createClient, type ClientOptions, type MultivenueClient } from '@multivenue/client';
import type { Stack } from '../support/stack.js';
import { startStackWithMark } from '../support/trading.js';
import { startTcpProxy } from '../support/tcp-proxy.js';

/** A paper market buy of `qty` BTC.PAPER (contracts, decimal string) under `clientOrderId`. */
const marketBuy = (qty: string, clientOrderId = `client-${randomUUID()}`) => ({
  venue: 'paper' as const,
  symbol: 'BTC.PAPER',
  side: 'buy' as const,
  type: 'market' as const,
  qty,
  clientOrderId,
});

/**
 * A loopback forwarder to `target` (`host:port`) whose `freeze()` stops passing the server's bytes to the clients
 * of the connections open then (they stay open, silent: a dead peer); later connections pass as usual.
 */
async function freezableProxy(target: URL) {
  const open = new Set<{ client: net.Socket; upstream: net.Socket }>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    const pair = { client, upstream };
    open.add(pair);
    client.pipe(upstream);
    upstream.pipe(client);
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const)
      a.on('error', () => b.destroy()).on('close', () => (b.destroy(), open.delete(pair)));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    freeze: () => open.forEach(({ client, upstream }) => (upstream.unpipe(client), upstream.pause())),
    stop: () => (open.forEach(({ client }) => client.destroy()), new Promise<void>((r) => server.close(() => r()))),
  };
}

describe('TypeScript client', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStackWithMark('BTC.PAPER', 0.5);
  });
  afterAll(async () => s?.stop());

  /** A client of a new trader of the stack's tenant; `requests` records each answered request's `METHOD /path`. */
  async function traderClient(extra: Partial<ClientOptions> = {}) {
    const t = await s.trader();
    const requests: string[] = [];
    const client = createClient({
      baseUrl: s.api.baseUrl,
      tenantSlug: s.tenant.slug,
      apiKey: t.apiKey,
      apiSecret: t.apiSecret,
      fetch: async (request) => {
        const response = await fetch(request);
        requests.push(`${request.method} ${new URL(request.url).pathname}`);
        return response;
      },
      ...extra,
    });
    return { t, client, requests };
  }

  it('mints the bearer on first use, refreshes it before it expires, and once after a 401', async () => {
    let now = Date.now();
    const { t, client } = await traderClient({ now: () => now });
    expect(client.tokens.mints).toBe(0);
    const { accounts } = await client.get('/api/v1/accounts');
    expect(accounts.map((a) => a.accountId)).toContain(t.accountId);
    await client.get('/api/v1/accounts/{id}', { params: { path: { id: t.accountId! } } });
    expect(client.tokens.mints).toBe(1);
    const first = client.tokens.info!;
    expect(first).toMatchObject({ tokenType: 'Bearer', tier: 'fullTrading', accountId: t.accountId });

    // The clock past the bearer's expiry: the next call mints a new one before it is sent.
    now = Date.parse(first.expiresAt) + 1_000;
    await client.get('/api/v1/accounts');
    expect(client.tokens.mints).toBe(2);
    const second = client.tokens.info!.token;
    expect(second).not.toBe(first.token);

    // Revoked behind the client's back: the API answers 401 token_revoked, the client mints and retries once.
    now = Date.now();
    expect((await s.call('POST', '/api/auth/api-token/revoke', { body: { token: second } })).status).toBe(200);
    const state = await client.get('/api/v1/accounts/{id}/state', { params: { path: { id: t.accountId! } } });
    expect(state.accountId).toBe(t.accountId);
    expect(client.tokens.mints).toBe(3);
  });

  it('throws ApiError { status, error, detail } from the error body', async () => {
    const { client } = await traderClient();
    const refused = await client
      .post('/api/v1/oms/intents', { body: { ...marketBuy('0.01'), symbol: 'NOPE.PAPER' } })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 400, error: 'symbol_unknown' });
    const bad = createClient({ baseUrl: s.api.baseUrl, tenantSlug: s.tenant.slug, apiKey: 'tk_nope', apiSecret: 'x' });
    await expect(bad.get('/api/v1/accounts')).rejects.toMatchObject({ status: 401, error: 'invalid_credentials' });
  });

  it('composes a market order and sees it filled on /ws/risk', async () => {
    const { t, client } = await traderClient();
    const risk = client.risk({ topics: ['Order-Intent-Changed', 'Fills'] });
    try {
      await risk.ready;
      const order = marketBuy('0.01');
      const filled = risk.next(
        (f) =>
          f.type === 'Order-Intent-Update' && f.data.clientOrderId === order.clientOrderId && f.data.state === 'filled',
      );
      const intent = await client.post('/api/v1/oms/intents', { body: order });
      expect(intent).toMatchObject({ state: 'signed_pending_dispatch', clientOrderId: order.clientOrderId });
      const update = await filled;
      expect(update).toMatchObject({
        topic: 'Order-Intent-Changed',
        accountId: t.accountId,
        data: { intentId: intent.intentId, filledQty: '0.01', venueOrderId: `paper-${intent.intentId}` },
      });
      const fill = await risk.next(
        (f) => f.type === 'Fill' && 'fillId' in f.data && f.data.intentId === intent.intentId,
        {
          recent: true,
        },
      );
      expect(fill).toMatchObject({ topic: 'Fills', data: { side: 'buy', qty: '0.01' } });
    } finally {
      await risk.close();
    }
  });

  it('sends an Idempotency-Key on documented writes: the same key replays, another payload conflicts', async () => {
    const { client } = await traderClient();
    const key = `key-${randomUUID()}`;
    const order = marketBuy('0.01');
    const first = await client.api.POST('/api/v1/oms/intents', {
      params: { header: { 'Idempotency-Key': key } },
      body: order,
    });
    const again = await client.api.POST('/api/v1/oms/intents', {
      params: { header: { 'Idempotency-Key': key } },
      body: order,
    });
    expect(first.response.status).toBe(201);
    expect(first.response.headers.get('idempotency-replay')).toBeNull();
    expect(again.response.headers.get('idempotency-replay')).toBe('true');
    expect(again.data?.intentId).toBe(first.data?.intentId);
    await expect(
      client.post('/api/v1/oms/intents', {
        params: { header: { 'Idempotency-Key': key } },
        body: { ...order, qty: '0.02' },
      }),
    ).rejects.toMatchObject({ status: 409, error: 'idempotency_key_conflict' });

    // No key named: each write gets a fresh one (two intents); a fixed key generator shows the header is sent.
    const a = await client.post('/api/v1/oms/intents', { body: marketBuy('0.01', 'same') });
    const b = await client.post('/api/v1/oms/intents', { body: marketBuy('0.01', 'same') });
    expect(a.intentId).not.toBe(b.intentId);
    const fixed = `fixed-${randomUUID()}`;
    const { client: keyed } = await traderClient({ idempotencyKey: () => fixed });
    const c1 = await keyed.api.POST('/api/v1/oms/intents', { body: marketBuy('0.01', 'fixed') });
    const c2 = await keyed.api.POST('/api/v1/oms/intents', { body: marketBuy('0.01', 'fixed') });
    expect(c2.response.headers.get('idempotency-replay')).toBe('true');
    expect(c2.data?.intentId).toBe(c1.data?.intentId);
  });

  it('iterates a cursor collection across pages', async () => {
    const { t, client, requests } = await traderClient();
    const risk = client.risk({ topics: ['Order-Intent-Changed'] });
    try {
      await risk.ready;
      for (const qty of ['0.01', '0.02', '0.03']) {
        const order = marketBuy(qty);
        const filled = risk.next(
          (f) =>
            f.type === 'Order-Intent-Update' &&
            f.data.clientOrderId === order.clientOrderId &&
            f.data.state === 'filled',
        );
        await client.post('/api/v1/oms/intents', { body: order });
        await filled;
      }
    } finally {
      await risk.close();
    }
    const seen: unknown[] = [];
    for await (const fill of client.paginate('/api/v1/accounts/{id}/fills', {
      params: { path: { id: t.accountId! }, query: { limit: 2 } },
    }))
      seen.push(fill);
    expect(seen.map((f) => (f as { qty: string }).qty).sort()).toEqual(['0.01', '0.02', '0.03']);
    expect(new Set(seen.map((f) => (f as { fillId: string }).fillId)).size).toBe(3);
    expect(requests.filter((r) => r.endsWith('/fills'))).toHaveLength(2);
  });

  it('streams /ws/quotes', async () => {
    const { client } = await traderClient();
    const quotes = client.quotes({ topics: ['paper:BTC.PAPER'] });
    try {
      await quotes.ready;
      const quote = await quotes.next((f) => f.type === 'Quote', { recent: true });
      expect(quote).toMatchObject({
        venue: 'paper',
        symbol: 'BTC.PAPER',
        mark: expect.stringMatching(/^\d+(\.\d+)?$/),
      });
    } finally {
      await quotes.close();
    }
  });

  it('reconnects a cut /ws/risk socket: a new bootstrap, the topics again, a resync, frames flowing', async () => {
    const proxy = await startTcpProxy(new URL(s.api.baseUrl).host);
    let risk: ReturnType<MultivenueClient['risk']> | undefined;
    try {
      const { client, requests } = await traderClient({
        baseUrl: `http://${proxy.address}`,
        wsBaseUrl: `ws://${proxy.address}`,
      });
      const bootstraps = () => requests.filter((r) => r === 'POST /api/auth/bootstrap').length;
      risk = client.risk({
        topics: ['Order-Intent-Changed'],
        heartbeatMs: 200,
        backoff: { initialMs: 50, maxMs: 400 },
      });
      await risk.ready;
      expect(bootstraps()).toBe(1);
      // The heartbeat: Ping every 200 ms, answered by Pong.
      await risk.next((f) => f.type === 'Pong', { timeoutMs: 2_000 });

      const events: string[] = [];
      risk.on('disconnect', ({ willReconnect }) => events.push(`disconnect:${willReconnect}`));
      risk.on('resync', ({ reason }) => events.push(`resync:${reason}`));
      const resynced = new Promise((r) => risk!.on('resync', r));
      await proxy.cut(); // the server side of the connection is gone, and new connections are refused meanwhile
      await new Promise((r) => setTimeout(r, 300));
      await proxy.restore();
      expect(await resynced).toEqual({ reason: 'reconnect' });
      expect(events).toEqual(['disconnect:true', 'resync:reconnect']);
      expect(risk.connections).toBe(2);
      expect(bootstraps()).toBe(2);

      // Subscribed again: the next order's updates arrive on the new connection.
      const order = marketBuy('0.01');
      const filled = risk.next(
        (f) =>
          f.type === 'Order-Intent-Update' && f.data.clientOrderId === order.clientOrderId && f.data.state === 'filled',
      );
      await client.post('/api/v1/oms/intents', { body: order });
      await filled;

      // A reconnect the caller asks for goes the same way.
      const again = new Promise((r) => risk!.on('ready', r));
      risk.reconnect();
      expect(await again).toEqual({ reconnected: true });
      expect(bootstraps()).toBe(3);
    } finally {
      await risk?.close();
      await proxy.stop();
    }
  });

  it('declares a connection that stops answering dead after the heartbeat timeout, and replaces it', async () => {
    const proxy = await freezableProxy(new URL(s.api.baseUrl));
    let risk: ReturnType<MultivenueClient['risk']> | undefined;
    try {
      const { client } = await traderClient({ wsBaseUrl: `ws://${proxy.address}` });
      risk = client.risk({ topics: ['Fills'], heartbeatMs: 200, timeoutMs: 300, backoff: { initialMs: 50 } });
      await risk.ready;
      const lost = new Promise((r) => risk!.on('disconnect', r));
      const resynced = new Promise((r) => risk!.on('resync', r));
      const frozenAt = Date.now();
      proxy.freeze();
      expect(await lost).toMatchObject({ code: 1006, willReconnect: true });
      expect(Date.now() - frozenAt).toBeLessThan(2_000); // at most one period and one timeout, plus scheduling
      expect(await resynced).toEqual({ reason: 'reconnect' });
      expect(risk.connections).toBe(2);
    } finally {
      await risk?.close();
      await proxy.stop();
    }
  });
});

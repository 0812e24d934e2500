/**
 * `/ws/risk` (docs/api.md §6.2, §6.3): the handshake, and the frames of a filled paper order seeded in
 * the order of rule 3: subscribe first, then fetch the REST snapshot, then apply the updates.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack.js';
import { publish, recordedTick } from '../support/marks.js';
import { openRisk, riskSocket } from '../support/ws.js';
import { checkFrame } from '../support/contract.js';
import WebSocket from 'ws';
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { scoped } from '../../db/orm.js';
import { appendEvents, lockAccount } from '../../db/events.js';
import { LOW_WATER_BYTES, OUTBOX_CAP_BYTES } from '../../api/ws/outbox.js';

describe('/ws/risk', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack();
    await publish(s.orm, await recordedTick('ETH.PAPER', 0.1));
  });
  afterAll(async () => s?.stop());

  const bootstrap = async (token: string) =>
    (await s.call('POST', '/api/auth/bootstrap', { token })).body.data.riskEngineWss;
  const connect = async (endpoint: string) => openRisk(endpoint, { 'x-tenant-slug': s.tenant.slug });
  /**
   * Runs `body` with the `/ws/risk` URL of a second api process on the stack's config and database, started
   * with `opts` (its idle close and revocation check periods, ms) and stopped afterwards.
   */
  async function withSecondApi(
    opts: { idleCloseMs?: number; revocationCheckMs?: number },
    body: (wsRiskUrl: string) => Promise<void>,
  ) {
    const { startApi } = await import('../../api/server.js');
    const { pino } = await import('pino');
    const api = await startApi({ config: s.config, orm: s.orm, logger: pino({ level: 'silent' }), ...opts });
    try {
      await body(`${api.baseUrl.replace('http', 'ws')}/ws/risk`);
    } finally {
      await api.stop();
    }
  }

  it('streams a filled market order: intent updates, fill, position, with consecutive seq', async () => {
    const t = await s.trader();
    const hs = await bootstrap(t.token);
    expect(hs.endpoint).toBe(`${s.api.baseUrl.replace('http', 'ws')}/ws/risk`);
    const ws = await connect(hs.endpoint);
    ws.send({ type: 'Authenticate', token: hs.token });
    expect(await ws.next((f) => f.type === 'Authenticated')).toMatchObject({ accountId: t.accountId });
    ws.send({ type: 'Subscribe', topics: ['Order-Intent-Changed', 'Position-Changed', 'Fills'] });
    expect(await ws.next((f) => f.type === 'Result')).toMatchObject({ ok: true });

    // Rule 3: subscribed, now the REST snapshot, then updates.
    const snapshot = await s.call('GET', `/api/v1/accounts/${t.accountId}/positions`, { token: t.token });
    expect(snapshot.body.positions).toEqual([]);

    const composed = await s.call('POST', '/api/v1/oms/intents', {
      token: t.token,
      body: { venue: 'paper', symbol: 'ETH.PAPER', side: 'sell', type: 'market', qty: '0.5', clientOrderId: 'ws-1' },
    });
    expect(composed.status).toBe(201);
    const filled = await ws.next((f) => f.type === 'Order-Intent-Update' && f.data.state === 'filled');
    const stream = ws.frames.filter((f) => f.seq !== undefined);
    expect(stream.map((f) => [f.type, f.data.state ?? f.data.side])).toEqual([
      ['Order-Intent-Update', 'signed_pending_dispatch'],
      ['Order-Intent-Update', 'dispatched'],
      ...stream.filter((f) => f.type === 'Fill').map(() => ['Fill', 'sell']),
      ['Position-Changed', 'short'],
      ['Order-Intent-Update', 'filled'],
    ]);
    const seqs = stream.map((f) => f.seq);
    expect(seqs).toEqual(seqs.map((_, i) => seqs[0] + i));
    expect(filled).toMatchObject({
      topic: 'Order-Intent-Changed',
      accountId: t.accountId,
      data: {
        intentId: composed.body.intentId,
        clientOrderId: 'ws-1',
        venueOrderId: `paper-${composed.body.intentId}`,
        lastEvent: 'filled',
        filledQty: '0.5',
      },
    });
    const position = stream.find((f) => f.type === 'Position-Changed');
    expect(position).toMatchObject({
      topic: 'Position-Changed',
      data: { symbol: 'ETH.PAPER', qty: '-0.5', side: 'short' },
    });
    ws.close();
  });

  it('refuses a missing, reused or unknown handshake token', async () => {
    const t = await s.trader();
    const hs = await bootstrap(t.token);
    const a = await connect(hs.endpoint);
    a.send({ type: 'Authenticate' });
    expect(await a.next((f) => f.type === 'Result')).toMatchObject({ ok: false, error: 'token_required' });
    a.send({ type: 'Authenticate', token: hs.token });
    await a.next((f) => f.type === 'Authenticated');
    const b = await connect(hs.endpoint);
    b.send({ type: 'Authenticate', token: hs.token });
    expect(await b.next((f) => f.type === 'Result')).toMatchObject({ ok: false, error: 'token_invalid' });
    b.send({ type: 'Authenticate', token: 'never-issued' });
    expect((await b.next((f) => f.type === 'Result' && f !== b.frames[0])).error).toBe('token_invalid');
    a.close();
    b.close();
  });

  it('answers Ping with Pong and refuses an empty Subscribe', async () => {
    const t = await s.trader();
    const hs = await bootstrap(t.token);
    const ws = await connect(hs.endpoint);
    ws.send({ type: 'Ping' });
    const pong = await ws.next((f) => f.type === 'Pong');
    expect(Date.parse(pong.serverTime)).toBeGreaterThan(Date.now() - 10_000);
    ws.send({ type: 'Authenticate', token: hs.token });
    await ws.next((f) => f.type === 'Authenticated');
    ws.send({ type: 'Subscribe', topics: [] });
    expect(await ws.next((f) => f.type === 'Result')).toMatchObject({ ok: false, error: 'topics_required' });
    ws.send({ type: 'Alive' });
    expect(await ws.next((f) => f.type === 'Result' && f.ok === true)).toBeTruthy();
    ws.close();
  });

  it('fans out across api processes: compose on one, frames on a socket of another', async () => {
    await withSecondApi({ idleCloseMs: 2000 }, async (endpoint) => {
      const t = await s.trader();
      const ws = await riskSocket(s, t.token, { endpoint, topics: ['Order-Intent-Changed'] });
      const composed = await s.call('POST', '/api/v1/oms/intents', {
        token: t.token,
        body: { venue: 'paper', symbol: 'ETH.PAPER', side: 'buy', type: 'market', qty: '0.1' },
      });
      const filled = await ws.next((f) => f.type === 'Order-Intent-Update' && f.data.state === 'filled');
      expect(filled.data.intentId).toBe(composed.body.intentId);
      expect(ws.frames.some((f) => f.topic === 'Fills')).toBe(false); // only subscribed topics arrive
      // This api closes sockets after 2 s of inbound silence.
      expect((await ws.closed).code).toBe(1000);
    });
  });

  it('tears the socket down when its credential is revoked (docs/api.md §5.7)', async () => {
    const { revokeCredential } = await import('../../db/seed.js');
    await withSecondApi({ revocationCheckMs: 100 }, async (endpoint) => {
      const t = await s.trader();
      const ws = await riskSocket(s, t.token, { endpoint });
      await new Promise((r) => setTimeout(r, 300));
      expect(ws.frames.some((f) => f.error === 'credential_revoked')).toBe(false);
      await revokeCredential(s.orm, s.tenant.id, t.credentialId);
      expect(await ws.next((f) => f.type === 'Result' && f.ok === false)).toMatchObject({
        error: 'credential_revoked',
      });
      expect((await ws.closed).code).toBe(4401);
    });
  });

  it('a consumer that stops reading gets Resync-Required naming its account; the server buffers stay capped', async () => {
    const t = await s.trader();
    const hs = await bootstrap(t.token);
    // The server side of the connection: its bytes not yet handed to the kernel are the socket's buffer.
    const serverSockets: Socket[] = [];
    const onConnection = (sock: Socket) => serverSockets.push(sock);
    s.api.server.on('connection', onConnection);
    const ws = new WebSocket(hs.endpoint, { headers: { 'x-tenant-slug': s.tenant.slug } });
    const frames: any[] = [];
    ws.on('message', (raw) => frames.push(checkFrame('/ws/risk', JSON.parse(String(raw)))));
    await new Promise((r) => ws.once('open', r));
    s.api.server.off('connection', onConnection);
    const server = serverSockets.find((x) => x.remotePort === (ws as any)._socket.localPort)!;
    expect(server).toBeDefined();
    const until = async (pred: () => boolean) => {
      for (let i = 0; i < 600 && !pred(); i++) await sleep(50);
      expect(pred()).toBe(true);
    };
    ws.send(JSON.stringify({ type: 'Authenticate', token: hs.token }));
    await until(() => frames.some((f) => f.type === 'Authenticated'));
    ws.send(JSON.stringify({ type: 'Subscribe', topics: ['Funding'] }));
    await until(() => frames.some((f) => f.type === 'Result'));

    (ws as any)._socket.pause(); // the consumer stops reading
    let maxBuffered = 0;
    const sampler = setInterval(() => (maxBuffered = Math.max(maxBuffered, server.writableLength)), 2);
    // 400 events of ~64 KiB (about 26 MB): far more than the kernel's socket buffers and the 1 MiB cap.
    const note = 'x'.repeat(64 * 1024);
    const append = (data: Record<string, unknown>[]) =>
      scoped(s.orm, s.tenant.id).transactional(async (tx) => {
        await lockAccount(tx, t.accountId!);
        await appendEvents(
          tx,
          s.tenant.id,
          t.accountId!,
          data.map((d) => ({ kind: 'funding.deposit', frameType: 'Funding-Update' as const, venue: 'paper', data: d })),
        );
      });
    for (let batch = 0; batch < 20; batch++)
      await append(
        Array.from({ length: 20 }, (_, i) => ({ type: 'deposit', amountUsd: '1', n: batch * 20 + i, note })),
      );
    const dropped = async () => {
      const text = await (await fetch(`${s.api.baseUrl}/metrics`)).text();
      const m = /platform_ws_frames_dropped_total\{channel="risk",reason="slow_consumer"\} (\d+)/.exec(text);
      return Number(m?.[1] ?? 0);
    };
    for (let i = 0; i < 600 && (await dropped()) === 0; i++) await sleep(50);
    expect(await dropped()).toBeGreaterThan(0);
    clearInterval(sampler);
    // Only what the socket may hold below its low-water mark plus one frame ever waited in the server's buffer.
    expect(maxBuffered).toBeLessThan(LOW_WATER_BYTES + 2 * note.length);
    expect(maxBuffered).toBeLessThan(OUTBOX_CAP_BYTES);

    (ws as any)._socket.resume();
    await until(() => frames.some((f) => f.type === 'Resync-Required'));
    const resync = frames.find((f) => f.type === 'Resync-Required');
    expect(resync).toMatchObject({ reason: 'slow_consumer', accountIds: [t.accountId] });
    expect(resync.dropped).toBeGreaterThan(0);
    expect(frames.filter((f) => f.type === 'Funding-Update').length).toBeLessThan(400);
    // After the resync the stream carries on, in order, with the account log's own seq.
    await append([{ type: 'deposit', amountUsd: '1', n: 'after' }]);
    await until(() => frames.some((f) => f.type === 'Funding-Update' && f.data.n === 'after'));
    const [{ seq: lastSeq }] = await s.orm.em
      .getConnection()
      .execute<{ seq: number }[]>('select max(seq)::int as seq from account_events where account_id = ?', [
        t.accountId,
      ]);
    const stream = frames.filter((f) => f.type === 'Funding-Update');
    expect(stream.at(-1)).toMatchObject({
      topic: 'Funding',
      accountId: t.accountId,
      seq: lastSeq,
      data: { n: 'after' },
    });
    const seqs = stream.map((f) => f.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    ws.close();
  }, 60_000);

  it('limits bootstraps to 10 per minute per API key, with Retry-After', async () => {
    const t = await s.trader();
    for (let i = 0; i < 10; i++)
      expect(
        (await s.call('POST', '/api/auth/bootstrap', { body: { apiKey: t.apiKey, apiSecret: t.apiSecret } })).status,
      ).toBe(200);
    const res = await s.call('POST', '/api/auth/bootstrap', { body: { apiKey: t.apiKey, apiSecret: t.apiSecret } });
    expect(res.status).toBe(429);
    expect(res.body.error).toBe('rate_limited');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

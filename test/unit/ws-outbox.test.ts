/**
 * Slow-consumer protection (docs/api.md §6.3): over real sockets, a client that stops reading never makes
 * the server's backlog grow past its cap; it gets `Resync-Required` with its backlog dropped, and
 * once it reads again it sees the resync and a `seq` gap, then fresh frames. Coalescing frames
 * replace each other (latest wins) while the socket is backed up.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, WebSocket } from 'ws';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Outbox } from '../../api/ws/outbox.js';

let wss: WebSocketServer | undefined;
afterEach(() => new Promise<void>((r) => (wss ? wss.close(() => r()) : r())));

/** A server socket and a connected client whose TCP reading is paused. */
async function pair(): Promise<{ server: WebSocket; client: WebSocket; frames: any[] }> {
  wss = new WebSocketServer({ port: 0 });
  const serverSide = new Promise<WebSocket>((r) => wss!.once('connection', r));
  const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`);
  const frames: any[] = [];
  client.on('message', (raw) => frames.push(JSON.parse(String(raw))));
  await new Promise((r) => client.once('open', r));
  return { server: await serverSide, client, frames };
}

describe('Outbox', () => {
  it('drops the backlog of a consumer that stopped reading and tells it to resync; memory stays under the cap', async () => {
    const { server, client, frames } = await pair();
    (client as any)._socket.pause(); // the consumer stops reading
    const cap = 256 * 1024;
    const out = new Outbox(server, cap);
    const payload = 'x'.repeat(1024);
    let maxBacklog = 0;
    for (let i = 0; i < 40_000; i++) {
      out.push({ type: 'Trades', n: i, payload });
      maxBacklog = Math.max(maxBacklog, out.backlogBytes);
      if (i % 1000 === 0) await sleep(1); // let the socket drain what the kernel accepts
    }
    expect(out.resyncs).toBeGreaterThan(0);
    expect(maxBacklog).toBeLessThanOrEqual(cap + 2048);
    (client as any)._socket.resume();
    out.push({ type: 'Trades', n: 'after', payload: '' });
    await waitUntil(() => frames.some((f) => f.n === 'after'));
    const resync = frames.find((f) => f.type === 'Resync-Required');
    expect(resync).toMatchObject({ reason: 'slow_consumer' });
    expect(resync.dropped).toBeGreaterThan(0);
    const seqs = frames.map((f) => f.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b)); // still in order
    expect(seqs.at(-1)! - seqs.length).toBeGreaterThan(0); // but with a gap: frames were dropped
    client.close();
  }, 30_000);

  it('coalesces frames of the same key while the socket is backed up: the latest wins', async () => {
    const { server, client, frames } = await pair();
    (client as any)._socket.pause();
    const out = new Outbox(server, 64 << 20);
    const filler = 'y'.repeat(64 * 1024);
    for (let i = 0; i < 200; i++) out.push({ type: 'Trades', filler }); // back the socket up
    for (let i = 0; i < 100; i++) out.push({ type: 'L2-Book', version: i }, 'l2Book:paper:BTC.PAPER');
    (client as any)._socket.resume();
    await waitUntil(
      () => frames.filter((f) => f.type === 'Trades').length === 200 && frames.some((f) => f.type === 'L2-Book'),
    );
    await sleep(50);
    const books = frames.filter((f) => f.type === 'L2-Book');
    expect(books.map((b) => b.version)).toEqual([99]);
    expect(out.resyncs).toBe(0);
    client.close();
  }, 30_000);
});

describe('Outbox with frames serialised once for many sockets (the /ws/quotes fan-out)', () => {
  it('writes the shared bytes as a text frame, numbered by nobody; a backed-up socket gets only the latest of a key', async () => {
    const { server, client, frames } = await pair();
    const kinds: boolean[] = [];
    client.on('message', (_raw, isBinary) => kinds.push(isBinary));
    const out = new Outbox(server, 64 << 20, undefined, { numbered: false });
    const quote = (seq: number) => Buffer.from(JSON.stringify({ type: 'Quote', seq, mark: `${seq}.5` }));
    out.push(quote(7), 'paper:BTC.PAPER');
    await waitUntil(() => frames.length === 1);
    expect(frames[0]).toEqual({ type: 'Quote', seq: 7, mark: '7.5' });
    expect(kinds).toEqual([false]); // text, as a browser's WebSocket needs for JSON
    (client as any)._socket.pause();
    const filler = 'y'.repeat(64 * 1024);
    for (let i = 0; i < 200; i++) out.push({ type: 'Trades', filler }); // back the socket up
    for (let seq = 8; seq < 50; seq++) out.push(quote(seq), 'paper:BTC.PAPER');
    (client as any)._socket.resume();
    await waitUntil(() => frames.filter((f) => f.type === 'Trades').length === 200 && frames.length === 202);
    await sleep(50);
    expect(frames.filter((f) => f.type === 'Quote').map((f) => f.seq)).toEqual([7, 49]);
    client.close();
  }, 30_000);
});

async function waitUntil(pred: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(10);
  }
}

/**
 * The Hyperliquid simulator's public WebSocket (`/ws`, simulators/hyperliquid-ws.ts) against
 * Hyperliquid's published TypeScript SDK: its `SubscriptionClient` over `WebSocketTransport` pointed at
 * the simulator subscribes `l2Book`, `trades` and `allMids`, and each event is compared whole
 * (`toStrictEqual`) with what the simulator's `POST /info` answers for the same instant (the book it
 * matches against) or with the fill it made. The SDK resolves a subscription only on the venue's
 * `subscriptionResponse` echo and routes events by channel, so a wrong envelope times out. Raw
 * frames check `ping` → `pong` and the venue's error wording.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { InfoClient, HttpTransport, SubscriptionClient, WebSocketTransport } from '@nktkas/hyperliquid';
import type { AllMidsEvent, L2BookEvent, TradesEvent } from '@nktkas/hyperliquid/api/subscription';
import { startHyperliquidSimulator, type HyperliquidSimulator } from '../../simulators/hyperliquid.js';

/** Resolves with the first value `next` pushes that `ok` accepts (rejects after `ms`). */
function waitFor<T>(list: T[], ok: (v: T) => boolean, ms = 3_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = setInterval(() => {
      const hit = list.find(ok);
      if (hit !== undefined) {
        clearInterval(poll);
        resolve(hit);
      } else if (Date.now() - started > ms) {
        clearInterval(poll);
        reject(new Error(`no matching event in ${ms} ms; got ${JSON.stringify(list)}`));
      }
    }, 5);
  });
}

/** Opens a raw socket to `url`, sends `frame`, resolves with the first frame answered. */
async function rawExchange(url: string, frame: string): Promise<unknown> {
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const answer = new Promise<unknown>((resolve) =>
    ws.once('message', (d: WebSocket.RawData) => resolve(JSON.parse(d.toString()))),
  );
  ws.send(frame);
  try {
    return await answer;
  } finally {
    ws.close();
  }
}

describe('Hyperliquid simulator WebSocket with @nktkas/hyperliquid SubscriptionClient', () => {
  const marks = new Map([
    ['BTC.HL', '97000.5'],
    ['ETH.HL', '2000.05'],
    ['SOL.HL', '150'],
  ]);
  const owner = '0x00000000000000000000000000000000000000aa';
  let sim: HyperliquidSimulator;
  let transport: WebSocketTransport;
  let subs: SubscriptionClient;
  let info: InfoClient;

  beforeAll(async () => {
    sim = await startHyperliquidSimulator({ markOf: async (s) => marks.get(s) ?? null, wsIntervalMs: 20 });
    transport = new WebSocketTransport({ url: sim.wsUrl, timeout: 3_000 });
    subs = new SubscriptionClient({ transport });
    info = new InfoClient({ transport: new HttpTransport({ apiUrl: sim.url }) });
  });
  afterAll(async () => {
    transport?.close();
    await sim?.close();
  });

  it('serves /ws on the simulator port', () => {
    expect(sim.wsUrl).toBe(`${sim.url.replace('http://', 'ws://')}/ws`);
  });

  it('l2Book: a snapshot on subscribe, then the new book when the mark moves, each the book /info answers', async () => {
    const got: L2BookEvent[] = [];
    const sub = await subs.l2Book({ coin: 'BTC' }, (e) => got.push(e));
    const first = await waitFor(got, () => true);
    const book = await info.l2Book({ coin: 'BTC' });
    expect(first).toStrictEqual({ coin: 'BTC', time: expect.any(Number), levels: book!.levels });
    expect(first.levels[0][0]).toStrictEqual({ px: '97000', sz: '0.51546', n: 1 });
    expect(first.levels[1][0]).toStrictEqual({ px: '97001', sz: '0.51546', n: 1 });
    expect(first.levels[0]).toHaveLength(10);

    marks.set('BTC.HL', '97100.5');
    const moved = await waitFor(got, (e) => e.levels[0][0].px === '97100');
    expect(moved).toStrictEqual({
      coin: 'BTC',
      time: expect.any(Number),
      levels: (await info.l2Book({ coin: 'BTC' }))!.levels,
    });

    // A resting order is part of the streamed book, as of the book it matches against.
    await sim.injectOrder(owner, { symbol: 'BTC.HL', side: 'buy', qty: '2', price: '97050' });
    const withOrder = await waitFor(got, (e) => e.levels[0].some((l) => l.px === '97050'));
    expect(withOrder.levels[0].find((l) => l.px === '97050')).toStrictEqual({ px: '97050', sz: '2', n: 1 });
    expect(withOrder.levels).toStrictEqual((await info.l2Book({ coin: 'BTC' }))!.levels);

    await sub.unsubscribe();
    const seen = got.length;
    marks.set('BTC.HL', '97200.5');
    await new Promise((r) => setTimeout(r, 100));
    expect(got).toHaveLength(seen);
  });

  it('trades: each fill of the simulator, whole', async () => {
    const got: TradesEvent[] = [];
    const sub = await subs.trades({ coin: 'ETH' }, (e) => got.push(e));
    await sim.injectOrder(owner, { symbol: 'ETH.HL', side: 'buy', qty: '0.5', price: '2100' });
    const [event] = [await waitFor(got, () => true)];
    expect(event).toStrictEqual([
      {
        coin: 'ETH',
        side: 'B',
        px: '2000.05',
        sz: '0.5',
        time: expect.any(Number),
        hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        tid: expect.any(Number),
        users: [owner, '0x0000000000000000000000000000000000000000'],
      },
    ]);
    const [fill] = await info.userFills({ user: owner });
    expect(event[0]).toMatchObject({ px: fill.px, sz: fill.sz, time: fill.time, hash: fill.hash, tid: fill.tid });
    await sub.unsubscribe();

    // A new subscriber's first frame lists the coin's recent fills.
    const again: TradesEvent[] = [];
    const sub2 = await subs.trades({ coin: 'ETH' }, (e) => again.push(e));
    expect(await waitFor(again, () => true)).toStrictEqual(event);
    await sub2.unsubscribe();
  });

  it('allMids: the mid of every coin, as /info allMids answers', async () => {
    const got: AllMidsEvent[] = [];
    const sub = await subs.allMids((e) => got.push(e));
    const first = await waitFor(got, () => true);
    expect(first).toStrictEqual({ mids: await info.allMids() });
    expect(first.mids.SOL).toBe('150');
    marks.set('SOL.HL', '151');
    expect(await waitFor(got, (e) => e.mids.SOL === '151')).toStrictEqual({ mids: await info.allMids() });
    await sub.unsubscribe();
  });

  it('refuses an unknown coin with the venue wording, which the SDK rejects on', async () => {
    await expect(subs.l2Book({ coin: 'DOGE' }, () => undefined)).rejects.toThrow(/Invalid subscription/);
  });

  it('ping → pong; a non-request frame → an error frame', async () => {
    expect(await rawExchange(sim.wsUrl, '{"method":"ping"}')).toStrictEqual({ channel: 'pong' });
    expect(await rawExchange(sim.wsUrl, 'nonsense')).toMatchObject({
      channel: 'error',
      data: expect.stringMatching(/^Error parsing JSON into valid websocket request/),
    });
    expect(
      await rawExchange(sim.wsUrl, '{"method":"unsubscribe","subscription":{"type":"trades","coin":"BTC"}}'),
    ).toStrictEqual({ channel: 'error', data: 'Already unsubscribed: {"type":"trades","coin":"BTC"}' });
    // Book aggregation is not imitated: refused rather than answered with an unaggregated book.
    expect(
      await rawExchange(sim.wsUrl, '{"method":"subscribe","subscription":{"type":"l2Book","coin":"BTC","nSigFigs":5}}'),
    ).toStrictEqual({ channel: 'error', data: 'Invalid subscription {"type":"l2Book","coin":"BTC","nSigFigs":5}' });
  });

  it('dropWsConnections drops the SDK socket; the SDK reconnects and resubscribes', async () => {
    const got: L2BookEvent[] = [];
    const sub = await subs.l2Book({ coin: 'SOL' }, (e) => got.push(e));
    await waitFor(got, () => true);
    expect(sim.dropWsConnections()).toBeGreaterThanOrEqual(1);
    const before = got.length;
    await waitFor(got, () => got.length > before, 5_000);
    expect(got.at(-1)!.levels).toStrictEqual((await info.l2Book({ coin: 'SOL' }))!.levels);
    await sub.unsubscribe();
  });
});

/**
 * The Aster simulator's futures market streams (simulators/aster-ws.ts) as a Binance-style client sees
 * them: a `SUBSCRIBE` is answered `{"result":null,"id":n}`, a partial-depth frame carries whole the
 * levels `GET /fapi/v3/depth?limit=<levels>` answers (the book the simulator matches against), with
 * `U`/`u`/`pu` chained frame to frame; the combined endpoint wraps payloads in `{"stream","data"}`; a
 * fill of the simulator arrives as one `aggTrade`; the documented error shapes; ping frames are answered
 * with pongs, not while the venue is silenced.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startAsterSimulator, type AsterSimulator } from '../../simulators/aster.js';

/** A raw client: every frame it receives, parsed, in order. */
async function client(url: string): Promise<{ ws: WebSocket; frames: Record<string, unknown>[] }> {
  const ws = new WebSocket(url);
  const frames: Record<string, unknown>[] = [];
  ws.on('message', (d: WebSocket.RawData) => frames.push(JSON.parse(d.toString()) as Record<string, unknown>));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  return { ws, frames };
}

/** Resolves with the first frame in `list` that `ok` accepts (rejects after `ms`). */
async function waitFor<T>(list: T[], ok: (v: T) => boolean, ms = 3_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const hit = list.find(ok);
    if (hit !== undefined) return hit;
    if (Date.now() - started > ms) throw new Error(`no matching frame in ${ms} ms; got ${JSON.stringify(list)}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('Aster simulator market streams', () => {
  const marks = new Map([
    ['BTC.ASTER', '97000.55'],
    ['ETH.ASTER', '2000.05'],
    ['SOL.ASTER', '150'],
  ]);
  let sim: AsterSimulator;
  const open: WebSocket[] = [];
  const connect = async (url: string) => {
    const c = await client(url);
    open.push(c.ws);
    return c;
  };
  const restDepth = async (symbol: string, limit: number) =>
    (await (await fetch(`${sim.url}/fapi/v3/depth?symbol=${symbol}&limit=${limit}`)).json()) as {
      bids: string[][];
      asks: string[][];
    };

  beforeAll(async () => {
    sim = await startAsterSimulator({ markOf: async (s) => marks.get(s) ?? null, wsIntervalMs: 20 });
  });
  afterAll(async () => {
    for (const ws of open) ws.terminate();
    await sim?.close();
  });

  it('partial depth: the REST depth answer whole, sequence numbers chained, listed subscriptions', async () => {
    const { ws, frames } = await connect(sim.wsUrl);
    ws.send(JSON.stringify({ method: 'SUBSCRIBE', params: ['btcusdt@depth20@500ms', 'btcusdt@aggTrade'], id: 7 }));
    expect(await waitFor(frames, (f) => 'id' in f)).toStrictEqual({ result: null, id: 7 });
    const depth = frames.filter((f) => f.e === 'depthUpdate');
    await waitFor(depth, () => frames.filter((f) => f.e === 'depthUpdate').length >= 3);
    const [first, second] = frames.filter((f) => f.e === 'depthUpdate');
    const rest = await restDepth('BTCUSDT', 20);
    expect(first).toStrictEqual({
      e: 'depthUpdate',
      E: expect.any(Number),
      T: expect.any(Number),
      s: 'BTCUSDT',
      U: (first.pu as number) + 1,
      u: expect.any(Number),
      pu: expect.any(Number),
      b: rest.bids,
      a: rest.asks,
    });
    expect(rest.bids).toHaveLength(10); // the synthetic book's ten levels: all of them fit in depth20
    expect(rest.bids[0]).toStrictEqual(['97000.5', '0.515']);
    expect(rest.asks[0]).toStrictEqual(['97000.6', '0.515']);
    expect(second.pu).toBe(first.u);
    expect(second.U).toBe((first.u as number) + 1);

    ws.send(JSON.stringify({ method: 'LIST_SUBSCRIPTIONS', id: 8 }));
    expect(await waitFor(frames, (f) => f.id === 8)).toStrictEqual({
      result: ['btcusdt@depth20@500ms', 'btcusdt@aggTrade'],
      id: 8,
    });
    ws.send(JSON.stringify({ method: 'UNSUBSCRIBE', params: ['btcusdt@depth20@500ms'], id: 9 }));
    expect(await waitFor(frames, (f) => f.id === 9)).toStrictEqual({ result: null, id: 9 });
    await new Promise((r) => setTimeout(r, 50));
    const seen = frames.length;
    await new Promise((r) => setTimeout(r, 100));
    expect(frames).toHaveLength(seen);
  });

  it('the combined endpoint wraps payloads; depth5 carries five levels a side', async () => {
    const { frames } = await connect(`${sim.url.replace(/^http/, 'ws')}/stream?streams=solusdt@depth5@100ms`);
    const f = await waitFor(frames, (x) => x.stream === 'solusdt@depth5@100ms');
    const rest = await restDepth('SOLUSDT', 5);
    expect(f).toStrictEqual({
      stream: 'solusdt@depth5@100ms',
      data: expect.objectContaining({ e: 'depthUpdate', s: 'SOLUSDT', b: rest.bids, a: rest.asks }),
    });
    expect(rest.asks).toHaveLength(5);
  });

  it('a fill of the simulator is one aggTrade frame to the symbol subscribers', async () => {
    const { ws, frames } = await connect(`${sim.wsUrl}/ethusdt@aggTrade`);
    ws.send(JSON.stringify({ method: 'LIST_SUBSCRIPTIONS', id: 1 }));
    expect(await waitFor(frames, (f) => f.id === 1)).toStrictEqual({ result: ['ethusdt@aggTrade'], id: 1 });
    // A marketable sell fills at once at the mark as taker: the buyer (the synthetic book) was the maker.
    await sim.injectOrder('0x00000000000000000000000000000000000000cc', {
      symbol: 'ETH.ASTER',
      side: 'sell',
      qty: '0.25',
      price: '1900',
    });
    const t = await waitFor(frames, (f) => f.e === 'aggTrade');
    expect(t).toStrictEqual({
      e: 'aggTrade',
      E: expect.any(Number),
      s: 'ETHUSDT',
      a: t.a,
      p: '2000.05',
      q: '0.25',
      f: t.a,
      l: t.a,
      T: expect.any(Number),
      m: true,
    });
    expect(typeof t.a).toBe('number');
    expect(frames.filter((f) => f.e === 'aggTrade')).toHaveLength(1);
  });

  it('answers errors in the documented shapes', async () => {
    const { ws, frames } = await connect(sim.wsUrl);
    ws.send('{not json');
    ws.send(JSON.stringify({ method: 'SUBSCRIBE', params: ['btcusdt@depth'], id: 2 }));
    ws.send(JSON.stringify({ method: 'SUBSCRIBE', params: ['dogeusdt@aggTrade'], id: 3 }));
    ws.send(JSON.stringify({ method: 'SUBSCRIBE', params: ['btcusdt@aggTrade'] }));
    ws.send(JSON.stringify({ method: 'SET_PROPERTY', params: ['combined', 'yes'], id: 4 }));
    ws.send(JSON.stringify({ method: 'GET_PROPERTY', params: ['combined'], id: 5 }));
    ws.send(JSON.stringify({ method: 'PING', id: 6 }));
    await waitFor(frames, () => frames.length >= 7);
    expect(frames).toStrictEqual([
      { code: 3, msg: 'Invalid JSON: expected value at line 1 column 1' },
      { code: 2, msg: 'Invalid request: unknown stream btcusdt@depth', id: 2 },
      { code: 2, msg: 'Invalid request: unknown stream dogeusdt@aggTrade', id: 3 },
      { code: 2, msg: 'Invalid request: request ID must be an unsigned integer' },
      { code: 1, msg: 'Invalid value type: expected Boolean', id: 4 },
      { result: false, id: 5 },
      {
        code: 2,
        msg: 'Invalid request: unknown variant "PING", expected one of `SUBSCRIBE`, `UNSUBSCRIBE`, `LIST_SUBSCRIPTIONS`, `SET_PROPERTY`, `GET_PROPERTY`',
        id: 6,
      },
    ]);
  });

  it('answers ping frames with pongs, but not while silenced; dropConnections cuts the sockets', async () => {
    const { ws } = await connect(sim.wsUrl);
    const pong = () =>
      new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), 200);
        ws.once('pong', () => {
          clearTimeout(timer);
          resolve(true);
        });
        ws.ping();
      });
    expect(await pong()).toBe(true);
    sim.silenceWs(true);
    expect(await pong()).toBe(false);
    sim.silenceWs(false);
    expect(await pong()).toBe(true);
    const closed = new Promise((resolve) => ws.once('close', resolve));
    expect(sim.dropWsConnections()).toBeGreaterThanOrEqual(1);
    await closed;
  });
});

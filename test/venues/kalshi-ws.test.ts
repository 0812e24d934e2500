/**
 * The Kalshi simulator's WebSocket API v2 (simulators/kalshi-ws.ts) as a client of
 * `wss://external-api-ws.kalshi.com/trade-api/ws/v2` sees it: the upgrade is refused with 401 unless signed over
 * `GET /trade-api/ws/v2` by a registered key (missing headers, another key's signature, a signature over another path,
 * a revoked key, a replayed handshake); `subscribe` answers `subscribed` with a sid, then an `orderbook_snapshot`
 * equal to `GET /markets/{ticker}/orderbook` and `orderbook_delta` frames with consecutive seq which, applied to the
 * snapshot, give the REST book again; `trade` per fill; `unsubscribe` ends a subscription; errors carry Kalshi's codes;
 * without `markOf` the books come from the simulator's own prices.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Decimal } from '../../domain/decimal.js';
import { KALSHI_SYMBOLS } from '../../domain/market/venues/kalshi.js';
import { startKalshiSimulator, type KalshiSimulator } from '../../simulators/kalshi.js';
import { kalshiOwnMarks } from '../../simulators/kalshi-prices.js';
import { generateKalshiAgentKey, kalshiAuthHeaders } from '../../venues/kalshi/signing.js';
import { until } from './feed-support.js';

const [YES, NO] = KALSHI_SYMBOLS;
const TICKER = YES.venueSymbol!.split(':')[0];
const WS_PATH = '/trade-api/ws/v2';

type Frame = { type: string; id?: number; sid?: number; seq?: number; msg: Record<string, unknown> };
type BookFp = { yes_dollars: string[][]; no_dollars: string[][] };

/** Opens the socket with `headers`; answers the client and its frames, or the refusal's HTTP status and body. */
async function connect(url: string, headers: Record<string, string>) {
  const ws = new WebSocket(url, { headers });
  const frames: Frame[] = [];
  ws.on('message', (d: WebSocket.RawData) => frames.push(JSON.parse(d.toString()) as Frame));
  return new Promise<
    | { ok: true; ws: WebSocket; frames: Frame[]; send: (m: unknown) => void }
    | { ok: false; status: number; body: unknown }
  >((resolve, reject) => {
    ws.once('open', () => resolve({ ok: true, ws, frames, send: (m) => ws.send(JSON.stringify(m)) }));
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ ok: false, status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    ws.once('error', reject);
  });
}

/** Applies `orderbook_delta` frames to a snapshot's levels (ascending, as REST lists them). */
function apply(book: BookFp, deltas: Frame[]): BookFp {
  const sides = {
    yes: new Map(book.yes_dollars.map(([p, c]) => [p, new Decimal(c)])),
    no: new Map(book.no_dollars.map(([p, c]) => [p, new Decimal(c)])),
  };
  for (const d of deltas) {
    const side = sides[d.msg.side as 'yes' | 'no'];
    const p = String(d.msg.price_dollars);
    const next = (side.get(p) ?? new Decimal(0)).plus(String(d.msg.delta_fp));
    if (next.isZero()) side.delete(p);
    else side.set(p, next);
  }
  const list = (m: Map<string, Decimal>) =>
    [...m].sort((a, b) => new Decimal(a[0]).cmp(b[0])).map(([p, c]) => [p, c.toFixed(2)]);
  return { yes_dollars: list(sides.yes), no_dollars: list(sides.no) };
}

describe('Kalshi simulator: the WebSocket API v2', () => {
  const marks = new Map([
    [YES.symbol, '0.6'],
    [NO.symbol, '0.42'],
  ]);
  const key = generateKalshiAgentKey();
  const member = 'member-ws-test';
  let sim: KalshiSimulator;
  let keyId: string;
  let wsUrl: string;
  const signed = (k = keyId, pem = key.privateKeyPem, path = WS_PATH) => kalshiAuthHeaders(k, pem, 'GET', path);
  const restBook = async () =>
    ((await (await fetch(`${sim.url}/markets/${TICKER}/orderbook`)).json()) as { orderbook_fp: BookFp }).orderbook_fp;
  const open = async () => {
    const c = await connect(wsUrl, signed());
    if (!c.ok) throw new Error(`refused ${c.status}`);
    return c;
  };

  beforeAll(async () => {
    sim = await startKalshiSimulator({ markOf: async (s) => marks.get(s) ?? null, wsIntervalMs: 10 });
    keyId = sim.registerKey(member, key.publicKeyPem, { scopes: ['read'] });
    wsUrl = sim.wsUrl;
  });
  afterAll(async () => sim?.close());

  it('serves /trade-api/ws/v2 on the simulator port', () => {
    expect(wsUrl).toBe(`${new URL(sim.url).origin.replace('http', 'ws')}${WS_PATH}`);
  });

  it('refuses the upgrade with 401 without valid signed headers', async () => {
    const refused = async (headers: Record<string, string>) => {
      const c = await connect(wsUrl, headers);
      if (!c.ok) return { status: c.status, details: (c.body as { error: { details?: string } }).error.details };
      c.ws.terminate();
      return 'opened';
    };
    expect(await refused({})).toEqual({
      status: 401,
      details: 'missing KALSHI-ACCESS-KEY, KALSHI-ACCESS-TIMESTAMP or KALSHI-ACCESS-SIGNATURE',
    });
    const other = generateKalshiAgentKey();
    expect(await refused(signed(keyId, other.privateKeyPem))).toEqual({ status: 401, details: 'INVALID_SIGNATURE' });
    expect(await refused(signed(keyId, key.privateKeyPem, '/trade-api/v2'))).toEqual({
      status: 401,
      details: 'INVALID_SIGNATURE',
    });
    expect(await refused(signed('00000000-0000-4000-8000-000000000000'))).toEqual({
      status: 401,
      details: 'NOT_FOUND',
    });
    const once = signed();
    const first = await connect(wsUrl, once);
    expect(first.ok).toBe(true);
    if (first.ok) first.ws.terminate();
    expect(await refused(once)).toEqual({ status: 401, details: 'replayed request' });
    const revoked = sim.registerKey(member, key.publicKeyPem);
    sim.revokeKey(revoked);
    expect(await refused(signed(revoked))).toEqual({ status: 401, details: 'NOT_FOUND' });
    await until(() => sim.wsConnections() === 0);
  });

  it('subscribe → subscribed with a sid, a snapshot equal to the REST book, deltas with consecutive seq that rebuild it', async () => {
    const c = await open();
    c.send({ id: 1, cmd: 'subscribe', params: { channels: ['orderbook_delta'], market_tickers: [TICKER] } });
    const snap = await until(() => c.frames.find((f) => f.type === 'orderbook_snapshot'));
    expect(c.frames[0]).toEqual({ id: 1, type: 'subscribed', msg: { channel: 'orderbook_delta', sid: 1 } });
    expect(snap).toMatchObject({ sid: 1, seq: 1, msg: { market_ticker: TICKER } });
    const before = await restBook();
    expect({ yes_dollars: snap.msg.yes_dollars_fp, no_dollars: snap.msg.no_dollars_fp }).toEqual(before);
    expect(before).toEqual({ yes_dollars: [['0.5800', '1000.00']], no_dollars: [['0.4000', '1000.00']] });

    // Members rest a YES bid and a YES ask (a NO bid at 0.35); the quote moves; the deltas rebuild each book.
    await sim.injectOrder('member-maker', { symbol: YES.symbol, side: 'buy', qty: '7', price: '0.5' });
    await sim.injectOrder('member-maker', { symbol: YES.symbol, side: 'sell', qty: '3', price: '0.65' });
    marks.set(YES.symbol, '0.62');
    const after = await restBook();
    const deltas = () => c.frames.filter((f) => f.type === 'orderbook_delta');
    await until(() => JSON.stringify(apply(before, deltas())) === JSON.stringify(after));
    expect(after).toEqual({
      yes_dollars: [
        ['0.5000', '7.00'],
        ['0.5800', '1000.00'],
      ],
      no_dollars: [
        ['0.3500', '3.00'],
        ['0.3800', '1000.00'],
      ],
    });
    const seqs = c.frames.filter((f) => f.sid === 1).map((f) => f.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    for (const d of deltas())
      expect(Object.keys(d.msg).sort()).toEqual([
        'delta_fp',
        'market_id',
        'market_ticker',
        'price_dollars',
        'side',
        'ts',
      ]);

    // A lost delta: its seq is skipped.
    const n = deltas().length;
    sim.loseNextDelta();
    await sim.injectOrder('member-maker', { symbol: YES.symbol, side: 'buy', qty: '2', price: '0.3' });
    await sim.injectOrder('member-maker', { symbol: YES.symbol, side: 'buy', qty: '2', price: '0.31' });
    const next = await until(() => deltas().length > n && deltas()[n]);
    expect(next.seq).toBe(deltas()[n - 1].seq! + 2);
    c.ws.terminate();
    marks.set(YES.symbol, '0.6');
  });

  it('a fill goes out on trade; unsubscribe ends the subscription; errors carry Kalshi’s codes', async () => {
    const c = await open();
    c.send({ id: 1, cmd: 'subscribe', params: { channels: ['trade', 'orderbook_delta'], market_ticker: TICKER } });
    await until(() => c.frames.some((f) => f.type === 'orderbook_snapshot'));
    expect(c.frames.filter((f) => f.type === 'subscribed').map((f) => f.msg)).toEqual([
      { channel: 'trade', sid: 1 },
      { channel: 'orderbook_delta', sid: 2 },
    ]);
    // A member buys YES through the 0.6 ask: a taker trade on the YES side.
    await sim.injectOrder('member-taker', { symbol: YES.symbol, side: 'buy', qty: '4', price: '0.65' });
    const trade = await until(() => c.frames.find((f) => f.type === 'trade'));
    expect(trade).toMatchObject({
      sid: 1,
      msg: {
        market_ticker: TICKER,
        yes_price_dollars: '0.6000',
        no_price_dollars: '0.4000',
        count_fp: '4.00',
        taker_side: 'yes',
        trade_id: expect.any(String),
        ts: expect.any(Number),
        ts_ms: expect.any(Number),
      },
    });

    c.send({ id: 2, cmd: 'unsubscribe', params: { sids: [2] } });
    await until(() => c.frames.some((f) => f.type === 'unsubscribed'));
    expect(c.frames.find((f) => f.type === 'unsubscribed')).toMatchObject({ id: 2, sid: 2 });
    const count = c.frames.length;
    await sim.injectOrder('member-maker', { symbol: YES.symbol, side: 'buy', qty: '1', price: '0.2' });
    await new Promise((r) => setTimeout(r, 60));
    expect(c.frames.slice(count).filter((f) => f.type === 'orderbook_delta')).toEqual([]);

    c.send({ id: 3, cmd: 'unsubscribe', params: { sids: [2] } });
    c.send({ id: 4, cmd: 'subscribe', params: { channels: ['ticker_v9'], market_ticker: TICKER } });
    c.send({ id: 5, cmd: 'subscribe', params: { channels: ['orderbook_delta'] } });
    c.send({ id: 6, cmd: 'fly' });
    await until(() => c.frames.filter((f) => f.type === 'error').length === 4);
    expect(c.frames.filter((f) => f.type === 'error').map((f) => [f.id, f.msg.code])).toEqual([
      [3, 7],
      [4, 8],
      [5, 11],
      [6, 5],
    ]);
    c.ws.terminate();
  });

  it('without markOf the books come from the simulator’s own prices', async () => {
    const at = () => 86_400_000;
    const own = await startKalshiSimulator({ now: at });
    try {
      const yes = new Decimal((await kalshiOwnMarks(KALSHI_SYMBOLS, { now: at })(YES.symbol))!);
      const b = ((await (await fetch(`${own.url}/markets/${TICKER}/orderbook`)).json()) as { orderbook_fp: BookFp })
        .orderbook_fp;
      const ask = new Decimal(1).minus(b.no_dollars.at(-1)![0]);
      const bid = new Decimal(b.yes_dollars.at(-1)![0]);
      expect(ask.toFixed(2)).toBe(yes.toDecimalPlaces(2, Decimal.ROUND_CEIL).toFixed(2));
      expect(bid.toFixed(2)).toBe(yes.minus('0.01').toDecimalPlaces(2, Decimal.ROUND_FLOOR).toFixed(2));
    } finally {
      await own.close();
    }
  });
});

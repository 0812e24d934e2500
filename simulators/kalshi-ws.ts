/**
 * The Kalshi simulator's WebSocket API v2 (docs/venues.md §4.4), on the simulator's port at `/trade-api/ws/v2`, as
 * Kalshi serves `wss://external-api-ws.kalshi.com/trade-api/ws/v2` (docs.kalshi.com "WebSocket API" and its
 * AsyncAPI description).
 * - Handshake: the upgrade must carry `KALSHI-ACCESS-KEY`/`-TIMESTAMP`/`-SIGNATURE` signed over
 *   `timestamp + "GET" + "/trade-api/ws/v2"` with a registered key, checked by the simulator's own REST check
 *   (simulators/kalshi.ts: key known, not revoked or expired, timestamp in the window, signature, no replay);
 *   otherwise the upgrade is refused with HTTP 401 and the REST error body, no WebSocket opens. An upgrade on another
 *   path is closed unanswered.
 * - In: `{"id":n,"cmd":"subscribe","params":{"channels":[…],"market_ticker"|"market_tickers":…}}` → per channel
 *   `{"id":n,"type":"subscribed","msg":{"channel","sid"}}` (sids count from 1 per connection);
 *   `{"id":n,"cmd":"unsubscribe","params":{"sids":[…]}}` → per sid `{"id":n,"sid","seq","type":"unsubscribed"}`.
 * - Out, `orderbook_delta` (market tickers required): per ticker `{"type":"orderbook_snapshot","sid","seq","msg":
 *   {market_ticker, market_id, yes_dollars_fp, no_dollars_fp}}` — the levels `GET /markets/{ticker}/orderbook`
 *   answers at that moment (`[price_dollars, count_fp]`, ascending) — then, when the book changes (compared every
 *   `intervalMs`), per changed level `{"type":"orderbook_delta","sid","seq","msg":{market_ticker, market_id,
 *   price_dollars, delta_fp, side, ts}}` (`delta_fp` signed, `ts` ISO time). `seq` counts the subscription's frames
 *   one by one from 1.
 * - Out, `trade` (tickers optional: all markets): per fill `{"type":"trade","sid","msg":{trade_id, market_ticker,
 *   yes_price_dollars, no_price_dollars, count_fp, taker_side, ts, ts_ms}}` (`ts` Unix s).
 * - Errors `{"id","type":"error","msg":{"code","msg"}}` with Kalshi's codes: 2 params required, 3 channels
 *   required, 4 sids required, 5 unknown command, 7 unknown subscription id, 8 unknown channel, 11 invalid parameter
 *   (an orderbook subscription without tickers, or an unknown ticker).
 * - WebSocket ping frames are answered with pongs (not while silenced).
 * Not imitated: the `ticker`, `ticker_v2`, `market_lifecycle_v2`, `multivariate` and private channels (answered code
 * 8), `update_subscription` (code 5), `send_initial_snapshot`, Kalshi's own 10 s `heartbeat` pings, connection and
 * subscription limits, answers to malformed JSON (ignored). Test controls: `dropConnections()`, `silence()` and
 * `loseNextDelta()` (the next `orderbook_delta` frame is not sent but consumes its seq: a gap).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { Decimal, ZERO } from '../domain/decimal.js';
import { socketConnections, type SimulatorSocket } from './harness.js';

/** The path of the socket (and the path its handshake signature covers). */
export const KALSHI_WS_PATH = '/trade-api/ws/v2';

/** `orderbook_fp` as `GET /markets/{ticker}/orderbook` answers it: `[price_dollars, count_fp]` per level, ascending. */
export interface KalshiBookFp {
  yes_dollars: string[][];
  no_dollars: string[][];
}

/** One public trade as the `trade` channel shows it (fixed-point strings; `taker_side` the outcome the taker bought). */
export interface KalshiTradeEvent {
  trade_id: string;
  market_ticker: string;
  yes_price_dollars: string;
  no_price_dollars: string;
  count_fp: string;
  taker_side: 'yes' | 'no';
  /** Unix ms of the trade. */
  ts_ms: number;
}

/** Where the socket takes its data and its handshake check from: the simulator (simulators/kalshi.ts). */
export interface KalshiWsSource {
  /** The market's book now, or null for a ticker not listed. */
  book(ticker: string): Promise<KalshiBookFp | null>;
  /** Checks the upgrade's signed headers over `GET /trade-api/ws/v2`: null when accepted, else the 401 body. */
  refusal(req: IncomingMessage): unknown;
}

/** The socket's server side (module doc). */
export interface KalshiWs extends SimulatorSocket {
  /** Sends `trade` of the fill to every subscriber of its market. */
  publishTrade(t: KalshiTradeEvent): void;
  /** The next `orderbook_delta` frame is not sent, but its seq is used up (its book still counts as sent): a gap. */
  loseNextDelta(): void;
}

/** One subscription of a connection. */
interface Sub {
  channel: 'orderbook_delta' | 'trade';
  /** Market tickers; empty = every market (trade only). */
  tickers: string[];
  seq: number;
  /** Per ticker the book last sent (null until its snapshot went out). */
  sent: Map<string, KalshiBookFp | null>;
}

/** Per connection: its subscriptions by sid, and the next sid. */
interface Conn {
  subs: Map<number, Sub>;
  nextSid: number;
}

const CHANNELS = ['orderbook_delta', 'trade'] as const;

/** The changed levels of one side from `before` to `after`: per price the signed change of contracts (`count_fp`, 2 decimals). */
function changes(before: string[][], after: string[][]): { price: string; delta: string }[] {
  const was = new Map(before.map(([p, c]) => [p, new Decimal(c)]));
  const now = new Map(after.map(([p, c]) => [p, new Decimal(c)]));
  const out: { price: string; delta: string }[] = [];
  for (const p of new Set([...was.keys(), ...now.keys()])) {
    const d = (now.get(p) ?? ZERO).minus(was.get(p) ?? ZERO);
    if (!d.isZero()) out.push({ price: p, delta: d.toFixed(2) });
  }
  return out;
}

/**
 * The simulator's WebSocket (module doc) over `source`; `tickers` are the markets listed, `intervalMs` (default 100)
 * how often subscribed books are compared for `orderbook_delta`.
 */
export function kalshiWs(
  source: KalshiWsSource,
  tickers: readonly string[],
  opts: { intervalMs?: number } = {},
): KalshiWs {
  const listed = new Set(tickers);
  let silenced = false;
  let loseNext = false;

  const send = (ws: WebSocket, msg: unknown) => {
    if (ws.readyState === ws.OPEN && !silenced) ws.send(JSON.stringify(msg));
  };
  const error = (ws: WebSocket, id: unknown, code: number, msg: string) =>
    send(ws, { id, type: 'error', msg: { code, msg } });

  async function snapshot(ws: WebSocket, sid: number, sub: Sub) {
    for (const t of sub.tickers) {
      const b = await source.book(t);
      if (!b || conns.get(ws)?.subs.get(sid) !== sub) return;
      sub.sent.set(t, b);
      send(ws, {
        type: 'orderbook_snapshot',
        sid,
        seq: ++sub.seq,
        msg: { market_ticker: t, market_id: t, yes_dollars_fp: b.yes_dollars, no_dollars_fp: b.no_dollars },
      });
    }
  }

  let ticking = false;
  async function tick(): Promise<void> {
    if (ticking || silenced) return;
    ticking = true;
    try {
      for (const [ws, conn] of conns)
        for (const [sid, sub] of conn.subs) {
          if (sub.channel !== 'orderbook_delta') continue;
          for (const [t, last] of sub.sent) {
            if (!last) continue;
            const b = await source.book(t);
            if (!b || sub.sent.get(t) !== last) continue;
            const levels = [
              ...changes(last.yes_dollars, b.yes_dollars).map((c) => ({ ...c, side: 'yes' })),
              ...changes(last.no_dollars, b.no_dollars).map((c) => ({ ...c, side: 'no' })),
            ];
            sub.sent.set(t, b);
            for (const l of levels) {
              const seq = ++sub.seq;
              if (loseNext) {
                loseNext = false;
                continue;
              }
              send(ws, {
                type: 'orderbook_delta',
                sid,
                seq,
                msg: {
                  market_ticker: t,
                  market_id: t,
                  price_dollars: l.price,
                  delta_fp: l.delta,
                  side: l.side,
                  ts: new Date().toISOString(),
                },
              });
            }
          }
        }
    } finally {
      ticking = false;
    }
  }

  function onSubscribe(ws: WebSocket, conn: Conn, id: unknown, params: Record<string, unknown>) {
    const channels = params.channels;
    if (!Array.isArray(channels) || channels.length === 0) return error(ws, id, 3, 'Channels required');
    const wanted =
      typeof params.market_ticker === 'string'
        ? [params.market_ticker]
        : Array.isArray(params.market_tickers)
          ? params.market_tickers
          : [];
    if (!wanted.every((t): t is string => typeof t === 'string' && listed.has(t)))
      return error(ws, id, 11, 'Invalid parameter: unknown market ticker');
    for (const channel of channels) {
      if (!CHANNELS.includes(channel as Sub['channel'])) {
        error(ws, id, 8, 'Unknown channel name');
        continue;
      }
      if (channel === 'orderbook_delta' && wanted.length === 0) {
        error(ws, id, 11, 'Invalid parameter: market_ticker or market_tickers required');
        continue;
      }
      const sid = conn.nextSid++;
      const sub: Sub = {
        channel: channel as Sub['channel'],
        tickers: [...new Set(wanted)],
        seq: 0,
        sent: new Map(),
      };
      conn.subs.set(sid, sub);
      send(ws, { id, type: 'subscribed', msg: { channel, sid } });
      if (sub.channel === 'orderbook_delta') {
        for (const t of sub.tickers) sub.sent.set(t, null);
        void snapshot(ws, sid, sub).catch(() => undefined);
      }
    }
  }

  function onMessage(ws: WebSocket, conn: Conn, raw: string): void {
    let m: { id?: unknown; cmd?: unknown; params?: unknown };
    try {
      m = JSON.parse(raw) as typeof m;
    } catch {
      return;
    }
    if (!m || typeof m !== 'object') return;
    if (m.cmd !== 'subscribe' && m.cmd !== 'unsubscribe') return error(ws, m.id, 5, 'Unknown command');
    if (!m.params || typeof m.params !== 'object') return error(ws, m.id, 2, 'Params required');
    const params = m.params as Record<string, unknown>;
    if (m.cmd === 'subscribe') return onSubscribe(ws, conn, m.id, params);
    if (!Array.isArray(params.sids) || params.sids.length === 0) return error(ws, m.id, 4, 'Subscription IDs required');
    for (const sid of params.sids) {
      const sub = conn.subs.get(Number(sid));
      if (!sub) {
        error(ws, m.id, 7, 'Unknown subscription ID');
        continue;
      }
      conn.subs.delete(Number(sid));
      send(ws, { id: m.id, sid: Number(sid), seq: sub.seq + 1, type: 'unsubscribed' });
    }
  }

  const sockets = socketConnections<Conn>({
    accepts: (path) => path === KALSHI_WS_PATH,
    intervalMs: opts.intervalMs ?? 100,
    tick,
    autoPong: false,
    open(ws) {
      const conn: Conn = { subs: new Map(), nextSid: 1 };
      ws.on('message', (data) => onMessage(ws, conn, Buffer.isBuffer(data) ? data.toString('utf8') : String(data)));
      ws.on('ping', (data) => {
        if (!silenced) ws.pong(data);
      });
      return conn;
    },
  });
  const conns = sockets.conns;

  /** Refuses an upgrade on the socket's path whose signed headers do not verify: HTTP 401 with the REST error body. */
  function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (new URL(req.url ?? '/', 'http://127.0.0.1').pathname === KALSHI_WS_PATH) {
      const body = source.refusal(req);
      if (body !== null) {
        const text = JSON.stringify(body);
        socket.end(
          `HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
        );
        return;
      }
    }
    sockets.upgrade(req, socket, head);
  }

  return {
    upgrade,
    publishTrade(t) {
      const { ts_ms, ...rest } = t;
      for (const [ws, conn] of conns)
        for (const [sid, sub] of conn.subs)
          if (sub.channel === 'trade' && (sub.tickers.length === 0 || sub.tickers.includes(t.market_ticker)))
            send(ws, { type: 'trade', sid, msg: { ...rest, ts: Math.floor(ts_ms / 1000), ts_ms } });
    },
    loseNextDelta() {
      loseNext = true;
    },
    dropConnections: sockets.dropConnections,
    lag: sockets.lag,
    silence(on) {
      silenced = on;
    },
    connections: sockets.connections,
    close: sockets.close,
  };
}

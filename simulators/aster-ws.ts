/**
 * The Aster simulator's futures market streams (docs/venues.md §2.4), on the simulator's port, as the
 * venue serves `wss://fstream.asterdex.com` (asterdex/api-docs `V3(Recommended)/EN/aster-finance-futures-api-v3.md`,
 * "Websocket Market Streams"). Paths: `/ws` and `/ws/<streamName>` (raw payloads), `/stream?streams=<a>/<b>/…`
 * (combined: `{"stream":<name>,"data":<payload>}`). Stream names are lower-case; the simulator serves:
 * - `<symbol>@depth<5|10|20>` with `@100ms` / `@500ms` or no suffix (250 ms): partial book depth, the whole top
 *   `<levels>` a side every period, `{"e":"depthUpdate","E","T","s","U","u","pu","b","a"}` — `b`/`a` the same
 *   `[price, qty]` levels `GET /fapi/v3/depth?limit=<levels>` answers at that moment (synthetic depth around the
 *   mark plus the resting orders), `u` that answer's `lastUpdateId`, `pu` the `u` of the stream's previous frame
 *   (`u − 1` on the first), `U` = `pu + 1`;
 * - `<symbol>@aggTrade`: one `{"e":"aggTrade","E","s","a","p","q","f","l","T","m"}` per fill of the simulator
 *   (`a` = `f` = `l` = its trade id, `m` = the buyer was the maker).
 * Requests (text frames): `{"method":"SUBSCRIBE"|"UNSUBSCRIBE","params":[names],"id":n}` → `{"result":null,"id":n}`,
 * `LIST_SUBSCRIPTIONS` → `{"result":[names],"id":n}`, `SET_PROPERTY ["combined",bool]` / `GET_PROPERTY ["combined"]`;
 * errors in the documented shape: `{"code":3,"msg":"Invalid JSON: …"}`, `{"code":2,"msg":"Invalid request: …"}`
 * (an unknown method, a missing or non-integer `id`), `{"code":0,"msg":"Unknown property"}`,
 * `{"code":1,"msg":"Invalid value type: expected Boolean"}`; a stream name it does not serve is refused as
 * `{"code":2,"msg":"Invalid request: unknown stream <name>","id":n}` (the simulator's wording). WebSocket
 * ping frames are answered with pongs (not while silenced).
 * Not imitated: diff depth (`@depth`, `@depth@100ms`), mark price, klines, tickers, book tickers, liquidations,
 * user data streams; the server's own ping every 5 minutes, the 10 messages/s and 200 streams limits, the 24 h
 * connection cut (tests drop connections with `dropConnections()`).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { socketConnections } from './harness.js';

/** `GET /fapi/v3/depth`'s answer (prices USDT and sizes in coins as decimal strings), as aster-markets.ts builds it. */
export interface AsterDepth {
  lastUpdateId: number;
  E: number;
  T: number;
  bids: string[][];
  asks: string[][];
}

/** One fill of the simulator as `aggTrade` shows it: trade id, venue symbol (`BTCUSDT`), price, qty, time (Unix ms), whether the buyer was the maker. */
export interface AsterAggTrade {
  id: number;
  symbol: string;
  price: string;
  qty: string;
  time: number;
  buyerMaker: boolean;
}

/** Where the streams take their data from: the simulator's own books. */
export interface AsterWsSource {
  /** `GET /fapi/v3/depth` of `symbol` (`BTCUSDT`) at `limit` levels a side, or null for a symbol not listed. */
  depth(symbol: string, limit: number): Promise<AsterDepth | null>;
}

/** The socket side of the simulator: attach `upgrade` to the HTTP server; `publishTrade` after each fill. */
export interface AsterWs {
  /** Handles an HTTP upgrade: `/ws`, `/ws/<name>` and `/stream?streams=…` become sockets, any other path is refused. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Sends the fill to every subscriber of its symbol's `@aggTrade`. */
  publishTrade(t: AsterAggTrade): void;
  /** Closes every open socket abruptly (no close frame); answers how many were open. */
  dropConnections(): number;
  /** `true`: sockets stay open but nothing is sent (no data, no answers, no pongs); `false`: sending resumes. */
  silence(on: boolean): void;
  /** Every frame sent leaves `ms` late, in order, and handshakes are answered `ms` late (harness.ts `SimulatorSocket.lag`). */
  lag(ms: number): void;
  /** Open sockets now. */
  connections(): number;
  /** Drops every socket and stops the timer. */
  close(): Promise<void>;
}

/** A stream the simulator serves, parsed from its name. */
type Stream =
  { kind: 'depth'; symbol: string; levels: number; periodMs: number } | { kind: 'aggTrade'; symbol: string };

/** One socket's state: its streams (name → stream, last `u`, last send) and whether payloads are wrapped. */
interface Conn {
  streams: Map<string, { stream: Stream; lastU: number | null; sentMs: number }>;
  combined: boolean;
}

const DEPTH = /^([a-z0-9]+)@depth(5|10|20)(?:@(100|500)ms)?$/;
const AGG = /^([a-z0-9]+)@aggTrade$/;

/**
 * The simulator's market streams (module doc) over `source`. `intervalMs` (ms) replaces every depth
 * stream's period when given (tests); `symbols` are the venue symbols listed (`BTCUSDT`).
 */
export function asterWs(
  source: AsterWsSource,
  symbols: readonly string[],
  opts: { intervalMs?: number } = {},
): AsterWs {
  const listed = new Set(symbols.map((s) => s.toLowerCase()));
  let silenced = false;

  const parse = (name: unknown): Stream | null => {
    if (typeof name !== 'string') return null;
    const d = DEPTH.exec(name);
    if (d && listed.has(d[1]))
      return { kind: 'depth', symbol: d[1].toUpperCase(), levels: Number(d[2]), periodMs: Number(d[3] ?? 250) };
    const a = AGG.exec(name);
    return a && listed.has(a[1]) ? { kind: 'aggTrade', symbol: a[1].toUpperCase() } : null;
  };

  const send = (ws: WebSocket, msg: unknown) => {
    if (ws.readyState === ws.OPEN && !silenced) ws.send(JSON.stringify(msg));
  };
  const push = (ws: WebSocket, c: Conn, name: string, payload: unknown) =>
    send(ws, c.combined ? { stream: name, data: payload } : payload);

  async function depthFrame(ws: WebSocket, c: Conn, name: string): Promise<void> {
    const held = c.streams.get(name);
    if (!held || held.stream.kind !== 'depth' || silenced) return;
    const d = await source.depth(held.stream.symbol, held.stream.levels);
    if (!d) return;
    const pu = held.lastU ?? d.lastUpdateId - 1;
    held.lastU = d.lastUpdateId;
    held.sentMs = Date.now();
    push(ws, c, name, {
      e: 'depthUpdate',
      E: d.E,
      T: d.T,
      s: held.stream.symbol,
      U: pu + 1,
      u: d.lastUpdateId,
      pu,
      b: d.bids,
      a: d.asks,
    });
  }

  let ticking = false;
  async function tick(): Promise<void> {
    if (ticking) return;
    ticking = true;
    try {
      const now = Date.now();
      for (const [ws, c] of conns)
        for (const [name, held] of c.streams)
          if (held.stream.kind === 'depth' && now - held.sentMs >= (opts.intervalMs ?? held.stream.periodMs))
            await depthFrame(ws, c, name);
    } finally {
      ticking = false;
    }
  }

  const invalid = (msg: string, id?: unknown) =>
    id === undefined ? { code: 2, msg: `Invalid request: ${msg}` } : { code: 2, msg: `Invalid request: ${msg}`, id };

  function onMessage(ws: WebSocket, c: Conn, raw: string): void {
    let msg: { method?: unknown; params?: unknown; id?: unknown };
    try {
      msg = JSON.parse(raw) as typeof msg;
    } catch {
      return send(ws, { code: 3, msg: 'Invalid JSON: expected value at line 1 column 1' });
    }
    if (!msg || typeof msg !== 'object')
      return send(ws, { code: 3, msg: 'Invalid JSON: expected value at line 1 column 1' });
    if (msg.method === undefined) return send(ws, invalid('missing field `method`'));
    const id = msg.id;
    if (typeof id !== 'number' || !Number.isInteger(id) || id < 0)
      return send(ws, invalid('request ID must be an unsigned integer'));
    const params = Array.isArray(msg.params) ? (msg.params as unknown[]) : [];
    switch (msg.method) {
      case 'SUBSCRIBE':
      case 'UNSUBSCRIBE': {
        const bad = params.find((p) => !parse(p));
        if (bad !== undefined)
          return send(ws, invalid(`unknown stream ${typeof bad === 'string' ? bad : JSON.stringify(bad)}`, id));
        for (const p of params as string[])
          if (msg.method === 'UNSUBSCRIBE') c.streams.delete(p);
          else if (!c.streams.has(p)) c.streams.set(p, { stream: parse(p)!, lastU: null, sentMs: 0 });
        send(ws, { result: null, id });
        if (msg.method === 'SUBSCRIBE')
          for (const p of params as string[]) void depthFrame(ws, c, p).catch(() => undefined);
        return;
      }
      case 'LIST_SUBSCRIPTIONS':
        return send(ws, { result: [...c.streams.keys()], id });
      case 'SET_PROPERTY':
        if (params[0] !== 'combined') return send(ws, { code: 0, msg: 'Unknown property', id });
        if (typeof params[1] !== 'boolean')
          return send(ws, { code: 1, msg: 'Invalid value type: expected Boolean', id });
        c.combined = params[1];
        return send(ws, { result: null, id });
      case 'GET_PROPERTY':
        if (params[0] !== 'combined') return send(ws, { code: 0, msg: 'Unknown property', id });
        return send(ws, { result: c.combined, id });
      default:
        return send(
          ws,
          invalid(
            `unknown variant ${JSON.stringify(msg.method)}, expected one of \`SUBSCRIBE\`, \`UNSUBSCRIBE\`, \`LIST_SUBSCRIPTIONS\`, \`SET_PROPERTY\`, \`GET_PROPERTY\``,
            id,
          ),
        );
    }
  }

  const sockets = socketConnections<Conn>({
    accepts: (path) => path === '/ws' || path.startsWith('/ws/') || path === '/stream',
    intervalMs: Math.min(opts.intervalMs ?? 100, 100),
    tick,
    autoPong: false,
    open(ws, req) {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const combined = url.pathname === '/stream';
      const c: Conn = { streams: new Map(), combined };
      const initial = combined
        ? (url.searchParams.get('streams') ?? '').split('/').filter(Boolean)
        : url.pathname.slice('/ws'.length).split('/').filter(Boolean);
      for (const name of initial) {
        const stream = parse(name);
        if (stream) c.streams.set(name, { stream, lastU: null, sentMs: 0 });
      }
      ws.on('ping', (data) => {
        if (!silenced) ws.pong(data);
      });
      ws.on('message', (data) => onMessage(ws, c, Buffer.isBuffer(data) ? data.toString('utf8') : String(data)));
      return c;
    },
  });
  const conns = sockets.conns;

  return {
    upgrade: sockets.upgrade,
    publishTrade(t) {
      const name = `${t.symbol.toLowerCase()}@aggTrade`;
      const payload = {
        e: 'aggTrade',
        E: Date.now(),
        s: t.symbol,
        a: t.id,
        p: t.price,
        q: t.qty,
        f: t.id,
        l: t.id,
        T: t.time,
        m: t.buyerMaker,
      };
      for (const [ws, c] of conns) if (c.streams.has(name)) push(ws, c, name, payload);
    },
    dropConnections: sockets.dropConnections,
    silence(on) {
      silenced = on;
    },
    connections: sockets.connections,
    lag: sockets.lag,
    close: sockets.close,
  };
}

/**
 * What every venue simulator shares: its options and test controls, its injectable faults (a lost
 * acknowledgement, a refusal), the count of accepted orders, the time spent answering, and the HTTP
 * plumbing (read the body, route, answer JSON or text, map a refusal to the venue's error shape, on
 * 127.0.0.1). Each simulator keeps its own wire format, signature checks and error shapes; the
 * matching against the mark is ./matching.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Holdings } from './holdings.js';

/** Options every simulator takes. */
export interface SimulatorOptions {
  /** Port on 127.0.0.1 (0 or absent = a free port). */
  port?: number;
  /** Current mark (decimal string; USD for perps, probability 0–1 for prediction markets) of a PLATFORM symbol, or null. */
  markOf: (symbol: string) => Promise<string | null>;
  /** Which network the venue's signatures are checked for (default mainnet). */
  network?: 'mainnet' | 'testnet';
}

/**
 * An order placed in a venue's own web interface ({@link VenueSimulator.injectOrder}), in the
 * platform's vocabulary: a limit order to buy or sell `qty` of a platform symbol at `price` (decimal
 * strings in the symbol's units: coins or contracts, USD per coin or per contract).
 */
export interface InjectedLimit {
  /** Platform symbol (`ETH.ASTER`). */
  symbol: string;
  side: 'buy' | 'sell';
  qty: string;
  price: string;
}

/** A running simulator and the test controls every one offers; `Injected` is an order placed in the venue's own web interface. */
export interface VenueSimulator<Injected> {
  /** Base URL (what the venue's `*_API_URL` holds). */
  url: string;
  close(): Promise<void>;
  /** Accept and record the next order, then destroy the socket without answering (a lost ack). */
  dropNextAck(): void;
  /** Refuse the next order with `reason`, in the venue's own error shape. */
  rejectNext(reason: string): void;
  /** An order placed in the venue's web interface for `owner` (rests unless marketable). */
  injectOrder(owner: string, o: Injected): Promise<{ venueOrderId: string }>;
  /** Fills resting orders the mark has crossed (and fires trigger orders the mark has reached). */
  poke(): Promise<void>;
  /** Orders ever accepted for `owner` (addresses in any case). */
  orderCount(owner: string): number;
  /**
   * Orders ever accepted per client order id, the venue's own field (Hyperliquid `cloid`, Aster `newClientOrderId`,
   * Kalshi `client_order_id`, Polymarket the order's `salt`): more than one under an id is a duplicate order.
   */
  clientOrderIds(): ReadonlyMap<string, number>;
  /** Credits `amountUsd` (decimal string) of collateral to `owner`: a deposit on the venue (simulators/holdings.ts). */
  fund(owner: string, amountUsd: string): void;
  /** Requests answered so far and the time spent answering them (ms, from the body read to the answer sent): the venue's own share of a round trip. */
  served(): Served;
}

/** What a simulator has answered: requests, and the time from each body read to its answer sent, summed (ms). */
export interface Served {
  requests: number;
  ms: number;
}

/** One-shot faults a test arms: the next accepted order loses its answer, or the next order is refused. */
export class Faults {
  private drop = false;
  private reject: string | null = null;

  /** The next accepted order is kept but its response is never sent (the socket is destroyed). */
  dropNextAck(): void {
    this.drop = true;
  }

  /** The next order is refused with `reason` (the venue's own error shape). */
  rejectNext(reason: string): void {
    this.reject = reason;
  }

  /** The armed refusal, once (null when none). */
  takeRejection(): string | null {
    const reason = this.reject;
    this.reject = null;
    return reason;
  }

  /** When a drop is armed: disarms it and destroys `res`'s socket (the answer is lost); true then, else false. */
  dropAck(res: ServerResponse): boolean {
    if (!this.drop) return false;
    this.drop = false;
    res.socket?.destroy();
    return true;
  }
}

/**
 * The tally of the orders a simulator has accepted: per owner ({@link VenueSimulator.orderCount}) and
 * per client order id ({@link VenueSimulator.clientOrderIds}).
 */
export class Tally {
  private readonly perOwner = new Map<string, number>();
  private readonly perClientId = new Map<string, number>();

  /** One more order of `owner` under `clientOrderId` (null: an order without one, counted per owner only). */
  add(owner: string, clientOrderId: string | null): void {
    this.perOwner.set(owner, this.of(owner) + 1);
    if (clientOrderId !== null) this.perClientId.set(clientOrderId, (this.perClientId.get(clientOrderId) ?? 0) + 1);
  }

  /** Orders accepted for `owner` (0 when none). */
  of(owner: string): number {
    return this.perOwner.get(owner) ?? 0;
  }

  /** Orders accepted per client order id. */
  clientOrderIds(): ReadonlyMap<string, number> {
    return this.perClientId;
  }
}

/** An answer other than a plain 200 JSON body: a status with a JSON value, or (`text`) a plain-text body. */
export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly text = false,
  ) {}
}

/** The plain-text 404 `Not Found` (the perp venues' answer to an unknown path). */
export const NOT_FOUND_TEXT = new Reply(404, 'Not Found', true);

/** An error's message (or the thrown value as text). */
export const messageOf = (err: unknown): string => String((err as Error | undefined)?.message ?? err);

/** A venue's WebSocket server beside a simulator's HTTP routes (simulators/hyperliquid-ws.ts, aster-ws.ts). */
export interface SimulatorSocket {
  /** Handles an HTTP upgrade on the simulator's port. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Drops every open connection abruptly (no close frame); answers how many were open. */
  dropConnections(): number;
  /** Connections open now. */
  connections(): number;
  /** `true`: the socket goes silent (connections open, nothing sent: a stuck venue); `false`: it resumes. */
  silence(on: boolean): void;
  /**
   * A venue that answers slowly: from now on every frame the simulator sends (data, answers, pongs) leaves
   * `ms` (ms, ≥ 0) after it was sent, in the order sent, and a WebSocket handshake is answered `ms` after the
   * upgrade request arrived. The lag counts from each frame's (request's) own time, so a change applies to
   * what still waits too: `lag(0)` releases everything held at once, in order. {@link socketConnections} provides it.
   */
  lag(ms: number): void;
  close(): Promise<void>;
}

/** A frame (or an upgrade) held back by a lag: when it was sent (Unix ms) and what sends it. */
interface Held {
  at: number;
  run: () => void;
}

/**
 * A first-in first-out line of held actions released `lagOf()` ms after each one's own time: the head goes
 * first, so the order is kept whatever the lag does. `push` runs at once when the lag is 0 and nothing waits;
 * `pump` releases what is due and waits for the head (call it again when the lag changes); `clear` drops all.
 */
function heldLine(lagOf: () => number) {
  const line: Held[] = [];
  let timer: NodeJS.Timeout | undefined;
  const pump = () => {
    clearTimeout(timer);
    timer = undefined;
    while (line.length > 0 && line[0].at + lagOf() <= Date.now()) line.shift()!.run();
    if (line.length > 0) timer = setTimeout(pump, line[0].at + lagOf() - Date.now());
  };
  return {
    push(run: () => void) {
      if (line.length === 0 && lagOf() <= 0) return run();
      line.push({ at: Date.now(), run });
      if (line.length === 1) pump();
    },
    pump,
    clear() {
      clearTimeout(timer);
      timer = undefined;
      line.length = 0;
    },
  };
}

/** The outgoing methods of a connection that put a frame on the wire (a `ws` auto-pong goes through `pong` too). */
const OUTGOING = ['send', 'ping', 'pong'] as const;

/**
 * Routes `ws`'s outgoing frames through a {@link heldLine} of lag `lagOf()`: each frame is put on the wire when
 * released, unless the connection is no longer open then. Answers the line (to pump on a lag change, clear on close).
 */
function lagFrames(ws: WebSocket, lagOf: () => number) {
  const line = heldLine(lagOf);
  for (const method of OUTGOING) {
    const original = ws[method].bind(ws) as (...args: unknown[]) => void;
    Object.defineProperty(ws, method, {
      configurable: true,
      value: (...args: unknown[]) =>
        line.push(() => {
          if (ws.readyState === ws.OPEN) original(...args);
        }),
    });
  }
  return line;
}

/**
 * The connection bookkeeping every simulator socket shares (simulators/*-ws.ts): a `ws` server without an HTTP
 * server of its own, upgrades accepted on the paths `accepts` names (others destroyed), each connection's state
 * `C` from `open` (which also attaches its message handlers), `tick` run every `intervalMs` (ms) while any
 * connection is open (a rejected tick is ignored), abrupt drops and an orderly close. `autoPong: false` leaves
 * WebSocket ping frames to the simulator (to go silent on them). `lag(ms)` ({@link SimulatorSocket.lag}) holds
 * back every frame sent on any connection (whatever the simulator sends, through `send`, `ping` or `pong`) and
 * every handshake; 0 (the default) sends at once.
 */
export function socketConnections<C>(opts: {
  accepts: (path: string) => boolean;
  open: (ws: WebSocket, req: IncomingMessage) => C;
  tick: () => Promise<void>;
  intervalMs: number;
  autoPong?: boolean;
}): Omit<SimulatorSocket, 'silence'> & { conns: Map<WebSocket, C> } {
  const wss = new WebSocketServer({ noServer: true, autoPong: opts.autoPong ?? true });
  const conns = new Map<WebSocket, C>();
  let timer: NodeJS.Timeout | undefined;
  let lagMs = 0;
  const lagOf = () => lagMs;
  const lines = new Map<WebSocket, ReturnType<typeof heldLine>>();
  const handshakes = heldLine(lagOf);
  wss.on('connection', (ws: WebSocket, req: IncomingMessage) => {
    lines.set(ws, lagFrames(ws, lagOf));
    conns.set(ws, opts.open(ws, req));
    timer ??= setInterval(() => void opts.tick().catch(() => undefined), opts.intervalMs);
    ws.on('close', () => {
      lines.get(ws)?.clear();
      lines.delete(ws);
      conns.delete(ws);
      if (conns.size === 0) {
        clearInterval(timer);
        timer = undefined;
      }
    });
  });
  const dropConnections = () => {
    const n = conns.size;
    for (const ws of conns.keys()) ws.terminate();
    return n;
  };
  return {
    conns,
    upgrade(req, socket, head) {
      if (!opts.accepts(new URL(req.url ?? '/', 'http://127.0.0.1').pathname)) {
        socket.destroy();
        return;
      }
      // A client that gives up while its handshake is held must not crash the simulator.
      const gaveUp = () => socket.destroy();
      socket.on('error', gaveUp);
      handshakes.push(() => {
        socket.off('error', gaveUp);
        if (!socket.destroyed) wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
      });
    },
    dropConnections,
    connections: () => conns.size,
    lag(ms) {
      if (!(Number.isFinite(ms) && ms >= 0)) throw new Error(`lag must be a non-negative number of ms, got ${ms}`);
      lagMs = ms;
      handshakes.pump();
      for (const line of lines.values()) line.pump();
    },
    async close() {
      handshakes.clear();
      dropConnections();
      clearInterval(timer);
      timer = undefined;
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

/** The test controls of a simulator that serves a {@link SimulatorSocket} (its `wsUrl` and the socket controls). */
export interface SocketControls {
  /** URL of the venue's WebSocket on the simulator (`ws://127.0.0.1:<port>/ws`). */
  wsUrl: string;
  /** Drops every open WebSocket connection abruptly (no close frame); answers how many were open. */
  dropWsConnections(): number;
  /** WebSocket connections open now. */
  wsConnections(): number;
  /** `true`: the WebSocket goes silent (connections open, nothing sent: a stuck venue); `false`: it resumes. */
  silenceWs(on: boolean): void;
  /**
   * A venue that answers slowly ({@link SimulatorSocket.lag}): every frame the WebSocket sends leaves `ms` (ms)
   * late, in order, and handshakes are answered `ms` late; `lagWs(0)` ends it (what waits is sent at once).
   * @throws Error on a negative or non-finite `ms`.
   */
  lagWs(ms: number): void;
}

/**
 * {@link listen} with `ws` served on the same port (upgrades handed to it): the common controls plus the socket's
 * ({@link SocketControls}); `close()` closes the socket's connections, then the HTTP server.
 */
export async function listenWithSocket(opts: Omit<Parameters<typeof listen>[0], 'upgrade'>, ws: SimulatorSocket) {
  const common = await listen({ ...opts, upgrade: (req, socket, head) => ws.upgrade(req, socket, head) });
  return {
    ...common,
    wsUrl: `${common.url.replace(/^http/, 'ws')}/ws`,
    dropWsConnections: () => ws.dropConnections(),
    wsConnections: () => ws.connections(),
    silenceWs: (on: boolean) => ws.silence(on),
    lagWs: (ms: number) => ws.lag(ms),
    async close() {
      await ws.close();
      await common.close();
    },
  } satisfies SocketControls & Record<string, unknown>;
}

/**
 * Serves `route` on 127.0.0.1:`port` (0 = any). `route` gets the request, the response (to destroy
 * its socket for a lost ack) and the body text; it answers a JSON value (200), a {@link Reply}, or
 * anything once the socket is destroyed (nothing is sent then). A throw is answered with
 * `fail(err)`. Resolves with the controls every simulator answers the same way: the base URL
 * (`http://127.0.0.1:<port>` + `path`), `close()`, what it has served, and the two `faults` to arm.
 */
export async function listen(opts: {
  port?: number;
  path?: string;
  route: (req: IncomingMessage, res: ServerResponse, body: string) => Promise<unknown>;
  fail: (err: unknown) => Reply;
  faults: Faults;
  /** Handles an HTTP upgrade (a WebSocket); absent: upgrades go unanswered. */
  upgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
}): Promise<Pick<VenueSimulator<unknown>, 'url' | 'close' | 'dropNextAck' | 'rejectNext' | 'served'>> {
  const served: Served = { requests: 0, ms: 0 };
  const send = (res: ServerResponse, out: unknown) => {
    if (res.destroyed || res.socket?.destroyed) return;
    const r = out instanceof Reply ? out : new Reply(200, out);
    if (r.text) res.writeHead(r.status, { 'content-type': 'text/plain' }).end(String(r.body));
    else res.writeHead(r.status, { 'content-type': 'application/json' }).end(JSON.stringify(r.body ?? null));
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const started = performance.now();
      opts
        .route(req, res, Buffer.concat(chunks).toString('utf8'))
        .then((out) => send(res, out))
        .catch((err: unknown) => send(res, opts.fail(err)))
        .finally(() => {
          served.requests++;
          served.ms += performance.now() - started;
        });
    });
  });
  if (opts.upgrade) server.on('upgrade', opts.upgrade);
  const bound = await serve(server, opts.port, opts.path);
  return {
    url: bound.url,
    close: () => bound.close(),
    served: () => ({ ...served }),
    dropNextAck: () => opts.faults.dropNextAck(),
    rejectNext: (reason) => opts.faults.rejectNext(reason),
  };
}

/** Listens on 127.0.0.1:`port` (0 = any); answers the base URL (`http://127.0.0.1:<port>` + `path`) and `close()`. */
async function serve(server: Server, port = 0, path = ''): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}${path}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The per-owner test controls of a simulator whose owners are addresses (Hyperliquid, Aster, Polymarket):
 * `orderCount` reads the orders `accepted` counted under the lower-case address, `fund` credits the
 * lower-case address in `holdings` (simulators/holdings.ts), so a test may pass an address in any case,
 * and adds it to `funded` when given (the venues where a deposit makes a wallet known).
 */
export function addressControls(
  accepted: Pick<Tally, 'of'>,
  holdings: Pick<Holdings, 'fund'>,
  funded?: Set<string>,
): Pick<VenueSimulator<unknown>, 'orderCount' | 'fund'> {
  return {
    orderCount: (owner) => accepted.of(lc(owner)),
    fund: (owner, amountUsd) => {
      funded?.add(lc(owner));
      holdings.fund(lc(owner), amountUsd);
    },
  };
}

/**
 * Lower-case text of an address field, header or parameter (`''` for null/undefined; a repeated
 * header's values comma-joined): addresses compare lower-case.
 */
export const lc = (s: string | readonly string[] | null | undefined): string => String(s ?? '').toLowerCase();

/** Whether `s` is a 0x-prefixed 20-byte hex address. */
export const isAddress = (s: unknown): s is string => typeof s === 'string' && /^0x[0-9a-fA-F]{40}$/.test(s);

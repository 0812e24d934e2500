/**
 * A local Kalshi Trade API v2 simulator (node:http on 127.0.0.1) serving the REST surface the
 * adapter uses under the real base path `/trade-api/v2`, with Kalshi's paths and JSON shapes
 * (docs/venues.md §4):
 * - `GET /portfolio/balance` → `{balance, portfolio_value, updated_ts}` (cents: the member's free cash and
 *   the value of its positions at the marks; the authorisation proof call);
 * - `GET /portfolio/positions` (`limit`, `cursor`) → `{market_positions, event_positions, cursor}`: per
 *   ticker `position` (YES contracts − NO contracts) and `market_exposure` (their cost, cents);
 * - `POST /portfolio/orders` → 201 `{order}`; `GET /portfolio/orders` (`ticker`, `event_ticker`,
 *   `min_ts`, `max_ts`, `status`, `limit` ≤ 200, `cursor`) → `{orders, cursor}` newest first;
 *   `GET /portfolio/orders/{id}` → `{order}`; `DELETE /portfolio/orders/{id}` → `{order, reduced_by}`;
 * - `GET /portfolio/fills` (`ticker`, `order_id`, `min_ts`, `max_ts`, `limit` ≤ 200, `cursor`) → `{fills, cursor}`.
 *
 * Authentication, checked on EVERY request as Kalshi does: the `KALSHI-ACCESS-KEY` must be a key
 * registered with {@link KalshiSimulator.registerKey} (the stand-in for kalshi.com's API-key page),
 * not revoked and not expired; `KALSHI-ACCESS-SIGNATURE` must verify (RSA-PSS-SHA256, MGF1-SHA256,
 * salt length AUTO) under that key's public key over `timestamp + METHOD + path`, where path is
 * the request's URL path including `/trade-api/v2` and without the query — so a signature over the
 * query, or over the path without `/trade-api/v2`, fails; the timestamp must be within
 * ±{@link DEFAULT_TIMESTAMP_WINDOW_MS} of the server clock (Kalshi does not publish its window: 30 s
 * is this simulator's choice, wide enough for a loaded connection pool); and a (key, timestamp,
 * signature) triple is accepted once (replays are refused). Failures are 401
 * `{"error":{"code":"authentication_error","message":"authentication_error","details":…}}` (the
 * envelope Kalshi answers with; `details: "NOT_FOUND"` for an unknown key, as Kalshi does). A
 * write (POST/DELETE) with a key lacking the `write` scope is 403 `permission_denied`.
 *
 * Matching against `markOf(platform symbol)` (the side's price 0–1): the best ask is the mark
 * rounded UP to a cent, the best bid the mark rounded DOWN (clamped 1–99 cents). A buy is
 * marketable when ask ≤ limit and fills at once, in full, at the ask as taker; a sell when
 * bid ≥ limit, at the bid. Non-marketable `immediate_or_cancel`/`fill_or_kill` orders come back
 * `canceled` with nothing filled; `good_till_canceled` ones rest and fill in full at their limit as
 * maker when `poke()` runs or on any order/fill read once the mark has crossed. A post-only order
 * that would cross is refused. Fees: takers pay Kalshi's ⌈0.07 × C × P × (1 − P)⌉ (to the next
 * cent), makers 0. A second order with a client_order_id the member already used is 409
 * `order_already_exists`. Each member's cash (what a test funds, `fund()`, less what buys cost, plus what
 * sells bring, less fees) and contracts are kept (simulators/holdings.ts); there are no insufficient-balance
 * refusals, and a YES and a NO position in one market are not netted against each other.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createPublicKey, randomUUID, type KeyObject } from 'node:crypto';
import { Decimal } from '../domain/decimal.js';
import { findByVenueSymbol } from '../domain/market/symbols.js';
import { KALSHI_HEADERS, TRADE_API_PREFIX, signingMessage, verifyKalshiSignature } from '../venues/kalshi/signing.js';
import {
  CLIENT_ORDER_ID_RE,
  MAX_CENTS,
  MIN_CENTS,
  PAGE_LIMIT,
  centsToDollars,
  dollarsToCents,
  otherSideCents,
  takerFeeCents,
  type KalshiSide,
  type KalshiTif,
  type WireFill,
  type WireOrder,
} from '../venues/kalshi/wire.js';
import { Faults, listen, messageOf, Reply, Tally } from './harness.js';
import type { SimulatorOptions, VenueSimulator } from './harness.js';
import { injectedSpec, markedOrders } from './matching.js';
import { Holdings } from './holdings.js';

/** Accepted distance between `KALSHI-ACCESS-TIMESTAMP` and the server clock, ms (either way). */
export const DEFAULT_TIMESTAMP_WINDOW_MS = 30_000;

/**
 * Options of {@link startKalshiSimulator}: marks (probability 0–1) of platform symbols
 * (`PRES-2024-DJT-YES.KX`); `network` is accepted for symmetry (Kalshi signs the same way on demo
 * and production).
 */
export interface KalshiSimulatorOptions extends SimulatorOptions {
  /** Timestamp window, ms (default {@link DEFAULT_TIMESTAMP_WINDOW_MS}). */
  timestampWindowMs?: number;
}

/**
 * The running simulator and its test controls: `url` includes `/trade-api/v2` (what
 * `KALSHI_API_URL` holds); owners are members; `rejectNext` refuses with 400
 * `{"error":{"code":"order_rejected","message":reason,…}}`; an injected order (placed on
 * kalshi.com) gets a fresh UUID as client_order_id.
 */
export interface KalshiSimulator extends VenueSimulator<{
  symbol: string;
  side: 'buy' | 'sell';
  qty: string;
  price: string;
}> {
  /**
   * The kalshi.com API-key page: registers `publicKeyPem` (SPKI or PKCS#1 PEM) for `member` with
   * `scopes` (default read and write) until `expiresAt` (epoch ms; default never). Returns the key
   * id (a UUID). @throws Error when the PEM is not a public key.
   */
  registerKey(
    member: string,
    publicKeyPem: string,
    opts?: { expiresAt?: number; scopes?: ('read' | 'write')[] },
  ): string;
  /** Deletes an API key: every later request signed with it is refused. */
  revokeKey(keyId: string): void;
}

interface SimKey {
  member: string;
  publicKey: KeyObject;
  scopes: ('read' | 'write')[];
  expiresAt: number | null;
  revoked: boolean;
}

interface SimOrder {
  id: string;
  member: string;
  clientOrderId: string;
  ticker: string;
  side: KalshiSide;
  action: 'buy' | 'sell';
  cents: number;
  count: number;
  filled: number;
  status: 'resting' | 'executed' | 'canceled';
  tif: KalshiTif;
  postOnly: boolean;
  takerFees: number;
  makerFees: number;
  takerCost: number;
  makerCost: number;
  createdAt: number;
  updatedAt: number;
}

interface SimFill extends WireFill {
  member: string;
  at: number;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly msg: string,
    readonly details?: string,
    readonly service = 'exchange',
  ) {
    super(msg);
  }
  body() {
    return {
      error: {
        code: this.code,
        message: this.msg,
        ...(this.details ? { details: this.details } : {}),
        service: this.service,
      },
    };
  }
}

/**
 * A `POST /portfolio/orders` body in the venue's shape, as parsed JSON (checked by `placeOrder`):
 * `ticker`, `side`, `action`, `count` (contracts), `type`, `time_in_force`, `client_order_id`,
 * `post_only` and exactly one price: `yes_price`/`no_price` (integer cents) or
 * `yes_price_dollars`/`no_price_dollars` (dollar text on the 1-cent grid).
 */
interface CreateOrderBody {
  ticker?: string;
  side: KalshiSide;
  action: 'buy' | 'sell';
  count: number;
  type?: 'limit' | 'market';
  time_in_force?: KalshiTif;
  client_order_id?: string;
  post_only?: boolean;
  yes_price?: number | null;
  no_price?: number | null;
  yes_price_dollars?: string | null;
  no_price_dollars?: string | null;
}

/** A new order's fees and fill costs (cents). */
const NO_COSTS = { takerFees: 0, makerFees: 0, takerCost: 0, makerCost: 0 } as const;
const TIFS: readonly KalshiTif[] = ['good_till_canceled', 'immediate_or_cancel', 'fill_or_kill'];
const authError = (details: string) =>
  new HttpError(401, 'authentication_error', 'authentication_error', details, 'api');
const invalid = (details: string) => new HttpError(400, 'invalid_parameters', 'invalid parameters', details);
const notFound = () => new HttpError(404, 'not_found', 'not found');
const iso = (ms: number) => new Date(ms).toISOString();
const clampCents = (c: Decimal) => Decimal.min(Decimal.max(c, MIN_CENTS), MAX_CENTS).toNumber();

/** Starts the simulator. Resolves once it listens. */
export async function startKalshiSimulator(opts: KalshiSimulatorOptions): Promise<KalshiSimulator> {
  const windowMs = opts.timestampWindowMs ?? DEFAULT_TIMESTAMP_WINDOW_MS;
  const keys = new Map<string, SimKey>();
  const seen = new Map<string, number>(); // key|ts|sig → ts (ms)
  const orders = new Map<string, SimOrder>();
  const fills: SimFill[] = [];
  const accepted = new Tally();
  const byClientId = new Tally();
  const holdings = new Holdings();
  const faults = new Faults();

  const symbolOf = (ticker: string, side: KalshiSide) =>
    findByVenueSymbol('kalshi', `${ticker}:${side}`)?.symbol ?? null;

  /** Best ask / bid of a side, cents, from its mark; null without a mark. */
  async function quote(ticker: string, side: KalshiSide): Promise<{ ask: number; bid: number } | null> {
    const symbol = symbolOf(ticker, side);
    const m = symbol ? await opts.markOf(symbol) : null;
    if (m == null) return null;
    const c = new Decimal(m).mul(100);
    return { ask: clampCents(c.ceil()), bid: clampCents(c.floor()) };
  }
  const crossingPrice = (
    o: { action: 'buy' | 'sell'; cents: number },
    q: { ask: number; bid: number } | null,
  ): number | null => {
    if (!q) return null;
    if (o.action === 'buy') return q.ask <= o.cents ? q.ask : null;
    return q.bid >= o.cents ? q.bid : null;
  };

  function fill(o: SimOrder, cents: number, taker: boolean): void {
    const count = o.count - o.filled;
    const fee = taker ? takerFeeCents(count, cents) : 0;
    const now = Date.now();
    const usd = (c: number) => new Decimal(c).div(100);
    holdings.fill(
      o.member,
      `${o.ticker}:${o.side}`,
      { side: o.action, qty: new Decimal(count), price: usd(cents), feeUsd: usd(fee) },
      now,
    );
    const yes = o.side === 'yes' ? cents : otherSideCents(cents);
    const id = randomUUID();
    fills.push({
      member: o.member,
      at: now,
      fill_id: id,
      trade_id: id,
      order_id: o.id,
      client_order_id: o.clientOrderId,
      ticker: o.ticker,
      market_ticker: o.ticker,
      side: o.side,
      action: o.action,
      count,
      count_fp: count.toFixed(2),
      yes_price: yes,
      no_price: otherSideCents(yes),
      yes_price_fixed: centsToDollars(yes),
      no_price_fixed: centsToDollars(otherSideCents(yes)),
      is_taker: taker,
      fee_cost: centsToDollars(fee),
      created_time: iso(now),
      ts: Math.floor(now / 1000),
    });
    if (taker) {
      o.takerFees += fee;
      o.takerCost += cents * count;
    } else {
      o.makerCost += cents * count;
    }
    o.filled = o.count;
    o.status = 'executed';
    o.updatedAt = now;
  }

  async function poke(): Promise<void> {
    const resting = (o: SimOrder) => o.status === 'resting';
    for await (const [o, q] of markedOrders(orders.values(), resting, (o) => quote(o.ticker, o.side))) {
      if (crossingPrice(o, q) !== null) fill(o, o.cents, false);
    }
  }

  const wireOrder = (o: SimOrder): WireOrder => {
    const yes = o.side === 'yes' ? o.cents : otherSideCents(o.cents);
    return {
      order_id: o.id,
      user_id: o.member,
      client_order_id: o.clientOrderId,
      ticker: o.ticker,
      side: o.side,
      action: o.action,
      type: 'limit',
      status: o.status,
      yes_price: yes,
      no_price: otherSideCents(yes),
      yes_price_dollars: centsToDollars(yes),
      no_price_dollars: centsToDollars(otherSideCents(yes)),
      fill_count: o.filled,
      remaining_count: o.status === 'resting' ? o.count - o.filled : 0,
      initial_count: o.count,
      taker_fees: o.takerFees,
      maker_fees: o.makerFees,
      taker_fill_cost: o.takerCost,
      maker_fill_cost: o.makerCost,
      taker_fill_cost_dollars: centsToDollars(o.takerCost),
      maker_fill_cost_dollars: centsToDollars(o.makerCost),
      taker_fees_dollars: centsToDollars(o.takerFees),
      maker_fees_dollars: centsToDollars(o.makerFees),
      queue_position: 0,
      expiration_time: null,
      created_time: iso(o.createdAt),
      last_update_time: iso(o.updatedAt),
      self_trade_prevention_type: null,
      order_group_id: null,
      cancel_order_on_pause: false,
    };
  };

  /** A new resting order: a fresh order id, nothing filled, no fees or costs yet, stamped now. */
  function newOrder(
    o: Omit<SimOrder, 'id' | 'filled' | 'status' | keyof typeof NO_COSTS | 'createdAt' | 'updatedAt'>,
  ): SimOrder {
    const now = Date.now();
    return { id: randomUUID(), ...o, filled: 0, status: 'resting', ...NO_COSTS, createdAt: now, updatedAt: now };
  }

  function record(o: SimOrder): void {
    orders.set(o.id, o);
    accepted.add(o.member);
    byClientId.add(String(o.clientOrderId));
  }

  // --- authentication ---------------------------------------------------------------------

  /** The member of a correctly signed, fresh, unreplayed request. @throws HttpError 401/403. */
  function authenticate(req: IncomingMessage, method: string, path: string): string {
    const h = (name: string) => {
      const v = req.headers[name.toLowerCase()];
      return Array.isArray(v) ? v[0] : v;
    };
    const keyId = h(KALSHI_HEADERS.key);
    const ts = h(KALSHI_HEADERS.timestamp);
    const sig = h(KALSHI_HEADERS.signature);
    if (!keyId || !ts || !sig)
      throw authError('missing KALSHI-ACCESS-KEY, KALSHI-ACCESS-TIMESTAMP or KALSHI-ACCESS-SIGNATURE');
    const key = keys.get(keyId);
    if (!key || key.revoked) throw authError('NOT_FOUND');
    if (key.expiresAt !== null && key.expiresAt <= Date.now()) throw authError('API key expired');
    if (!/^\d{1,16}$/.test(ts)) throw authError('invalid timestamp');
    const now = Date.now();
    if (Math.abs(now - Number(ts)) > windowMs) throw authError(`timestamp outside the ${windowMs / 1000} s window`);
    if (!verifyKalshiSignature(key.publicKey, signingMessage(ts, method, path), sig))
      throw authError('INVALID_SIGNATURE');
    const triple = `${keyId}|${ts}|${sig}`;
    if (seen.has(triple)) throw authError('replayed request');
    seen.set(triple, Number(ts));
    for (const [k, t] of seen) if (Math.abs(now - t) > windowMs) seen.delete(k);
    if (method !== 'GET' && !key.scopes.includes('write'))
      throw new HttpError(403, 'permission_denied', 'API key does not have the write scope', undefined, 'api');
    return key.member;
  }

  // --- orders -----------------------------------------------------------------------------

  function sideCentsOf(b: CreateOrderBody, side: KalshiSide): number {
    const given = [
      ['yes_price', b.yes_price, 'yes', false],
      ['no_price', b.no_price, 'no', false],
      ['yes_price_dollars', b.yes_price_dollars, 'yes', true],
      ['no_price_dollars', b.no_price_dollars, 'no', true],
    ].filter(([, v]) => v !== undefined && v !== null) as [string, unknown, KalshiSide, boolean][];
    if (given.length !== 1)
      throw invalid('exactly one of yes_price, no_price, yes_price_dollars, no_price_dollars is required');
    const [field, v, priceSide, dollars] = given[0];
    let cents: number;
    if (dollars) {
      if (typeof v !== 'string' || !/^0\.\d{1,4}$/.test(v) || !new Decimal(v).mul(100).isInteger())
        throw invalid(`${field} must be a fixed-point dollar string on the 1-cent grid`);
      cents = dollarsToCents(v);
    } else {
      if (typeof v !== 'number' || !Number.isInteger(v)) throw invalid(`${field} must be an integer number of cents`);
      cents = v;
    }
    if (cents < MIN_CENTS || cents > MAX_CENTS) throw invalid(`${field} must be between 1 and 99 cents`);
    return priceSide === side ? cents : otherSideCents(cents);
  }

  async function placeOrder(member: string, parsed: unknown, res: ServerResponse): Promise<unknown> {
    const b = parsed as CreateOrderBody | null | undefined;
    if (!b || typeof b !== 'object') throw invalid('body must be a JSON object');
    const ticker = String(b.ticker ?? '');
    if (!ticker) throw invalid('ticker is required');
    if (b.side !== 'yes' && b.side !== 'no') throw invalid('side must be yes or no');
    if (b.action !== 'buy' && b.action !== 'sell') throw invalid('action must be buy or sell');
    if (!Number.isInteger(b.count) || b.count < 1) throw invalid('count must be an integer ≥ 1');
    if (b.type !== undefined && b.type !== 'limit' && b.type !== 'market')
      throw invalid('type must be limit or market');
    const tif: KalshiTif = b.time_in_force ?? 'good_till_canceled';
    if (!TIFS.includes(tif)) throw invalid(`time_in_force must be one of ${TIFS.join(', ')}`);
    const clientOrderId = b.client_order_id === undefined ? randomUUID() : String(b.client_order_id);
    if (!CLIENT_ORDER_ID_RE.test(clientOrderId))
      throw invalid('client_order_id must be ≤ 64 characters of letters, digits, _ - : + = /');
    if (!symbolOf(ticker, 'yes') && !symbolOf(ticker, 'no'))
      throw new HttpError(404, 'market_not_found', 'market not found');
    const side = b.side;
    const cents = sideCentsOf(b, side);
    if ([...orders.values()].some((o) => o.member === member && o.clientOrderId === clientOrderId))
      throw new HttpError(409, 'order_already_exists', 'order already exists');
    const reason = faults.takeRejection();
    if (reason !== null) throw new HttpError(400, 'order_rejected', reason);
    const o = newOrder({
      member,
      clientOrderId,
      ticker,
      side,
      action: b.action,
      cents,
      count: b.count,
      tif,
      postOnly: b.post_only === true,
    });
    const at = crossingPrice(o, await quote(ticker, side));
    if (at !== null && o.postOnly) throw new HttpError(400, 'post_only_cross', 'post only order would cross the book');
    if (at !== null) fill(o, at, true);
    else if (tif !== 'good_till_canceled') o.status = 'canceled';
    record(o);
    return faults.dropAck(res) ? undefined : { order: wireOrder(o) };
  }

  function page<T>(items: T[], q: URLSearchParams): { items: T[]; cursor: string } {
    const limit = q.get('limit') ? Number(q.get('limit')) : 100;
    if (!Number.isInteger(limit) || limit < 1 || limit > PAGE_LIMIT)
      throw invalid(`limit must be between 1 and ${PAGE_LIMIT}`);
    const cursor = q.get('cursor');
    const start = cursor ? Number(Buffer.from(cursor, 'base64url').toString()) : 0;
    if (!Number.isInteger(start) || start < 0) throw invalid('invalid cursor');
    const next = start + limit < items.length ? Buffer.from(String(start + limit)).toString('base64url') : '';
    return { items: items.slice(start, start + limit), cursor: next };
  }

  const secondsFilter = (q: URLSearchParams) => {
    const min = q.get('min_ts') ? Number(q.get('min_ts')) : -Infinity;
    const max = q.get('max_ts') ? Number(q.get('max_ts')) : Infinity;
    return (ms: number) => ms >= min * 1000 && ms <= max * 1000;
  };

  // --- portfolio --------------------------------------------------------------------------

  /** The member's market positions (module doc; holdings keyed `<ticker>:<side>`): per ticker, YES contracts − NO contracts, and their cost. */
  function marketPositions(member: string) {
    const byTicker = new Map<string, { ticker: string; position: number; market_exposure: number }>();
    for (const p of holdings.positions(member)) {
      const m = p.symbol.match(/^(.+):(yes|no)$/)!;
      const row = byTicker.get(m[1]) ?? { ticker: m[1], position: 0, market_exposure: 0 };
      row.position += (m[2] === 'yes' ? 1 : -1) * p.qty.toNumber();
      row.market_exposure += p.qty.mul(p.avgEntryPrice).mul(100).round().toNumber();
      byTicker.set(m[1], row);
    }
    return [...byTicker.values()].map((r) => ({
      ...r,
      market_exposure_dollars: centsToDollars(r.market_exposure),
      position_fp: r.position.toFixed(2),
      realized_pnl: 0,
      fees_paid: 0,
      total_traded: 0,
      resting_orders_count: 0,
    }));
  }

  /** The member's balance: free cash and the value of its positions at the marks (a side's mark rounded down to a cent), cents. */
  async function balance(member: string) {
    let value = 0;
    for (const p of holdings.positions(member)) {
      const [ticker, side] = p.symbol.split(':') as [string, KalshiSide];
      const symbol = symbolOf(ticker, side);
      const mark = symbol ? await opts.markOf(symbol) : null;
      value += p.qty
        .mul(mark === null ? p.avgEntryPrice : new Decimal(mark))
        .mul(100)
        .floor()
        .toNumber();
    }
    return {
      balance: holdings.paidCash(member).mul(100).round().toNumber(),
      portfolio_value: value,
      updated_ts: Math.floor(Date.now() / 1000),
    };
  }

  // --- routing ----------------------------------------------------------------------------

  async function route(req: IncomingMessage, res: ServerResponse, raw: string): Promise<unknown> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = (req.method ?? 'GET').toUpperCase();
    if (!url.pathname.startsWith(`${TRADE_API_PREFIX}/`)) throw notFound();
    const member = authenticate(req, method, url.pathname);
    const path = url.pathname.slice(TRADE_API_PREFIX.length);
    const q = url.searchParams;

    if (method === 'GET' && path === '/portfolio/balance') {
      await poke();
      return balance(member);
    }
    if (method === 'GET' && path === '/portfolio/positions') {
      await poke();
      const p = page(marketPositions(member), q);
      return { market_positions: p.items, event_positions: [], cursor: p.cursor };
    }
    if (method === 'POST' && path === '/portfolio/orders') {
      let b: unknown;
      try {
        b = raw ? JSON.parse(raw) : undefined;
      } catch {
        throw invalid('body is not valid JSON');
      }
      return new Reply(201, await placeOrder(member, b, res));
    }
    if (method === 'GET' && path === '/portfolio/orders') {
      await poke();
      const within = secondsFilter(q);
      const list = [...orders.values()]
        .filter(
          (o) =>
            o.member === member &&
            (!q.get('ticker') || o.ticker === q.get('ticker')) &&
            (!q.get('status') || o.status === q.get('status')) &&
            (!q.get('event_ticker') ||
              q
                .get('event_ticker')!
                .split(',')
                .some((e) => o.ticker.startsWith(`${e}-`))) &&
            within(o.createdAt),
        )
        .sort((a, b) => b.createdAt - a.createdAt);
      const p = page(list, q);
      return { orders: p.items.map(wireOrder), cursor: p.cursor };
    }
    const byId = path.match(/^\/portfolio\/orders\/([^/]+)$/);
    if (byId && (method === 'GET' || method === 'DELETE')) {
      await poke();
      const o = orders.get(decodeURIComponent(byId[1]));
      if (!o || o.member !== member) throw notFound();
      if (method === 'GET') return { order: wireOrder(o) };
      if (o.status !== 'resting') throw notFound();
      const reducedBy = o.count - o.filled;
      o.status = 'canceled';
      o.updatedAt = Date.now();
      return { order: wireOrder(o), reduced_by: reducedBy };
    }
    if (method === 'GET' && path === '/portfolio/fills') {
      await poke();
      const within = secondsFilter(q);
      const list = fills
        .filter(
          (f) =>
            f.member === member &&
            (!q.get('ticker') || f.ticker === q.get('ticker')) &&
            (!q.get('order_id') || f.order_id === q.get('order_id')) &&
            within(f.at),
        )
        .sort((a, b) => b.at - a.at);
      const p = page(list, q);
      return { fills: p.items.map(({ member: _m, at: _a, ...f }) => f), cursor: p.cursor };
    }
    throw notFound();
  }

  const fail = (err: unknown) => {
    const e = err instanceof HttpError ? err : new HttpError(500, 'internal_server_error', messageOf(err));
    return new Reply(e.status, e.body());
  };
  const common = await listen({ port: opts.port, path: TRADE_API_PREFIX, route, fail, faults });

  return {
    ...common,
    clientOrderIds: () => byClientId.all(),
    async injectOrder(member, o) {
      const m = injectedSpec('kalshi', o.symbol).venueSymbol.match(/^(.+):(yes|no)$/);
      if (!m) throw new Error(`unknown symbol ${o.symbol}`);
      const cents = new Decimal(o.price).mul(100).toNumber();
      const order = newOrder({
        member,
        clientOrderId: randomUUID(),
        ticker: m[1],
        side: m[2] as KalshiSide,
        action: o.side,
        cents,
        count: Number(o.qty),
        tif: 'good_till_canceled',
        postOnly: false,
      });
      const at = crossingPrice(order, await quote(order.ticker, order.side));
      if (at !== null) fill(order, at, true);
      record(order);
      return { venueOrderId: order.id };
    },
    poke,
    orderCount(member) {
      return accepted.of(member);
    },
    fund(member, amountUsd) {
      holdings.fund(member, amountUsd);
    },
    registerKey(member, publicKeyPem, o = {}) {
      const publicKey = createPublicKey(publicKeyPem);
      if (publicKey.asymmetricKeyType !== 'rsa') throw new Error('Kalshi API keys are RSA keys');
      const keyId = randomUUID();
      keys.set(keyId, {
        member,
        publicKey,
        scopes: o.scopes ?? ['read', 'write'],
        expiresAt: o.expiresAt ?? null,
        revoked: false,
      });
      return keyId;
    },
    revokeKey(keyId) {
      const k = keys.get(keyId);
      if (k) k.revoked = true;
    },
  };
}

/**
 * A local Kalshi Trade API v2 simulator (node:http on 127.0.0.1) under the real base path
 * `/trade-api/v2`, serving the routes Kalshi's current API and its published client
 * (kalshi-typescript) use for market data, orders, fills and the portfolio, with their JSON shapes
 * (typed against the client's models) and only the fixed-point fields: counts `*_fp` / `count`
 * strings (contracts, 2 decimals), prices and money `*_dollars` strings (USD, 4 decimals); the
 * integer `count` and cents fields Kalshi retired are neither read nor written (docs/venues.md §4):
 *
 * Public (no signature needed, as on Kalshi):
 * - `GET /markets` (`limit` ≤ 1000, `cursor`, `event_ticker`, `tickers`, `status`) → `{markets, cursor}`;
 *   `GET /markets/{ticker}` → `{market}`; `GET /markets/{ticker}/orderbook` (`depth`) → `{orderbook_fp}`
 *   (simulators/kalshi-markets.ts: the platform's Kalshi symbols, priced at its marks).
 *
 * Signed:
 * - `GET /portfolio/balance` → `{balance, balance_dollars, portfolio_value, updated_ts, balance_breakdown}`
 *   (`balance`, `portfolio_value` whole cents; the authorisation proof call);
 * - `GET /portfolio/positions` (`limit`, `cursor`, `ticker`, `event_ticker`, `count_filter`) →
 *   `{market_positions, event_positions, cursor}`: per market `position_fp` (+ YES, − NO contracts),
 *   `market_exposure_dollars` (their cost), realised PnL, fees and volume;
 * - `POST /portfolio/events/orders` `{ticker, side: bid|ask, count, price, time_in_force,
 *   self_trade_prevention_type, client_order_id?, post_only?, reduce_only?, expiration_time?,
 *   cancel_order_on_pause?, subaccount?, exchange_index?}` → 201 `{order_id, client_order_id,
 *   fill_count, remaining_count, average_fill_price?, average_fee_paid?, ts_ms}`;
 * - `GET /portfolio/orders` (`ticker`, `event_ticker`, `min_ts`, `max_ts`, `status`, `limit` ≤ 200,
 *   `cursor`) → `{orders, cursor}` newest first; `GET /portfolio/orders/{id}` → `{order}`;
 * - `DELETE /portfolio/events/orders/{id}` (`market_ticker`, `subaccount`, `exchange_index`) →
 *   `{order_id, client_order_id, reduced_by, ts_ms}`;
 * - `GET /portfolio/fills` (`ticker`, `order_id`, `min_ts`, `max_ts`, `limit` ≤ 200, `cursor`) → `{fills, cursor}`.
 * The retired `POST /portfolio/orders` and `DELETE /portfolio/orders/{id}` are 404, as any unknown
 * path. Orders and fills carry `outcome_side` and `book_side`, not the deprecated `side`/`action`.
 *
 * Authentication, checked on EVERY signed request as Kalshi does: the `KALSHI-ACCESS-KEY` must be a key
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
 * Matching, in Kalshi's single YES book, against the quote of simulators/kalshi-markets.ts (from
 * `markOf` of the market's two platform symbols): a `bid` (buy YES) is marketable when the YES ask ≤
 * its price and fills at once, in full, at the ask as taker; an `ask` (sell YES, i.e. buy NO at 1 −
 * price) when the YES bid ≥ its price, at the bid. Non-marketable `immediate_or_cancel`/`fill_or_kill`
 * orders come back canceled with nothing filled; `good_till_canceled` ones rest (until their
 * `expiration_time`, if any) and fill in full at their price as maker when `poke()` runs or on any
 * read once the quote has crossed. A post-only order that would cross is refused. Fees: takers pay
 * Kalshi's ⌈0.07 × C × P × (1 − P)⌉ (to the next cent), makers 0. A client_order_id the member
 * already used is 409 `order_already_exists`. Positions net as on Kalshi: a bid first closes NO
 * contracts the member holds, then buys YES (an ask the other way round). Each member's cash (what a
 * test funds, `fund()`, less what buys cost, plus what closing sells bring, less fees) and contracts
 * are kept (simulators/holdings.ts).
 *
 * Deliberately not imitated (docs/venues.md §4.3): balance checks (no insufficient-balance refusal),
 * partial fills and queue priority (a marketable order fills in full at the quote, a resting one in
 * full at its price), `reduce_only` capping, subaccounts other than 0, exchange shards other than 0,
 * order groups, `cancel_order_on_pause`, self-trade prevention (members never meet each other: each
 * trades against the marks), fractional contracts and sub-cent price grids (every market is
 * `linear_cent` without fractional trading), settlement, rate limits, and the market metadata the
 * symbol table does not hold (titles and rules name the ticker, times are fixed).
 *
 * The WebSocket API v2 is served on the same port at `/trade-api/ws/v2` (simulators/kalshi-ws.ts): the
 * upgrade is authenticated by the check above over `GET /trade-api/ws/v2` (else HTTP 401), then
 * `orderbook_delta` (snapshot, then deltas with consecutive `seq` per subscription) of the books
 * `GET /markets/{ticker}/orderbook` answers, and `trade` per fill. Without `markOf` the simulator prices
 * from its own data (simulators/kalshi-prices.ts), as it does under `VENUE_FEEDS=live`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createPublicKey, randomUUID, type KeyObject } from 'node:crypto';
import type {
  CancelOrderV2Response,
  CreateOrderV2Response,
  EventPosition,
  Fill,
  GetBalanceResponse,
  MarketPosition,
  Order,
} from 'kalshi-typescript';
import { Decimal, ZERO } from '../domain/decimal.js';
import { KALSHI_HEADERS, TRADE_API_PREFIX, signingMessage, verifyKalshiSignature } from '../venues/kalshi/signing.js';
import {
  BOOK_SIDE,
  CLIENT_ORDER_ID_RE,
  OUTCOME_OF,
  PAGE_LIMIT,
  onPriceGrid,
  sidePrice,
  takerFee,
  toDollars,
  toFp,
  type BookSide,
  type KalshiSide,
  type KalshiTif,
} from '../venues/kalshi/wire.js';
import { Faults, listenWithSocket, messageOf, Reply, Tally } from './harness.js';
import type { InjectedLimit, SimulatorOptions, SocketControls, VenueSimulator } from './harness.js';
import { injectedSpec } from './matching.js';
import { Holdings } from './holdings.js';
import { marketOf, orderbookOf, quoteOf, simMarkets, type Quote, type SimMarket } from './kalshi-markets.js';
import { KALSHI_SYMBOLS } from '../domain/market/venues/kalshi.js';
import { kalshiOwnMarks } from './kalshi-prices.js';
import { KALSHI_WS_PATH, kalshiWs } from './kalshi-ws.js';

/** Accepted distance between `KALSHI-ACCESS-TIMESTAMP` and the server clock, ms (either way). */
export const DEFAULT_TIMESTAMP_WINDOW_MS = 30_000;

/**
 * Options of {@link startKalshiSimulator}: marks (probability 0–1) of platform symbols
 * (`PRES-2024-DJT-YES.KX`); without `markOf` the simulator prices from its own data (the recorded prices in
 * `dataDir` replayed at `now()`, Unix ms, default `Date.now`; simulators/kalshi-prices.ts). `network` is accepted
 * for symmetry (Kalshi signs the same way on demo and production). `wsIntervalMs`: how often the WebSocket compares
 * subscribed books for `orderbook_delta` (ms, default 100).
 */
export type KalshiSimulatorOptions = Omit<SimulatorOptions, 'markOf'> & {
  markOf?: SimulatorOptions['markOf'];
  /** Timestamp window, ms (default {@link DEFAULT_TIMESTAMP_WINDOW_MS}). */
  timestampWindowMs?: number;
  dataDir?: string;
  now?: () => number;
  wsIntervalMs?: number;
};

/**
 * The running simulator and its test controls: `url` includes `/trade-api/v2` (what
 * `KALSHI_API_URL` holds); owners are members; `rejectNext` refuses with 400
 * `{"error":{"code":"order_rejected","message":reason,…}}`; an injected order (placed on
 * kalshi.com, in the platform's vocabulary: symbol, buy/sell, contracts, that side's price) gets a
 * fresh UUID as client_order_id.
 */
export interface KalshiSimulator extends VenueSimulator<InjectedLimit>, SocketControls {
  /** The next `orderbook_delta` frame of the WebSocket is not sent but uses up its seq: a gap (simulators/kalshi-ws.ts). */
  loseNextDelta(): void;
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

/** An order: its YES price and counts (contracts) as Decimals; costs are what the member paid for its outcome, fees USD. */
interface SimOrder {
  id: string;
  member: string;
  clientOrderId: string;
  ticker: string;
  book: BookSide;
  yesPrice: Decimal;
  count: Decimal;
  filled: Decimal;
  status: 'resting' | 'executed' | 'canceled';
  tif: KalshiTif;
  postOnly: boolean;
  stp: 'taker_at_cross' | 'maker';
  cancelOnPause: boolean;
  expiresAt: number | null;
  takerFees: Decimal;
  makerFees: Decimal;
  takerCost: Decimal;
  makerCost: Decimal;
  createdAt: number;
  updatedAt: number;
}

/** Per member and market: realised PnL, fees and volume (USD), and the last change (ms). */
interface MarketStats {
  realized: Decimal;
  fees: Decimal;
  traded: Decimal;
  updatedAt: number;
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

const TIFS: readonly KalshiTif[] = ['good_till_canceled', 'immediate_or_cancel', 'fill_or_kill'];
const STPS = ['taker_at_cross', 'maker'] as const;
/** A request's fixed-point count: 0–2 decimals. */
const COUNT_RE = /^\d+(\.\d{1,2})?$/;
/** A request's fixed-point dollar price: up to 4 decimals. */
const PRICE_RE = /^\d+(\.\d{1,4})?$/;
const authError = (details: string) =>
  new HttpError(401, 'authentication_error', 'authentication_error', details, 'api');
const invalid = (details: string) => new HttpError(400, 'invalid_parameters', 'invalid parameters', details);
const notFound = () => new HttpError(404, 'not_found', 'not found');
const iso = (ms: number) => new Date(ms).toISOString();

/** Starts the simulator. Resolves once it listens. */
export async function startKalshiSimulator(opts: KalshiSimulatorOptions): Promise<KalshiSimulator> {
  const windowMs = opts.timestampWindowMs ?? DEFAULT_TIMESTAMP_WINDOW_MS;
  const keys = new Map<string, SimKey>();
  const seen = new Map<string, number>(); // key|ts|sig → ts (ms)
  const orders = new Map<string, SimOrder>();
  const fills: { member: string; at: number; fill: Fill }[] = [];
  const stats = new Map<string, MarketStats>(); // member|ticker
  const accepted = new Tally();
  const holdings = new Holdings();
  const faults = new Faults();
  const markets = new Map(simMarkets().map((m) => [m.ticker, m]));
  const markOf = opts.markOf ?? kalshiOwnMarks(KALSHI_SYMBOLS, { dataDir: opts.dataDir, now: opts.now });

  const quote = (ticker: string): Promise<Quote> => quoteOf(markets.get(ticker)!, markOf);

  /** `orderbook_fp` of a listed market now (resting orders the quote crossed filled first; `depth` ≤ 0: all levels). */
  async function orderbookNow(m: SimMarket, depth = 0) {
    await poke();
    const resting = [...orders.values()]
      .filter((o) => o.ticker === m.ticker && o.status === 'resting')
      .map((o) => ({ book: o.book, yesPrice: o.yesPrice, remaining: o.count.minus(o.filled) }));
    return orderbookOf(await quote(m.ticker), resting, depth);
  }

  /** The WebSocket API on the same port (simulators/kalshi-ws.ts): books from `orderbookNow`, the handshake checked as a signed GET. */
  const ws = kalshiWs(
    {
      book: async (ticker) => {
        const m = markets.get(ticker);
        return m ? orderbookNow(m) : null;
      },
      refusal: (req) => {
        try {
          authenticate(req, 'GET', KALSHI_WS_PATH);
          return null;
        } catch (err) {
          return (err instanceof HttpError ? err : authError(messageOf(err))).body();
        }
      },
    },
    [...markets.keys()],
    { intervalMs: opts.wsIntervalMs },
  );

  /** The price a resting or new order trades at against `q`: the ask for a bid, the bid for an ask; null when it does not cross. */
  const crossingPrice = (o: { book: BookSide; yesPrice: Decimal }, q: Quote): Decimal | null => {
    if (o.book === 'bid') return q.ask && q.ask.lte(o.yesPrice) ? q.ask : null;
    return q.bid && q.bid.gte(o.yesPrice) ? q.bid : null;
  };

  /** Contracts of `ticker`'s `side` the member holds. */
  const held = (member: string, ticker: string, side: KalshiSide): Decimal =>
    holdings.positions(member).find((p) => p.symbol === `${ticker}:${side}`)?.qty ?? ZERO;

  /**
   * Books a fill of `count` contracts of book side `book` at YES price `yesPrice` (module doc:
   * netting): first closes contracts of the other outcome, then buys the order's outcome.
   */
  function settle(member: string, ticker: string, book: BookSide, count: Decimal, yesPrice: Decimal, fee: Decimal) {
    const long = OUTCOME_OF[book];
    const short: KalshiSide = long === 'yes' ? 'no' : 'yes';
    const close = Decimal.min(held(member, ticker, short), count);
    const legs: { side: KalshiSide; action: 'buy' | 'sell'; qty: Decimal }[] = [
      { side: short, action: 'sell', qty: close },
      { side: long, action: 'buy', qty: count.minus(close) },
    ];
    const key = `${member}|${ticker}`;
    const row = stats.get(key) ?? { realized: ZERO, fees: ZERO, traded: ZERO, updatedAt: 0 };
    const now = Date.now();
    let feeLeft = fee;
    for (const leg of legs.filter((l) => l.qty.gt(0))) {
      const price = sidePrice(leg.side, yesPrice);
      const { realized } = holdings.fill(
        member,
        `${ticker}:${leg.side}`,
        { side: leg.action, qty: leg.qty, price, feeUsd: feeLeft },
        now,
      );
      feeLeft = ZERO;
      row.realized = row.realized.plus(realized);
      row.traded = row.traded.plus(leg.qty.mul(price));
    }
    row.fees = row.fees.plus(fee);
    row.updatedAt = now;
    stats.set(key, row);
  }

  /** Fills what rests of `o` at YES price `yesPrice`, as taker or maker, and records the fill. */
  function fill(o: SimOrder, yesPrice: Decimal, taker: boolean): void {
    const count = o.count.minus(o.filled);
    const fee = taker ? takerFee(count, yesPrice) : ZERO;
    const now = Date.now();
    settle(o.member, o.ticker, o.book, count, yesPrice, fee);
    const outlay = count.mul(sidePrice(OUTCOME_OF[o.book], yesPrice));
    const id = randomUUID();
    // The taker bought the order's outcome when the order took; a resting order was met by a taker of the other one.
    const takerSide: KalshiSide = taker ? OUTCOME_OF[o.book] : OUTCOME_OF[o.book] === 'yes' ? 'no' : 'yes';
    ws.publishTrade({
      trade_id: id,
      market_ticker: o.ticker,
      yes_price_dollars: toDollars(yesPrice),
      no_price_dollars: toDollars(sidePrice('no', yesPrice)),
      count_fp: toFp(count),
      taker_side: takerSide,
      ts_ms: now,
    });
    fills.push({
      member: o.member,
      at: now,
      fill: {
        fill_id: id,
        exchange_index: 0,
        trade_id: id,
        order_id: o.id,
        ticker: o.ticker,
        market_ticker: o.ticker,
        outcome_side: OUTCOME_OF[o.book],
        book_side: o.book,
        count_fp: toFp(count),
        yes_price_dollars: toDollars(yesPrice),
        no_price_dollars: toDollars(sidePrice('no', yesPrice)),
        is_taker: taker,
        created_time: iso(now),
        fee_cost: toDollars(fee),
        subaccount_number: 0,
        ts: Math.floor(now / 1000),
      },
    });
    if (taker) {
      o.takerFees = o.takerFees.plus(fee);
      o.takerCost = o.takerCost.plus(outlay);
    } else {
      o.makerFees = o.makerFees.plus(fee);
      o.makerCost = o.makerCost.plus(outlay);
    }
    o.filled = o.count;
    o.status = 'executed';
    o.updatedAt = now;
  }

  /** Expires resting orders past their `expiration_time`, then fills those the quote has crossed, as makers at their own price. */
  async function poke(): Promise<void> {
    const now = Date.now();
    for (const o of orders.values()) {
      if (o.status !== 'resting') continue;
      if (o.expiresAt !== null && o.expiresAt <= now) {
        o.status = 'canceled';
        o.updatedAt = now;
        continue;
      }
      if (crossingPrice(o, await quote(o.ticker)) !== null) fill(o, o.yesPrice, false);
    }
  }

  /** An order as `GET /portfolio/orders` answers it (kalshi-typescript `Order`). */
  const wireOrder = (o: SimOrder): Order => ({
    order_id: o.id,
    user_id: o.member,
    client_order_id: o.clientOrderId,
    ticker: o.ticker,
    outcome_side: OUTCOME_OF[o.book],
    book_side: o.book,
    type: 'limit',
    status: o.status,
    yes_price_dollars: toDollars(o.yesPrice),
    no_price_dollars: toDollars(sidePrice('no', o.yesPrice)),
    fill_count_fp: toFp(o.filled),
    remaining_count_fp: toFp(o.status === 'resting' ? o.count.minus(o.filled) : ZERO),
    initial_count_fp: toFp(o.count),
    taker_fill_cost_dollars: toDollars(o.takerCost),
    maker_fill_cost_dollars: toDollars(o.makerCost),
    taker_fees_dollars: toDollars(o.takerFees),
    maker_fees_dollars: toDollars(o.makerFees),
    expiration_time: o.expiresAt === null ? null : iso(o.expiresAt),
    created_time: iso(o.createdAt),
    last_update_time: iso(o.updatedAt),
    self_trade_prevention_type: o.stp,
    order_group_id: null,
    cancel_order_on_pause: o.cancelOnPause,
    subaccount_number: 0,
    exchange_index: 0,
  });

  /** A new resting order: a fresh id, nothing filled, no fees or costs yet, stamped now. */
  function newOrder(
    o: Pick<SimOrder, 'member' | 'clientOrderId' | 'ticker' | 'book' | 'yesPrice' | 'count' | 'tif' | 'postOnly'> &
      Partial<Pick<SimOrder, 'stp' | 'cancelOnPause' | 'expiresAt'>>,
  ): SimOrder {
    const now = Date.now();
    return {
      id: randomUUID(),
      stp: 'taker_at_cross',
      cancelOnPause: false,
      expiresAt: null,
      ...o,
      filled: ZERO,
      status: 'resting',
      takerFees: ZERO,
      makerFees: ZERO,
      takerCost: ZERO,
      makerCost: ZERO,
      createdAt: now,
      updatedAt: now,
    };
  }

  function record(o: SimOrder): void {
    orders.set(o.id, o);
    accepted.add(o.member, o.clientOrderId);
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

  /** An optional boolean field of a body. @throws HttpError 400 when present and not a boolean. */
  const flag = (b: Record<string, unknown>, field: string): boolean => {
    const v = b[field];
    if (v !== undefined && v !== null && typeof v !== 'boolean') throw invalid(`${field} must be a boolean`);
    return v === true;
  };

  /** The new order a `POST /portfolio/events/orders` body describes (module doc), checked as Kalshi checks it. @throws HttpError 400/404/409. */
  function parseCreate(member: string, raw: string): SimOrder {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw invalid('body is not valid JSON');
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw invalid('body must be a JSON object');
    const b = parsed as Record<string, unknown>;
    if (typeof b.ticker !== 'string' || !b.ticker) throw invalid('ticker is required');
    if (b.side !== 'bid' && b.side !== 'ask') throw invalid('side must be bid or ask');
    if (typeof b.count !== 'string' || !COUNT_RE.test(b.count))
      throw invalid('count must be a fixed-point contract count string with at most 2 decimals');
    const count = new Decimal(b.count);
    if (count.lte(0)) throw invalid('count must be positive');
    if (!count.isInteger()) throw invalid('fractional contracts are not enabled on this market');
    if (typeof b.price !== 'string' || !PRICE_RE.test(b.price))
      throw invalid('price must be a fixed-point dollar string with at most 4 decimals');
    const yesPrice = new Decimal(b.price);
    if (!onPriceGrid(yesPrice)) throw invalid('price must be on the market price grid: 0.01 to 0.99 in steps of 0.01');
    const tif = b.time_in_force as KalshiTif;
    if (!TIFS.includes(tif)) throw invalid(`time_in_force must be one of ${TIFS.join(', ')}`);
    const stp = b.self_trade_prevention_type as (typeof STPS)[number];
    if (!STPS.includes(stp)) throw invalid(`self_trade_prevention_type must be one of ${STPS.join(', ')}`);
    let expiresAt: number | null = null;
    if (b.expiration_time !== undefined && b.expiration_time !== null) {
      if (!Number.isInteger(b.expiration_time)) throw invalid('expiration_time must be a Unix time in seconds');
      if (tif === 'immediate_or_cancel') throw invalid('immediate_or_cancel cannot have an expiration_time');
      expiresAt = (b.expiration_time as number) * 1000;
    }
    if (![undefined, null, 0].includes(b.subaccount as number)) throw invalid('subaccount not found');
    if (![undefined, null, 0, -1].includes(b.exchange_index as number)) throw invalid('exchange_index not found');
    if (b.order_group_id !== undefined && b.order_group_id !== null)
      throw new HttpError(404, 'not_found', 'order group not found');
    if (b.client_order_id !== undefined && typeof b.client_order_id !== 'string')
      throw invalid('client_order_id must be a string');
    const clientOrderId = b.client_order_id ?? randomUUID();
    if (!CLIENT_ORDER_ID_RE.test(clientOrderId))
      throw invalid('client_order_id must be ≤ 64 characters of letters, digits, _ - : + = /');
    const postOnly = flag(b, 'post_only');
    const cancelOnPause = flag(b, 'cancel_order_on_pause');
    flag(b, 'reduce_only');
    if (!markets.has(b.ticker)) throw new HttpError(404, 'market_not_found', 'market not found');
    if ([...orders.values()].some((o) => o.member === member && o.clientOrderId === clientOrderId))
      throw new HttpError(409, 'order_already_exists', 'order already exists');
    return newOrder({
      member,
      clientOrderId,
      ticker: b.ticker,
      book: b.side,
      yesPrice,
      count,
      tif,
      postOnly,
      stp,
      cancelOnPause,
      expiresAt,
    });
  }

  /** `POST /portfolio/events/orders` (module doc): matches the new order at once, then rests, cancels or fills it. */
  async function createOrder(member: string, raw: string, res: ServerResponse): Promise<unknown> {
    const o = parseCreate(member, raw);
    const reason = faults.takeRejection();
    if (reason !== null) throw new HttpError(400, 'order_rejected', reason);
    const at = crossingPrice(o, await quote(o.ticker));
    if (at !== null && o.postOnly) throw new HttpError(400, 'post_only_cross', 'post only order would cross the book');
    if (at !== null) fill(o, at, true);
    else if (o.tif !== 'good_till_canceled') o.status = 'canceled';
    record(o);
    if (faults.dropAck(res)) return undefined;
    const filled = o.filled.gt(0);
    const answer: CreateOrderV2Response = {
      order_id: o.id,
      client_order_id: o.clientOrderId,
      fill_count: toFp(o.filled),
      remaining_count: toFp(o.status === 'resting' ? o.count.minus(o.filled) : ZERO),
      ...(filled
        ? {
            average_fill_price: toDollars(at!),
            average_fee_paid: toDollars(o.takerFees.div(o.filled).toDecimalPlaces(4, Decimal.ROUND_HALF_EVEN)),
          }
        : {}),
      ts_ms: o.updatedAt,
    };
    return new Reply(201, answer);
  }

  /** `DELETE /portfolio/events/orders/{id}`: cancels a resting order of the member. @throws HttpError 404 when unknown, another member's or not resting. */
  function cancelOrder(member: string, id: string): CancelOrderV2Response {
    const o = orders.get(id);
    if (!o || o.member !== member || o.status !== 'resting') throw notFound();
    const reducedBy = o.count.minus(o.filled);
    o.status = 'canceled';
    o.updatedAt = Date.now();
    return { order_id: o.id, client_order_id: o.clientOrderId, reduced_by: toFp(reducedBy), ts_ms: o.updatedAt };
  }

  /** One page of `items` (`limit` default 100, at most `max`; `cursor` an opaque offset). @throws HttpError 400. */
  function page<T>(items: T[], q: URLSearchParams, max = PAGE_LIMIT): { items: T[]; cursor: string } {
    const limit = q.get('limit') ? Number(q.get('limit')) : 100;
    if (!Number.isInteger(limit) || limit < 1 || limit > max) throw invalid(`limit must be between 1 and ${max}`);
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

  /** Whether a ticker is in one of the comma-separated events of `event_ticker` (absent: every ticker). */
  const inEvents = (ticker: string, q: URLSearchParams) =>
    !q.get('event_ticker') ||
    q
      .get('event_ticker')!
      .split(',')
      .some((e) => markets.get(ticker)?.eventTicker === e);

  // --- portfolio --------------------------------------------------------------------------

  /** The member's market positions (holdings keyed `<ticker>:<side>`; netted, so one side per market). */
  function marketPositions(member: string): MarketPosition[] {
    const rows = new Map<string, { position: Decimal; exposure: Decimal }>();
    for (const p of holdings.positions(member)) {
      const [ticker, side] = p.symbol.split(':');
      const row = rows.get(ticker) ?? { position: ZERO, exposure: ZERO };
      row.position = row.position.plus(side === 'yes' ? p.qty : p.qty.neg());
      row.exposure = row.exposure.plus(p.qty.mul(p.avgEntryPrice));
      rows.set(ticker, row);
    }
    for (const key of stats.keys()) {
      const [m, ticker] = key.split('|');
      if (m === member && !rows.has(ticker)) rows.set(ticker, { position: ZERO, exposure: ZERO });
    }
    return [...rows].map(([ticker, r]) => {
      const s = stats.get(`${member}|${ticker}`);
      return {
        ticker,
        exchange_index: 0,
        total_traded_dollars: toDollars(s?.traded ?? ZERO),
        position_fp: toFp(r.position),
        market_exposure_dollars: toDollars(r.exposure),
        realized_pnl_dollars: toDollars(s?.realized ?? ZERO),
        fees_paid_dollars: toDollars(s?.fees ?? ZERO),
        last_updated_ts: iso(s?.updatedAt ?? Date.now()),
      };
    });
  }

  /** The member's event positions: its market positions summed per event. */
  function eventPositions(rows: MarketPosition[]): EventPosition[] {
    const byEvent = new Map<string, MarketPosition[]>();
    for (const r of rows) {
      const e = markets.get(r.ticker)?.eventTicker ?? r.ticker;
      byEvent.set(e, [...(byEvent.get(e) ?? []), r]);
    }
    const sum = (rs: MarketPosition[], f: (r: MarketPosition) => string) => rs.reduce((s, r) => s.plus(f(r)), ZERO);
    return [...byEvent].map(([event_ticker, rs]) => ({
      event_ticker,
      total_cost_dollars: toDollars(sum(rs, (r) => r.market_exposure_dollars)),
      total_cost_shares_fp: toFp(sum(rs, (r) => new Decimal(r.position_fp).abs().toFixed())),
      event_exposure_dollars: toDollars(sum(rs, (r) => r.market_exposure_dollars)),
      realized_pnl_dollars: toDollars(sum(rs, (r) => r.realized_pnl_dollars)),
      fees_paid_dollars: toDollars(sum(rs, (r) => r.fees_paid_dollars)),
    }));
  }

  /** The member's balance: free cash, and the value of its contracts at their marks (at cost without a mark); the cent fields rounded down. */
  async function balance(member: string): Promise<GetBalanceResponse> {
    let value = ZERO;
    for (const p of holdings.positions(member)) {
      const [ticker, side] = p.symbol.split(':') as [string, KalshiSide];
      const symbol = markets.get(ticker)?.symbols[side];
      const mark = symbol ? await markOf(symbol) : null;
      value = value.plus(p.qty.mul(mark === null ? p.avgEntryPrice : new Decimal(mark)));
    }
    const cash = holdings.paidCash(member);
    const cents = (d: Decimal) => d.mul(100).toDecimalPlaces(0, Decimal.ROUND_FLOOR).toNumber();
    return {
      balance: cents(cash),
      balance_dollars: toDollars(cash),
      portfolio_value: cents(value),
      updated_ts: Math.floor(Date.now() / 1000),
      balance_breakdown: [{ exchange_index: 0, balance: toDollars(cash) }],
    };
  }

  // --- routing ----------------------------------------------------------------------------

  /** The public market-data routes (no signature needed); undefined for any other path. */
  async function marketData(method: string, path: string, q: URLSearchParams): Promise<unknown> {
    if (method !== 'GET') return undefined;
    if (path === '/markets') {
      const tickers = q.get('tickers')?.split(',');
      const status = q.get('status');
      const list = [...markets.values()].filter(
        (m) =>
          (!tickers || tickers.includes(m.ticker)) &&
          inEvents(m.ticker, q) &&
          (!status || status === 'open' || status === 'active'),
      );
      const p = page(list, q, 1000);
      return { markets: await Promise.all(p.items.map(market)), cursor: p.cursor };
    }
    const one = path.match(/^\/markets\/([^/]+)(\/orderbook)?$/);
    if (!one) return undefined;
    const m = markets.get(decodeURIComponent(one[1]));
    if (!m) throw notFound();
    if (!one[2]) return { market: await market(m) };
    const depth = q.get('depth') ? Number(q.get('depth')) : 0;
    if (!Number.isInteger(depth) || depth > 100) throw invalid('depth must be an integer of at most 100');
    return { orderbook_fp: await orderbookNow(m, depth) };
  }

  /** A market with its quote and the trading so far. */
  async function market(m: SimMarket) {
    const traded = fills.filter((f) => f.fill.ticker === m.ticker);
    const last = traded.at(-1);
    return marketOf(m, await quote(m.ticker), {
      volume: traded.reduce((s, f) => s.plus(f.fill.count_fp), ZERO),
      lastYesPrice: last ? new Decimal(last.fill.yes_price_dollars) : null,
    });
  }

  /** The member's signed routes; undefined for any other path. */
  async function portfolio(
    member: string,
    method: string,
    path: string,
    q: URLSearchParams,
    raw: string,
    res: ServerResponse,
  ) {
    if (method === 'POST' && path === '/portfolio/events/orders') return createOrder(member, raw, res);
    const cancel = path.match(/^\/portfolio\/events\/orders\/([^/]+)$/);
    if (method === 'DELETE' && cancel) {
      await poke();
      return cancelOrder(member, decodeURIComponent(cancel[1]));
    }
    if (method !== 'GET') return undefined;
    await poke();
    if (path === '/portfolio/balance') return balance(member);
    if (path === '/portfolio/positions') {
      const rows = marketPositions(member).filter(
        (r) =>
          (!q.get('ticker') || r.ticker === q.get('ticker')) &&
          inEvents(r.ticker, q) &&
          (q.get('count_filter') !== 'position' || !new Decimal(r.position_fp).isZero()),
      );
      const p = page(rows, q, 1000);
      return { market_positions: p.items, event_positions: eventPositions(rows), cursor: p.cursor };
    }
    if (path === '/portfolio/orders') {
      const within = secondsFilter(q);
      const list = [...orders.values()]
        .filter(
          (o) =>
            o.member === member &&
            (!q.get('ticker') || o.ticker === q.get('ticker')) &&
            (!q.get('status') || o.status === q.get('status')) &&
            inEvents(o.ticker, q) &&
            within(o.createdAt),
        )
        .sort((a, b) => b.createdAt - a.createdAt);
      const p = page(list, q);
      return { orders: p.items.map(wireOrder), cursor: p.cursor };
    }
    const byId = path.match(/^\/portfolio\/orders\/([^/]+)$/);
    if (byId) {
      const o = orders.get(decodeURIComponent(byId[1]));
      if (!o || o.member !== member) throw notFound();
      return { order: wireOrder(o) };
    }
    if (path === '/portfolio/fills') {
      const within = secondsFilter(q);
      const list = fills
        .filter(
          (f) =>
            f.member === member &&
            (!q.get('ticker') || f.fill.ticker === q.get('ticker')) &&
            (!q.get('order_id') || f.fill.order_id === q.get('order_id')) &&
            within(f.at),
        )
        .sort((a, b) => b.at - a.at);
      const p = page(list, q);
      return { fills: p.items.map((f) => f.fill), cursor: p.cursor };
    }
    return undefined;
  }

  async function route(req: IncomingMessage, res: ServerResponse, raw: string): Promise<unknown> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = (req.method ?? 'GET').toUpperCase();
    if (!url.pathname.startsWith(`${TRADE_API_PREFIX}/`)) throw notFound();
    const path = url.pathname.slice(TRADE_API_PREFIX.length);
    const q = url.searchParams;
    const open = await marketData(method, path, q);
    if (open !== undefined) return open;
    if (!path.startsWith('/portfolio/')) throw notFound();
    const member = authenticate(req, method, url.pathname);
    const answer = await portfolio(member, method, path, q, raw, res);
    if (answer === undefined && !res.destroyed && !res.socket?.destroyed) throw notFound();
    return answer;
  }

  const fail = (err: unknown) => {
    const e = err instanceof HttpError ? err : new HttpError(500, 'internal_server_error', messageOf(err));
    return new Reply(e.status, e.body());
  };
  const common = await listenWithSocket({ port: opts.port, path: TRADE_API_PREFIX, route, fail, faults }, ws);

  return {
    ...common,
    wsUrl: `${new URL(common.url).origin.replace(/^http/, 'ws')}${KALSHI_WS_PATH}`,
    loseNextDelta: () => ws.loseNextDelta(),
    clientOrderIds: () => accepted.clientOrderIds(),
    async injectOrder(member, o) {
      const m = injectedSpec('kalshi', o.symbol).venueSymbol.match(/^(.+):(yes|no)$/);
      if (!m) throw new Error(`unknown symbol ${o.symbol}`);
      const side = m[2] as KalshiSide;
      const order = newOrder({
        member,
        clientOrderId: randomUUID(),
        ticker: m[1],
        book: BOOK_SIDE[`${side}:${o.side}`],
        yesPrice: sidePrice(side, o.price),
        count: new Decimal(o.qty),
        tif: 'good_till_canceled',
        postOnly: false,
      });
      const at = crossingPrice(order, await quote(order.ticker));
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

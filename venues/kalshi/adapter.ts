/**
 * The Kalshi Trade API v2 adapter (docs/venues.md §4): REST against `ctx.baseUrl` (which
 * includes `/trade-api/v2`, e.g. `https://external-api.kalshi.com/trade-api/v2`), every request
 * signed with the account's RSA API key (./signing.ts) over the full URL path of the request.
 *
 * Custody: the platform generates the RSA key pair ({@link generateKalshiAgentKey}); the user
 * registers the PUBLIC key in Kalshi's web interface (Account & security → API keys), which shows
 * them a key id (a UUID); they paste it back; {@link kalshiAdapter.submitAuthorization} proves the
 * registration with a signed `GET /portfolio/balance` and returns `{ keyId }`. The Kalshi account
 * (member) is whoever registered the key: requests never name a member, so `ctx.owner` is
 * informational here. A key with the `write` scope trades and moves funds only between the
 * account's own subaccounts; nothing leaves through this API.
 *
 * Timestamps: `KALSHI-ACCESS-TIMESTAMP` is the wall clock in ms at signing. Kalshi has no nonce;
 * PSS signatures are randomized, so every request is unique anyway. Idempotency is the
 * `client_order_id` ({@link clientOrderIdOf}): the intent id itself.
 *
 * Orders go to `POST /portfolio/events/orders` (the current create route; the legacy
 * `POST /portfolio/orders` is retired) in Kalshi's single YES book: the symbol picks the market and
 * side (`PRES-2024-DJT-NO.KX` → ticker `PRES-2024-DJT`, side `no`), the platform action on that side
 * picks `bid` or `ask` (./wire.ts `BOOK_SIDE`), the price goes out as the YES price in fixed-point
 * dollars (`"0.8300"` for a NO price of 0.17) and the size as a fixed-point count (`"10.00"`; a
 * fractional size is refused locally with VenueRejected). Market orders are `immediate_or_cancel` at
 * mark ± 5 cents; `Alo` is post-only. Cancels are `DELETE /portfolio/events/orders/{id}`, whose
 * answer is not an order: the order is read back. Reads (./shapes.ts) use only the fixed-point
 * `*_fp` / `*_dollars` fields and `book_side`.
 *
 * Account: `GET /portfolio/balance` (`balance_dollars`, `portfolio_value`) and `GET /portfolio/positions`
 * (`position_fp` signed contracts per market: + YES, − NO), read as fully paid positions (venues/account.ts).
 */
import { z } from 'zod';
import { jsonCall, type JsonRequest, type Query } from '../http.js';
import { VenueRejected, type AgentKey, type VenueAdapter, type VenueContext, type VenueOrder } from '../types.js';
import { KALSHI_KEY_ID_RE, kalshiAuthHeaders } from './signing.js';
import {
  BOOK_SIDE,
  ORDER_TYPE,
  PAGE_LIMIT,
  clientOrderIdOf,
  errorReason,
  marketSide,
  protectivePrice,
  toCount,
  toYesPrice,
  type KalshiSide,
} from './wire.js';
import {
  createdOrder,
  toVenueAccount,
  toVenueFill,
  toVenueOrder,
  wireBalanceSchema,
  wireCreatedSchema,
  wireFillSchema,
  wireMarketPositionSchema,
  wireOrderSchema,
} from './shapes.js';

export { generateKalshiAgentKey } from './signing.js';

type Ctx = Omit<VenueContext, 'apiCredentials'>;

const rsaAgent = (agent: AgentKey) => {
  if (agent.kind !== 'rsa') throw new Error('kalshi: the agent key must be an RSA API key');
  return agent;
};

/** A request of {@link request}: `keyId` overrides the agent's key id (the authorisation proof). */
type KalshiRequest = Omit<JsonRequest, 'headers'> & { keyId?: string };

/**
 * One request to `ctx.baseUrl + path`, signed with the agent's RSA key over the full URL
 * (`accept: application/json`); the answer checked against `schema` ({@link jsonCall}).
 * @throws VenueRejected on a 4xx (a 404 reads as null with `allow404`), with the venue's reason
 *   ({@link errorReason}); Error on 5xx, transport failures or an unexpected body (retryable).
 */
async function request<S extends z.ZodType>(ctx: Ctx, req: KalshiRequest, schema: S): Promise<z.output<S>> {
  const agent = rsaAgent(ctx.agent);
  const headers = (url: string) => ({
    accept: 'application/json',
    ...kalshiAuthHeaders(req.keyId ?? agent.keyId, agent.privateKeyPem, req.method, url),
  });
  return jsonCall(ctx, 'kalshi', { ...req, headers }, schema, errorReason);
}

/** `{order}` as `GET /portfolio/orders/{order_id}` answers it (null on 404). */
const orderAnswer = z.looseObject({ order: wireOrderSchema }).nullable();

/** `DELETE /portfolio/events/orders/{order_id}` → `{order_id, client_order_id, reduced_by, ts_ms}` (not an order: read back). */
const canceledAnswer = z.looseObject({ order_id: z.string(), reduced_by: z.string() });

/** A page of `GET /portfolio/orders` or `GET /portfolio/fills`, read as `{ items, cursor }` (missing lists read empty). */
const ordersPage = z
  .looseObject({ orders: z.array(wireOrderSchema).nullish(), cursor: z.string().nullish() })
  .nullable()
  .transform((p) => ({ items: p?.orders ?? [], cursor: p?.cursor }));
const fillsPage = z
  .looseObject({ fills: z.array(wireFillSchema).nullish(), cursor: z.string().nullish() })
  .nullable()
  .transform((p) => ({ items: p?.fills ?? [], cursor: p?.cursor }));

const positionsPage = z
  .looseObject({ market_positions: z.array(wireMarketPositionSchema).nullish(), cursor: z.string().nullish() })
  .nullable()
  .transform((p) => ({ items: p?.market_positions ?? [], cursor: p?.cursor }));

/** Every page of a cursor-paged list (`limit` 200, `cursor` until empty; at most 100 pages). */
async function allPages<T>(
  ctx: Ctx,
  path: string,
  page: z.ZodType<{ items: T[]; cursor?: string | null }>,
  query: Query,
): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  for (let guard = 0; guard < 100; guard++) {
    const got = await request(ctx, { method: 'GET', path, query: { ...query, limit: PAGE_LIMIT, cursor } }, page);
    out.push(...got.items);
    if (!got.cursor || got.cursor === cursor) break;
    cursor = got.cursor;
  }
  return out;
}

/** `GET /portfolio/orders/{order_id}` read as side `as` of its market; null on 404. */
async function orderById(ctx: Ctx, orderId: string, as: KalshiSide): Promise<VenueOrder | null> {
  const json = await request(
    ctx,
    { method: 'GET', path: `/portfolio/orders/${encodeURIComponent(orderId)}`, allow404: true },
    orderAnswer,
  );
  return json ? toVenueOrder(json.order, as) : null;
}

/** The Kalshi adapter (see the module docstring). */
export const kalshiAdapter: VenueAdapter = {
  venue: 'kalshi',

  /** The intent id when Kalshi accepts it as a client_order_id, else a UUID from its sha256 ({@link clientOrderIdOf}). */
  clientOrderId(intentId) {
    return clientOrderIdOf(intentId);
  },

  /**
   * `POST /portfolio/events/orders` → 201 `{order_id, fill_count, remaining_count, average_fill_price, ts_ms}`.
   * Body: `ticker`, `client_order_id`, `side` (`bid`|`ask` from the symbol's side and the action),
   * `count` (fixed-point contracts), `price` (the YES price, fixed-point dollars), `time_in_force`,
   * `post_only`, `reduce_only`, `self_trade_prevention_type: taker_at_cross` (required by the venue:
   * an order that would trade against the member's own resting order is canceled, the resting one
   * kept). The answer is read as the order sent (./shapes.ts `createdOrder`).
   * @throws VenueRejected for stop/take-profit types, a fractional size, a price off the cent grid
   *   or outside 0.01–0.99, and every refusal of the venue (its message verbatim).
   */
  async place(ctx, order) {
    const wireType = ORDER_TYPE[`${order.type}:${order.timeInForce}`];
    if (!wireType)
      throw new VenueRejected(`order type ${order.type} is not supported by Kalshi (market and limit only)`);
    const { ticker, side } = marketSide(order.symbol);
    const count = toCount(order.qty);
    let price: string;
    if (order.type === 'market') price = protectivePrice(order.side, order.markPrice);
    else if (order.price == null) throw new VenueRejected('a limit order needs a price');
    else price = order.price;
    const body = {
      ticker,
      client_order_id: order.clientOrderId,
      side: BOOK_SIDE[`${side}:${order.side}`],
      count,
      price: toYesPrice(side, price),
      time_in_force: wireType.time_in_force,
      post_only: wireType.post_only,
      reduce_only: order.reduceOnly,
      self_trade_prevention_type: 'taker_at_cross',
    };
    const created = await request(ctx, { method: 'POST', path: '/portfolio/events/orders', body }, wireCreatedSchema);
    return createdOrder(
      { ...created, client_order_id: created.client_order_id ?? order.clientOrderId },
      { symbol: order.symbol, side, action: order.side, type: order.type, qty: order.qty, price },
    );
  },

  /**
   * Kalshi's `GET /portfolio/orders` has no client_order_id filter (filters: ticker, event_ticker,
   * min_ts, max_ts, status): lists the market's orders (all pages) and matches `client_order_id`,
   * read as `symbol`'s side.
   */
  async findByClientOrderId(ctx, symbol, clientOrderId) {
    const { ticker, side } = marketSide(symbol);
    const listed = await allPages(ctx, '/portfolio/orders', ordersPage, { ticker });
    const hit = listed.find((o) => o.client_order_id === clientOrderId);
    return hit ? toVenueOrder(hit, side) : null;
  },

  /** `GET /portfolio/orders/{order_id}` → `{order}` read as `symbol`'s side; null on 404. */
  async status(ctx, symbol, venueOrderId) {
    return orderById(ctx, venueOrderId, marketSide(symbol).side);
  },

  /**
   * `DELETE /portfolio/events/orders/{order_id}?market_ticker=<ticker>` (the ticker lets Kalshi route
   * the cancel to the market's exchange shard) → `{order_id, reduced_by}`, then the order is read back
   * (`GET /portfolio/orders/{order_id}`). On 404 (unknown, or no longer resting) the read back decides:
   * a filled or canceled order is returned as such.
   * @throws VenueRejected `not_found` when the venue does not know the order.
   */
  async cancel(ctx, symbol, venueOrderId) {
    const { ticker, side } = marketSide(symbol);
    let refusal: VenueRejected | null = null;
    try {
      await request(
        ctx,
        {
          method: 'DELETE',
          path: `/portfolio/events/orders/${encodeURIComponent(venueOrderId)}`,
          query: { market_ticker: ticker },
        },
        canceledAnswer,
      );
    } catch (err) {
      if (!(err instanceof VenueRejected)) throw err;
      refusal = err;
    }
    const after = await orderById(ctx, venueOrderId, side);
    if (!after) throw refusal ?? new VenueRejected(`not_found: order ${venueOrderId}`);
    if (after.status === 'open') throw refusal ?? new VenueRejected(`order ${venueOrderId} could not be canceled`);
    return after;
  },

  /**
   * `GET /portfolio/fills` (all pages; `min_ts` = sinceMs in whole seconds, `ticker`, `order_id`),
   * kept from the start of `sinceMs`'s second, oldest first; read as `symbol`'s side when given (both
   * symbols of a market share its fills), else as buys of the outcome each fill left the member long.
   */
  async fills(ctx, opts) {
    const market = opts.symbol ? marketSide(opts.symbol) : undefined;
    const minTs = Math.floor(opts.sinceMs / 1000);
    const fills = await allPages(ctx, '/portfolio/fills', fillsPage, {
      ticker: market?.ticker,
      order_id: opts.venueOrderId,
      min_ts: minTs,
    });
    return fills
      .filter(
        (f) => (!market || f.ticker === market.ticker) && (!opts.venueOrderId || f.order_id === opts.venueOrderId),
      )
      .map((f) => toVenueFill(f, market?.side))
      .filter((f) => f.time >= minTs * 1000)
      .sort((a, b) => a.time - b.time);
  },

  /**
   * Every order `GET /portfolio/orders` lists for the key's member (all pages), including ones placed
   * on kalshi.com, each read as a buy of the outcome it leaves the member long (./shapes.ts).
   */
  async orders(ctx) {
    return (await allPages(ctx, '/portfolio/orders', ordersPage, {})).map((o) => toVenueOrder(o));
  },

  /** `GET /portfolio/balance` and every page of `GET /portfolio/positions` (open market positions only). */
  async account(ctx) {
    const balance = await request(ctx, { method: 'GET', path: '/portfolio/balance' }, wireBalanceSchema);
    const markets = await allPages(ctx, '/portfolio/positions', positionsPage, { count_filter: 'position' });
    return toVenueAccount(balance, markets);
  },

  /**
   * `{ kind: 'rsa_public_key', publicKeyPem }`: the agent's public key for the user to register on
   * Kalshi. @throws Error without `agentPublicKeyPem`.
   */
  authorizationRequest(args) {
    if (!args.agentPublicKeyPem)
      throw new Error('kalshi: the authorisation request needs the agent public key (agentPublicKeyPem)');
    return { kind: 'rsa_public_key', publicKeyPem: args.agentPublicKeyPem };
  },

  /**
   * Local shape check only: true iff the request is an RSA public key request and `signature` (the
   * key id the user pasted) has the shape of a Kalshi API key id (a UUID). Nothing local can tie a
   * key id to `owner`; the real check is {@link kalshiAdapter.submitAuthorization}'s signed call.
   */
  async verifyAuthorization({ request: req, signature }) {
    return req.kind === 'rsa_public_key' && KALSHI_KEY_ID_RE.test(signature.trim());
  },

  /**
   * Proves the registration: a `GET /portfolio/balance` signed with the agent's private key under
   * key id `keyId` (default `signature`). Returns `{ keyId }`.
   * @throws VenueRejected when Kalshi refuses the key (unknown, revoked, expired, or registered
   *   with another public key: `authentication_error`).
   */
  async submitAuthorization(ctx, { request: req, signature, keyId }) {
    if (req.kind !== 'rsa_public_key') throw new VenueRejected('kalshi expects an RSA public key authorisation');
    const id = (keyId ?? signature).trim();
    if (!KALSHI_KEY_ID_RE.test(id)) throw new VenueRejected(`invalid API key id: ${id}`);
    await request(ctx, { method: 'GET', path: '/portfolio/balance', keyId: id }, z.unknown());
    return { keyId: id };
  },
};

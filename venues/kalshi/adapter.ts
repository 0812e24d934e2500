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
 * Orders: platform side buy/sell is Kalshi's `action`; the symbol picks the market and side
 * (`PRES-2024-DJT-NO.KX` → ticker `PRES-2024-DJT`, side `no`); the price goes in whole cents in
 * `yes_price` or `no_price` (the side's own price field); `count` is whole contracts (a fractional
 * size is refused locally with VenueRejected). Market orders are `immediate_or_cancel` at
 * mark ± 5 cents; `Alo` is post-only.
 *
 * Account: `GET /portfolio/balance` (cash, position value) and `GET /portfolio/positions` (signed contracts
 * per market: + YES, − NO), read as fully paid positions (venues/account.ts).
 */
import { z } from 'zod';
import { jsonCall, type JsonRequest, type Query } from '../http.js';
import { VenueRejected, type AgentKey, type VenueAdapter, type VenueContext, type VenueOrder } from '../types.js';
import { KALSHI_KEY_ID_RE, kalshiAuthHeaders } from './signing.js';
import {
  ORDER_TYPE,
  PAGE_LIMIT,
  clientOrderIdOf,
  errorReason,
  marketSide,
  protectiveCents,
  toCents,
  toCount,
  toVenueAccount,
  toVenueFill,
  toVenueOrder,
  wireBalanceSchema,
  wireFillSchema,
  wireMarketPositionSchema,
  wireOrderSchema,
} from './wire.js';

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

/** `{order}` as order reads, writes and cancels answer it (an absent order is tolerated: the caller reads back). */
const orderAnswer = z.looseObject({ order: wireOrderSchema.nullish() }).nullable();

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

async function orderById(ctx: Ctx, orderId: string): Promise<VenueOrder | null> {
  const json = await request(
    ctx,
    { method: 'GET', path: `/portfolio/orders/${encodeURIComponent(orderId)}`, allow404: true },
    orderAnswer,
  );
  return json?.order ? toVenueOrder(json.order) : null;
}

/** The Kalshi adapter (see the module docstring). */
export const kalshiAdapter: VenueAdapter = {
  venue: 'kalshi',

  /** The intent id when Kalshi accepts it as a client_order_id, else a UUID from its sha256 ({@link clientOrderIdOf}). */
  clientOrderId(intentId) {
    return clientOrderIdOf(intentId);
  },

  /**
   * `POST /portfolio/orders` → 201 `{order}`. Body: `ticker`, `side` (yes|no from the symbol),
   * `action` (buy|sell), `count`, `yes_price` or `no_price` (cents, the side's own field),
   * `client_order_id`, `time_in_force`, `post_only`, `reduce_only` (`type` is left to its
   * default, `limit`).
   * @throws VenueRejected for stop/take-profit types, a fractional size, a price off the cent grid
   *   or outside 1–99 cents, and every refusal of the venue (its message verbatim).
   */
  async place(ctx, order) {
    const wireType = ORDER_TYPE[`${order.type}:${order.timeInForce}`];
    if (!wireType)
      throw new VenueRejected(`order type ${order.type} is not supported by Kalshi (market and limit only)`);
    const { ticker, side } = marketSide(order.symbol);
    const count = toCount(order.qty);
    let cents: number;
    if (order.type === 'market') cents = protectiveCents(order.side, order.markPrice);
    else if (order.price == null) throw new VenueRejected('a limit order needs a price');
    else cents = toCents(order.price);
    const body = {
      ticker,
      client_order_id: order.clientOrderId,
      side,
      action: order.side,
      count,
      [side === 'yes' ? 'yes_price' : 'no_price']: cents,
      time_in_force: wireType.time_in_force,
      post_only: wireType.post_only,
      reduce_only: order.reduceOnly,
    };
    const json = await request(ctx, { method: 'POST', path: '/portfolio/orders', body }, orderAnswer);
    if (!json?.order) throw new Error('kalshi: order accepted without an order object');
    return toVenueOrder(json.order);
  },

  /**
   * Kalshi's `GET /portfolio/orders` has no client_order_id filter (filters: ticker, event_ticker,
   * min_ts, max_ts, status): lists the market's orders (all pages) and matches `client_order_id`.
   */
  async findByClientOrderId(ctx, symbol, clientOrderId) {
    const { ticker } = marketSide(symbol);
    const listed = await allPages(ctx, '/portfolio/orders', ordersPage, { ticker });
    const hit = listed.find((o) => o.client_order_id === clientOrderId);
    return hit ? toVenueOrder(hit) : null;
  },

  /** `GET /portfolio/orders/{order_id}` → `{order}`; null on 404. */
  async status(ctx, _symbol, venueOrderId) {
    return orderById(ctx, venueOrderId);
  },

  /**
   * `DELETE /portfolio/orders/{order_id}` → `{order, reduced_by}`. On 404 (unknown, or no longer
   * resting) the order is read back: a filled or canceled order is returned as such.
   * @throws VenueRejected `not_found` when the venue does not know the order.
   */
  async cancel(ctx, _symbol, venueOrderId) {
    let refusal: VenueRejected | null = null;
    try {
      const json = await request(
        ctx,
        { method: 'DELETE', path: `/portfolio/orders/${encodeURIComponent(venueOrderId)}` },
        orderAnswer,
      );
      if (json?.order) return toVenueOrder(json.order);
    } catch (err) {
      if (!(err instanceof VenueRejected)) throw err;
      refusal = err;
    }
    const after = await orderById(ctx, venueOrderId);
    if (!after) throw refusal ?? new VenueRejected(`not_found: order ${venueOrderId}`);
    if (after.status === 'open') throw refusal ?? new VenueRejected(`order ${venueOrderId} could not be canceled`);
    return after;
  },

  /**
   * `GET /portfolio/fills` (all pages; `min_ts` = sinceMs in whole seconds, `ticker`, `order_id`),
   * kept from the start of `sinceMs`'s second, oldest first.
   */
  async fills(ctx, opts) {
    const ticker = opts.symbol ? marketSide(opts.symbol).ticker : undefined;
    const minTs = Math.floor(opts.sinceMs / 1000);
    const fills = await allPages(ctx, '/portfolio/fills', fillsPage, {
      ticker,
      order_id: opts.venueOrderId,
      min_ts: minTs,
    });
    return fills
      .map(toVenueFill)
      .filter(
        (f) =>
          f.time >= minTs * 1000 &&
          (!opts.symbol || f.symbol === opts.symbol) &&
          (!opts.venueOrderId || f.venueOrderId === opts.venueOrderId),
      )
      .sort((a, b) => a.time - b.time);
  },

  /** Every order `GET /portfolio/orders` lists for the key's member (all pages), including ones placed on kalshi.com. */
  async orders(ctx) {
    return (await allPages(ctx, '/portfolio/orders', ordersPage, {})).map(toVenueOrder);
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

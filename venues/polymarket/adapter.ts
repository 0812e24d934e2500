/**
 * The Polymarket CLOB adapter (docs/venues.md §3): EIP-712 orders signed by the account's agent key
 * for the exchange version the venue takes (V2 or V3, {@link exchangeVersionOf}), L2 HMAC headers on
 * every private request, REST against `ctx.baseUrl`. Every call is one the real CLOB serves; nothing
 * depends on a simulator-only route or field.
 *
 * Exchange version, as `@polymarket/clob-client-v2` picks it: `GET /version` asked once per venue
 * (base URL) and process, before the first order, and cached; an answer without a `version` (or a
 * 4xx) means 2. Unlike the client, a transport failure or a 5xx is not cached (2 is used for that call
 * and the venue is asked again next time). A `POST /order` refused with `order_version_mismatch` drops
 * the cached version; when the venue then answers another version the order is signed for it and
 * posted once more (the client's `createAndPostOrder` does the same).
 *
 * Custody model, and its limitation, plainly: Polymarket has no trade-only delegate. The exchange
 * accepts an order when its signature is valid for its `maker` under the order's signature type:
 * 0 EOA (maker = signer), 1/2 a proxy or Safe wallet derived on chain from the signer, 3 a
 * deposit wallet judging its owner's signature (ERC-1271). Each of these ties the trading wallet to
 * the key that signs, so the platform's agent trades from its OWN wallet:
 * - orders are signature type 0 (EOA): `maker` = `signer` = the agent's address; the owner funds
 *   that address with the venue's collateral, and the positions are held there;
 * - the owner consents with an EIP-712 message of the platform's own (`AuthorizeSigner(address
 *   funder,address signer,uint256 expiresAt,uint256 nonce)` in domain `{name:"Multivenue Agent
 *   Authorization", version:"1", chainId}`), signed by the owner's wallet and verified by the
 *   platform ({@link polymarketAdapter.verifyAuthorization}); the venue never sees it;
 * - {@link polymarketAdapter.submitAuthorization} derives the agent's L2 API credentials the way
 *   the venue's own clients do: L1 `ClobAuth` signed by the agent, `POST /auth/api-key`, falling
 *   back to `GET /auth/derive-api-key` when the key exists; the core keeps `{ apiKey, secret,
 *   passphrase }` sealed with the agent and hands it back as `ctx.apiCredentials`.
 * The agent key controls a wallet that holds the owner's deposit: it could move those funds on chain.
 * The platform holds only this key, and never builds a transfer with it.
 *
 * Idempotency: Polymarket has no client order id. The platform's client order id is the order
 * `salt`, derived from the intent id ({@link saltFromIntentId}); the EIP-712 hash of the signed
 * order (computed before sending) is Polymarket's `orderID`. {@link polymarketAdapter.findByClientOrderId}
 * finds an order through the venue's own lookups by that hash: the hash remembered in process memory
 * (a retry in the same worker) read with `GET /data/order/<hash>`; otherwise (another process) the
 * candidates the venue lists for the token, the agent's open orders (`GET /data/orders`) and the
 * orders of its trades (`GET /data/trades`, each read with `GET /data/order/<id>`), are rebuilt
 * from their side, size and price with the intent's salt, and the signing timestamp is searched
 * in the window before the order's creation second until the hash, under the domain of the exchange
 * version the venue takes now, equals the order id ({@link findOrderTimestamp}). An order that is
 * neither open nor traded (killed or canceled without a fill) is not found, and placing it again adds
 * no exposure.
 *
 * Account: the agent wallet's collateral from `GET /balance-allowance` and the net of its trades
 * ({@link polymarketAdapter.account}).
 *
 * Prices are probability units (USD per share, 0–1), sizes shares. Fees: makers pay 0; takers pay
 * the trade's `fee_rate_bps` with Polymarket's formula rate × min(p, 1 − p) × size (0 bps on most
 * markets, and the simulator's default).
 */
import { z } from 'zod';
import { Decimal } from '../../domain/decimal.js';
import { findByVenueSymbol, findSymbol } from '../../domain/market/symbols.js';
import { POLYMARKET_TOKENS } from '../../domain/market/venues/polymarket.js';
import { jsonCall, type JsonRequest } from '../http.js';
import { applyFill, FLAT, type PositionState } from '../../domain/paper/position.js';
import { fullyPaidAccount } from '../account.js';
import {
  VenueRejected,
  type AgentKey,
  type AuthorizationRequest,
  type VenueAdapter,
  type VenueContext,
  type VenueFill,
  type VenueOrder,
} from '../types.js';
import {
  BYTES32_ZERO,
  SIGNATURE_TYPE,
  isExchangeVersion,
  authorizeSignerTypedData,
  findOrderTimestamp,
  l1Headers,
  l2Headers,
  immediateOrderAmounts,
  orderAmounts,
  orderHash,
  recoverAuthorizeSigner,
  saltFromIntentId,
  type ApiCreds,
  type AuthorizeSignerMessage,
  type ExchangeVersion,
  type PolymarketOrder,
} from './signing.js';
import { signDigestWithKey } from '../evm-sign.js';
import {
  END_CURSOR,
  INITIAL_CURSOR,
  ORDER_TYPE,
  SIDE_FROM_VENUE,
  SIDE_TO_VENUE,
  errorReason,
  platformStatus,
  protectivePrice,
  takerFeeUsd,
  USDC_UNITS,
  wireBalanceSchema,
  wireOrderSchema,
  wirePageSchema,
  wireTradeSchema,
  type WireOrder,
  type WireTrade,
} from './wire.js';

/** The EIP-712 member of AuthorizationRequest. */
type Eip712Request = Extract<AuthorizationRequest, { kind: 'eip712' }>;

type Ctx = Omit<VenueContext, 'apiCredentials'> & { apiCredentials?: Record<string, string> };

/**
 * How far before an order's creation second (as the venue lists it) its signing timestamp is
 * searched, ms: the agent allocates the timestamp just before sending, so it precedes the venue's
 * `created_at` by the request's transit (and the agent lane's queue); up to 2 s after the creation
 * second is searched too (an allocator a little ahead of the clock). Each millisecond is one try.
 */
export const SIGNED_BEFORE_CREATED_MS = 10_000;

/** How far back the trades of a token are read for candidates of a lost order, ms (retries follow within minutes). */
const LOOKBACK_MS = 24 * 3_600_000;

// ---------------------------------------------------------------------------------------------
// Order-hash memory (client order id → Polymarket order id), bounded.

const MEMO_LIMIT = 10_000;
const hashByClientId = new Map<string, string>();
const clientIdByHash = new Map<string, string>();

function remember(clientOrderId: string, hash: string): void {
  hashByClientId.delete(clientOrderId);
  hashByClientId.set(clientOrderId, hash);
  clientIdByHash.set(hash, clientOrderId);
  while (hashByClientId.size > MEMO_LIMIT) {
    const [oldId, oldHash] = hashByClientId.entries().next().value as [string, string];
    hashByClientId.delete(oldId);
    clientIdByHash.delete(oldHash);
  }
}

/** Forgets every remembered order hash (what a worker restart does); for tests. */
export function forgetSignedOrders(): void {
  hashByClientId.clear();
  clientIdByHash.clear();
}

// ---------------------------------------------------------------------------------------------
// Exchange version (GET /version), cached per venue base URL.

/** The version `GET /version` stands for when it answers none (the official client's default). */
const DEFAULT_EXCHANGE_VERSION = 2;

/** The error text of a `POST /order` refused for an order of another exchange version (the CLOB's). */
export const ORDER_VERSION_MISMATCH = 'order_version_mismatch';

/** Answered (or in-flight) versions by base URL. */
const versionByVenue = new Map<string, Promise<number>>();

/** `GET /version`: `{ version }`; any other body stands for the default. */
const versionAnswer = z.unknown().transform((v) => {
  const version = (v as { version?: unknown } | null)?.version;
  return typeof version === 'number' && Number.isInteger(version) ? version : DEFAULT_EXCHANGE_VERSION;
});

/**
 * The order version the venue at `ctx.baseUrl` takes (what its public `GET /version` answers), asked
 * once per base URL and process and shared by concurrent callers; `refresh` asks again. A body without
 * a version, or a 4xx, means 2 (cached, as the official client caches it); a transport failure or a 5xx
 * means 2 for this call only (not cached). The answer may be a version the platform does not sign (1):
 * the caller refuses it ({@link exchangeVersionOf}).
 */
async function venueVersion(ctx: Ctx, refresh = false): Promise<number> {
  const cached = versionByVenue.get(ctx.baseUrl);
  if (cached && !refresh) return cached;
  const asked = request(ctx, { method: 'GET', path: '/version' }, versionAnswer).catch((err: unknown) => {
    if (!(err instanceof VenueRejected) && versionByVenue.get(ctx.baseUrl) === asked)
      versionByVenue.delete(ctx.baseUrl);
    return DEFAULT_EXCHANGE_VERSION;
  });
  versionByVenue.set(ctx.baseUrl, asked);
  return asked;
}

/**
 * The exchange version the agent signs for at this venue ({@link venueVersion}, `refresh` asks again).
 * @throws VenueRejected when the venue takes orders of a version the platform does not sign.
 */
async function exchangeVersionOf(ctx: Ctx, refresh = false): Promise<ExchangeVersion> {
  const version = await venueVersion(ctx, refresh);
  if (!isExchangeVersion(version))
    throw new VenueRejected(`the venue takes version ${version} orders; the platform signs versions 2 and 3`);
  return version;
}

/** Forgets every venue's cached exchange version (what a worker restart does); for tests. */
export function forgetExchangeVersions(): void {
  versionByVenue.clear();
}

// ---------------------------------------------------------------------------------------------
// HTTP

const evmAgent = (agent: AgentKey) => {
  if (agent.kind !== 'evm') throw new Error('polymarket: the agent key must be a secp256k1 (evm) key');
  return agent;
};

function credsOf(ctx: Ctx): ApiCreds {
  const c = ctx.apiCredentials;
  if (!c?.apiKey || !c.secret || !c.passphrase)
    throw new Error('polymarket: the agent has no L2 API credentials (authorise it first)');
  return { apiKey: c.apiKey, secret: c.secret, passphrase: c.passphrase };
}

const nowSec = () => Math.floor(Date.now() / 1000).toString();

/** A request of {@link request}: its own `headers` (L1 auth), and `auth: 'l2'` for the HMAC headers. */
type PolymarketRequest = Omit<JsonRequest, 'headers'> & { headers?: Record<string, string>; auth?: 'l2' };

/**
 * One request; the answer checked against `schema` ({@link jsonCall}). `auth` `l2` signs HMAC
 * headers over the path (no query) and the exact body text.
 * @throws VenueRejected on a 4xx (a 404 reads as null with `allow404`) with the venue's `error`
 *   text (verbatim); Error on 5xx, transport failures or an unexpected body.
 */
async function request<S extends z.ZodType>(ctx: Ctx, req: PolymarketRequest, schema: S): Promise<z.output<S>> {
  const headers = (_url: string, body: string | undefined) => ({
    ...req.headers,
    ...(req.auth === 'l2'
      ? l2Headers(evmAgent(ctx.agent).address, credsOf(ctx), nowSec(), req.method, req.path, body)
      : {}),
  });
  return jsonCall(ctx, 'polymarket', { ...req, headers }, schema, errorReason);
}

/** Every page of a cursor-paged listing of `item`s. */
async function allPages<T>(
  ctx: Ctx,
  path: string,
  item: z.ZodType<T>,
  query: Record<string, string | undefined>,
): Promise<T[]> {
  const out: T[] = [];
  const pageSchema = wirePageSchema(item);
  let cursor = INITIAL_CURSOR;
  for (let guard = 0; guard < 1000 && cursor !== END_CURSOR; guard++) {
    const page = await request(
      ctx,
      { method: 'GET', path, query: { ...query, next_cursor: cursor }, auth: 'l2' },
      pageSchema,
    );
    out.push(...page.data);
    if (!page.next_cursor || page.next_cursor === cursor) break;
    cursor = page.next_cursor;
  }
  return out;
}

/** `GET /data/order/<id>`: the order, or null for a body without an order id (how the venue answers an unknown one). */
const orderOrNothing = z.preprocess(
  (v) => (v && typeof v === 'object' && (v as { id?: unknown }).id ? v : null),
  wireOrderSchema.nullable(),
);
/** `POST /order`: acceptance, or the venue's refusal. */
const placeAnswer = z
  .looseObject({
    success: z.boolean().optional(),
    orderID: z.string().optional(),
    errorMsg: z.string().optional(),
    error: z.string().optional(),
  })
  .nullable();
/** `DELETE /order`: the reason per order id it did not cancel. */
const cancelAnswer = z.looseObject({ not_canceled: z.record(z.string(), z.string()).nullish() }).nullable();
/** `POST /auth/api-key` / `GET /auth/derive-api-key`: the L2 credentials. */
const credsAnswer = z.looseObject({ apiKey: z.string(), secret: z.string(), passphrase: z.string() });

// ---------------------------------------------------------------------------------------------
// Mapping

const platformSymbol = (tokenId: string) => findByVenueSymbol('polymarket', tokenId)?.symbol ?? tokenId;

function tokenOf(symbol: string): { tokenId: string; tickSize: string; negRisk: boolean } {
  const spec = findSymbol('polymarket', symbol);
  if (!spec?.venueSymbol) throw new VenueRejected(`market not found: ${symbol}`);
  return {
    tokenId: spec.venueSymbol,
    tickSize: spec.tickSize,
    negRisk: POLYMARKET_TOKENS[spec.venueSymbol]?.negRisk ?? false,
  };
}

/** A venue order in the platform's vocabulary. The CLOB order has no average fill price (fills carry it). */
function toVenueOrder(w: WireOrder): VenueOrder {
  const filled = new Decimal(w.size_matched || '0');
  let status = platformStatus(w.status);
  if (status === 'open' && filled.gte(w.original_size)) status = 'filled';
  return {
    venueOrderId: w.id,
    clientOrderId: clientIdByHash.get(w.id.toLowerCase()) ?? null,
    symbol: platformSymbol(w.asset_id),
    side: SIDE_FROM_VENUE[w.side],
    type: 'limit',
    qty: new Decimal(w.original_size).toFixed(),
    price: new Decimal(w.price).toFixed(),
    status,
    filledQty: filled.toFixed(),
    avgFillPrice: null,
    updatedAt: Number(w.created_at) * 1000,
  };
}

/** The owner's legs of one trade as fills: the taker leg, or each of the owner's maker legs (fee 0). */
function tradeFills(t: WireTrade, ctx: Ctx): VenueFill[] {
  const time = Number(t.match_time) * 1000;
  const symbol = platformSymbol(t.asset_id);
  const clientId = (id: string) => clientIdByHash.get(id.toLowerCase()) ?? null;
  if (t.trader_side === 'TAKER') {
    return [
      {
        venueTradeId: t.id,
        venueOrderId: t.taker_order_id,
        clientOrderId: clientId(t.taker_order_id),
        symbol,
        side: SIDE_FROM_VENUE[t.side],
        qty: new Decimal(t.size).toFixed(),
        price: new Decimal(t.price).toFixed(),
        feeUsd: takerFeeUsd(t.fee_rate_bps || '0', t.price, t.size),
        time,
      },
    ];
  }
  const wallet = evmAgent(ctx.agent).address.toLowerCase();
  const apiKey = ctx.apiCredentials?.apiKey;
  return t.maker_orders
    .filter((m) => m.maker_address.toLowerCase() === wallet || (apiKey !== undefined && m.owner === apiKey))
    .map((m) => ({
      venueTradeId: `${t.id}:${m.order_id}`,
      venueOrderId: m.order_id,
      clientOrderId: clientId(m.order_id),
      symbol: platformSymbol(m.asset_id),
      side: SIDE_FROM_VENUE[m.side],
      qty: new Decimal(m.matched_amount).toFixed(),
      price: new Decimal(m.price).toFixed(),
      feeUsd: '0',
      time,
    }));
}

/** `GET /data/order/<id>`: the venue's order, or null for an id it does not know. */
async function wireOrderById(ctx: Ctx, id: string): Promise<WireOrder | null> {
  return request(ctx, { method: 'GET', path: `/data/order/${id}`, auth: 'l2', allow404: true }, orderOrNothing);
}

async function orderById(ctx: Ctx, id: string): Promise<VenueOrder | null> {
  const json = await wireOrderById(ctx, id);
  return json ? toVenueOrder(json) : null;
}

/**
 * The orders of `fills`, each read once with `GET /data/order/<id>`, in the fills' order: those whose
 * id (lower-case) is in `seen` are skipped, every other id is added to it; ids the venue does not
 * know are left out.
 */
async function ordersOfFills(ctx: Ctx, fills: VenueFill[], seen: Set<string>): Promise<WireOrder[]> {
  const out: WireOrder[] = [];
  for (const { venueOrderId: id } of fills) {
    if (seen.has(id.toLowerCase())) continue;
    seen.add(id.toLowerCase());
    const w = await wireOrderById(ctx, id);
    if (w) out.push(w);
  }
  return out;
}

/**
 * The order the agent signs (the same fields for V2 and V3): `maker` = `signer` = the agent's wallet,
 * signature type 0 (EOA), no metadata or builder; `salt` is the client order id, `amounts` {@link orderAmounts}' (6-decimal
 * integers), `timestamp` the signing time (epoch ms), decimal strings.
 */
function agentOrder(
  ctx: Ctx,
  o: Pick<PolymarketOrder, 'salt' | 'tokenId' | 'side' | 'makerAmount' | 'takerAmount' | 'timestamp'>,
): PolymarketOrder {
  const agent = evmAgent(ctx.agent);
  return {
    salt: o.salt,
    maker: agent.address,
    signer: agent.address,
    tokenId: o.tokenId,
    makerAmount: o.makerAmount,
    takerAmount: o.takerAmount,
    side: o.side,
    signatureType: SIGNATURE_TYPE.EOA,
    timestamp: o.timestamp,
    metadata: BYTES32_ZERO,
    builder: BYTES32_ZERO,
  };
}

/** Limit prices tried when rebuilding one FOK/FAK order at most (a lost acknowledgement's search, module doc). */
const IMMEDIATE_PRICE_CANDIDATES = 64;

/**
 * The limit prices (on the tick grid) a listed order `w` may have been signed at. A GTC/GTD order's listed price is
 * its limit. A FOK/FAK order's amounts ({@link immediateOrderAmounts}) imply a price off the grid (a BUY's at most
 * 0.01 USDC ÷ size above its limit, a SELL's at most 0.0001 USDC ÷ size below): every tick within that distance of
 * the listed price, nearest first (at most {@link IMMEDIATE_PRICE_CANDIDATES}).
 */
function limitPricesOf(w: WireOrder, tickSize: string): string[] {
  const tick = new Decimal(tickSize);
  const listed = new Decimal(w.price);
  if (!IMMEDIATE_TYPES.has(w.order_type ?? '')) return [listed.toFixed()];
  const size = new Decimal(w.original_size);
  const reach = (w.side === 'BUY' ? new Decimal('0.01') : new Decimal('0.0001')).div(size).plus(tick);
  const nearest = listed.div(tick).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).mul(tick);
  const out: string[] = [];
  for (let k = 0; out.length < IMMEDIATE_PRICE_CANDIDATES && new Decimal(k).mul(tick).lte(reach); k++)
    for (const p of k === 0 ? [nearest] : [nearest.minus(tick.mul(k)), nearest.plus(tick.mul(k))])
      if (p.gt(0) && p.lt(1)) out.push(p.toFixed());
  return out.slice(0, IMMEDIATE_PRICE_CANDIDATES);
}

/** The wire order types whose amounts follow {@link immediateOrderAmounts}. */
const IMMEDIATE_TYPES = new Set(['FAK', 'FOK']);

/**
 * The orders the agent may have signed with salt `clientOrderId` for a listed order `w` (its side, original size,
 * order type and each limit price {@link limitPricesOf} allows, amounts as {@link orderAmounts} or, for FOK/FAK,
 * {@link immediateOrderAmounts} compute them), timestamp left out; none when the listed order is of another token
 * or its amounts do not round-trip.
 */
function rebuiltOrders(
  w: WireOrder,
  token: { tokenId: string; tickSize: string },
  clientOrderId: string,
  ctx: Ctx,
): Omit<PolymarketOrder, 'timestamp'>[] {
  if (w.asset_id !== token.tokenId) return [];
  const amountsOf = IMMEDIATE_TYPES.has(w.order_type ?? '') ? immediateOrderAmounts : orderAmounts;
  return limitPricesOf(w, token.tickSize).flatMap((price) => {
    try {
      const amounts = amountsOf(w.side, w.original_size, price, token.tickSize);
      // Timestamp 0 stands in: it is what findOrderTimestamp searches.
      return [
        agentOrder(ctx, { salt: clientOrderId, tokenId: token.tokenId, side: w.side, ...amounts, timestamp: '0' }),
      ];
    } catch {
      return [];
    }
  });
}

// ---------------------------------------------------------------------------------------------
// The adapter

/** The Polymarket CLOB adapter (see the module docstring for the exchange version, custody and idempotency). */
export const polymarketAdapter: VenueAdapter = {
  venue: 'polymarket',

  /** The order salt of the intent (decimal integer < 2^53): see {@link saltFromIntentId}. */
  clientOrderId(intentId) {
    return saltFromIntentId(intentId);
  },

  /**
   * Signs and posts one order for the venue's exchange version (V2 or V3, module doc): `maker` =
   * `signer` = the agent's wallet, signature type 0 (EOA), `timestamp` = now (epoch ms, by our clock,
   * as Polymarket's own V2 client sets it: not a nonce; the order's salt makes it unique),
   * salt = the client order id; its hash (which depends on the version's domain) is remembered under
   * the client order id before it is sent. Market → FAK at the protective price; `Ioc` → FAK; `Alo` →
   * GTC post-only; a FAK carries a market order's amounts (`immediateOrderAmounts`, docs/venues.md §3.1), a GTC a
   * limit order's (`orderAmounts`). Refused with `order_version_mismatch`, it is signed again for the version the venue
   * then answers, once, when that version differs. Returns the order as `GET /data/order` shows it, read after
   * `acknowledged` heard the accepted order's id (the caller records it dispatched meanwhile).
   * @throws VenueRejected for stops/take-profits (not on the CLOB), for a venue taking a version the
   *   platform does not sign, and for every venue refusal.
   */
  async place(ctx, order, acknowledged) {
    const agent = evmAgent(ctx.agent);
    const creds = credsOf(ctx);
    const wireType = ORDER_TYPE[`${order.type}:${order.timeInForce}`];
    if (!wireType)
      throw new VenueRejected(
        `order type ${order.type} is not supported by the Polymarket CLOB (market and limit only)`,
      );
    const { tokenId, tickSize, negRisk } = tokenOf(order.symbol);
    const price = order.type === 'market' ? protectivePrice(order.side, order.markPrice, tickSize) : order.price;
    if (price == null) throw new VenueRejected('a limit order needs a price');
    const side = SIDE_TO_VENUE[order.side];
    // FOK/FAK orders carry a market order's amounts (MARKET_AMOUNT_DECIMALS), GTC ones a limit order's.
    const amounts = (wireType.orderType === 'FAK' ? immediateOrderAmounts : orderAmounts)(
      side,
      order.qty,
      price,
      tickSize,
    );
    const post = async (exchangeVersion: ExchangeVersion) => {
      const timestamp = String(Date.now());
      const signed = agentOrder(ctx, { salt: order.clientOrderId, tokenId, side, ...amounts, timestamp });
      // The order's hash is both what is signed and its id on the venue: computed once.
      const hash = orderHash(signed, ctx.network, negRisk, exchangeVersion);
      const signature = signDigestWithKey(agent.privateKey, hash);
      remember(order.clientOrderId, hash);
      const body = {
        order: { ...signed, salt: Number(signed.salt), expiration: '0', signature },
        owner: creds.apiKey,
        orderType: wireType.orderType,
        postOnly: wireType.postOnly,
        deferExec: false,
      };
      return request(ctx, { method: 'POST', path: '/order', body, auth: 'l2' }, placeAnswer);
    };
    const version = await exchangeVersionOf(ctx);
    let json: z.output<typeof placeAnswer>;
    try {
      json = await post(version);
    } catch (err) {
      if (!(err instanceof VenueRejected && err.reason.includes(ORDER_VERSION_MISMATCH))) throw err;
      const answered = await exchangeVersionOf(ctx, true);
      if (answered === version) throw err;
      json = await post(answered);
    }
    if (!json?.success) throw new VenueRejected(String(json?.errorMsg || json?.error || 'order not accepted'));
    if (json.orderID) acknowledged?.(json.orderID);
    const placed = await orderById(ctx, String(json.orderID));
    if (!placed) throw new Error(`polymarket: order ${json.orderID} accepted but not found`);
    return placed;
  },

  /**
   * The order signed with this salt, by its hash: the remembered hash read with `GET /data/order/<hash>`;
   * else the token's open orders and the orders of its trades, rebuilt and hashed (module doc), or null.
   */
  async findByClientOrderId(ctx, symbol, clientOrderId) {
    const hash = hashByClientId.get(clientOrderId);
    if (hash) {
      const found = await orderById(ctx, hash);
      if (found) return found;
    }
    const token = tokenOf(symbol);
    const exchangeVersion = await exchangeVersionOf(ctx);
    const wallet = evmAgent(ctx.agent).address.toLowerCase();
    const open = await allPages(ctx, '/data/orders', wireOrderSchema, { asset_id: token.tokenId });
    const after = Math.floor((Date.now() - LOOKBACK_MS) / 1000).toString();
    const trades = await allPages(ctx, '/data/trades', wireTradeSchema, {
      maker_address: wallet,
      asset_id: token.tokenId,
      after,
    });
    // Orders of other intents this process signed are not candidates; the rest, newest first.
    const seen = new Set([...open.map((o) => o.id.toLowerCase()), ...clientIdByHash.keys()]);
    const candidates = open.filter((o) => !clientIdByHash.has(o.id.toLowerCase()));
    candidates.push(
      ...(await ordersOfFills(
        ctx,
        trades.flatMap((t) => tradeFills(t, ctx)),
        seen,
      )),
    );
    candidates.sort((x, y) => Number(y.created_at) - Number(x.created_at));
    for (const w of candidates) {
      if (w.maker_address !== undefined && String(w.maker_address).toLowerCase() !== wallet) continue;
      const createdMs = Number(w.created_at) * 1000;
      const found = rebuiltOrders(w, token, clientOrderId, ctx).some(
        (signed) =>
          findOrderTimestamp(
            signed,
            ctx.network,
            token.negRisk,
            w.id,
            createdMs - SIGNED_BEFORE_CREATED_MS,
            createdMs + 1999,
            exchangeVersion,
          ) !== null,
      );
      if (!found) continue;
      remember(clientOrderId, w.id.toLowerCase());
      return toVenueOrder(w);
    }
    return null;
  },

  async status(ctx, _symbol, venueOrderId) {
    return orderById(ctx, venueOrderId);
  },

  /**
   * `DELETE /order {orderID}`, then the order's final state. A filled or already canceled order is
   * returned as such. @throws VenueRejected with the venue's `not_canceled` reason when it stays open.
   */
  async cancel(ctx, _symbol, venueOrderId) {
    const json = await request(
      ctx,
      { method: 'DELETE', path: '/order', body: { orderID: venueOrderId }, auth: 'l2' },
      cancelAnswer,
    );
    const after = await orderById(ctx, venueOrderId);
    const reason = json?.not_canceled?.[venueOrderId];
    if (!after) throw new VenueRejected(reason ?? `order ${venueOrderId} not found`);
    if (after.status === 'open') throw new VenueRejected(reason ?? 'order could not be canceled');
    return after;
  },

  /** `GET /data/trades` (all pages, `after` = sinceMs in whole seconds), the owner's legs, oldest first. */
  async fills(ctx, opts) {
    const tokenId = opts.symbol ? tokenOf(opts.symbol).tokenId : undefined;
    const query = {
      maker_address: evmAgent(ctx.agent).address,
      asset_id: tokenId,
      after: Math.floor(opts.sinceMs / 1000).toString(),
    };
    const trades = await allPages(ctx, '/data/trades', wireTradeSchema, query);
    const floorMs = Math.floor(opts.sinceMs / 1000) * 1000;
    return trades
      .flatMap((t) => tradeFills(t, ctx))
      .filter((f) => f.time >= floorMs && (!opts.venueOrderId || f.venueOrderId === opts.venueOrderId))
      .sort((a, b) => a.time - b.time);
  },

  /**
   * The agent's orders the venue reports: the working ones (`GET /data/orders`, which lists no finished
   * order) and those of its trades in the last 24 h (`GET /data/trades`, each read with
   * `GET /data/order/<id>`). An order killed or canceled without a fill is in neither listing.
   */
  async orders(ctx) {
    const live = await allPages(ctx, '/data/orders', wireOrderSchema, {});
    const seen = new Set(live.map((o) => o.id.toLowerCase()));
    const out = live.map(toVenueOrder);
    const fills = await polymarketAdapter.fills(ctx, { sinceMs: Date.now() - LOOKBACK_MS });
    return [...out, ...(await ordersOfFills(ctx, fills, seen)).map(toVenueOrder)];
  },

  /**
   * The agent wallet's collateral (`GET /balance-allowance`, signature type 0) and its positions as the net of its
   * own trades on the venue (`GET /data/trades`, average entry as the paper engine keeps it); the CLOB
   * reports no mark with them, so they are valued at entry (venues/account.ts `fullyPaidAccount`).
   */
  async account(ctx) {
    const query = { asset_type: 'COLLATERAL', signature_type: String(SIGNATURE_TYPE.EOA) };
    const { balance } = await request(
      ctx,
      { method: 'GET', path: '/balance-allowance', query, auth: 'l2' },
      wireBalanceSchema,
    );
    const held = new Map<string, PositionState>();
    for (const f of await polymarketAdapter.fills(ctx, { sinceMs: 0 }))
      held.set(
        f.symbol,
        applyFill(
          held.get(f.symbol) ?? FLAT,
          { side: f.side, qty: new Decimal(f.qty), price: new Decimal(f.price) },
          f.time,
        ).position,
      );
    const positions = [...held]
      .filter(([, p]) => !p.qty.isZero())
      .map(([symbol, p]) => ({
        symbol,
        qty: p.qty.toFixed(),
        avgEntryPrice: p.avgEntryPrice.toDecimalPlaces(6, Decimal.ROUND_HALF_EVEN).toFixed(),
        markPrice: null,
        unrealizedPnlUsd: null,
        leverage: null,
      }));
    return fullyPaidAccount(new Decimal(balance).div(USDC_UNITS).toFixed(), positions);
  },

  /**
   * The platform's `AuthorizeSigner` typed data (the owner's consent, kept by the platform, never sent
   * to the venue): funder = owner, signer = agent, expiry and nonce in epoch ms.
   */
  authorizationRequest(args) {
    return {
      kind: 'eip712',
      typedData: authorizeSignerTypedData({
        funder: args.owner,
        signer: args.agentAddress,
        expiresAt: args.expiresAt,
        nonce: args.nonce,
        network: args.network,
      }) as unknown as Eip712Request['typedData'],
    };
  },

  /** True when `signature` over an `AuthorizeSigner` request recovers to `owner` and names `owner` as funder. */
  async verifyAuthorization({ owner, request: req, signature }) {
    if (req.kind !== 'eip712' || req.typedData.primaryType !== 'AuthorizeSigner') return false;
    const message = req.typedData.message as unknown as AuthorizeSignerMessage;
    if (String(message.funder).toLowerCase() !== owner.toLowerCase()) return false;
    const signer = await recoverAuthorizeSigner(message, signature, Number(req.typedData.domain.chainId));
    return signer === owner.toLowerCase();
  },

  /**
   * Derives the agent's L2 API credentials as the venue's own clients do, after checking the owner's
   * consent locally: L1 `ClobAuth` headers signed by the agent, `POST /auth/api-key`, or
   * `GET /auth/derive-api-key` when the venue already holds a key for the agent (nonce 0).
   * Returns `{ apiKey, secret, passphrase }`.
   * @throws VenueRejected `invalid signature` when the consent does not verify for the request's
   *   funder, or with the venue's reason when it refuses the L1 headers.
   */
  async submitAuthorization(ctx, { request: req, signature }) {
    if (req.kind !== 'eip712') throw new VenueRejected('polymarket expects an EIP-712 authorisation');
    const agent = evmAgent(ctx.agent);
    const message = req.typedData.message as unknown as AuthorizeSignerMessage;
    const funder = String(message.funder ?? '');
    if (!(await polymarketAdapter.verifyAuthorization({ owner: funder, request: req, signature })))
      throw new VenueRejected('invalid signature');
    if (String(message.signer).toLowerCase() !== agent.address.toLowerCase())
      throw new VenueRejected('the authorisation names another signer');
    const l1 = () => l1Headers(agent.privateKey, nowSec(), 0n, ctx.network);
    let creds: ApiCreds;
    try {
      creds = await request(ctx, { method: 'POST', path: '/auth/api-key', headers: await l1() }, credsAnswer);
    } catch (err) {
      if (!(err instanceof VenueRejected)) throw err;
      creds = await request(ctx, { method: 'GET', path: '/auth/derive-api-key', headers: await l1() }, credsAnswer);
    }
    return { apiKey: creds.apiKey, secret: creds.secret, passphrase: creds.passphrase };
  },
};

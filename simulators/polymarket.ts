/**
 * A local Polymarket CLOB V2 simulator (node:http on 127.0.0.1) serving the REST surface the
 * adapter uses, with the venue's paths and JSON shapes (docs/venues.md §3):
 * - `POST /auth/api-key`, `GET /auth/derive-api-key`: L1 auth (`ClobAuth` EIP-712 headers) → `{apiKey, secret, passphrase}`;
 * - `POST /order`, `DELETE /order`, `GET /data/order/<id>`, `GET /data/orders`, `GET /data/trades`,
 *   `GET /balance-allowance?asset_type=COLLATERAL` (the USDC, 6-decimal base units, of the funders the
 *   caller signs for): L2 HMAC headers verified on every call (base64url HMAC-SHA256 over ts+METHOD+path+body);
 * - `POST /auth/authorize-signer` — SIMULATOR ONLY: stands in for adding the agent as an owner of
 *   the funder's wallet on chain. Body `{message:{funder,signer,expiresAt,nonce}, chainId, signature}`
 *   where `signature` is the funder's EIP-712 `AuthorizeSigner` signature (domain
 *   `Multivenue Agent Authorization`/1/chainId); `nonce` must grow per funder; `expiresAt` epoch ms.
 *
 * An order is accepted only when: the L2 headers verify; `owner` is the caller's API key; the
 * order `signer` is the API key's address; `signatureType` is 2 (POLY_GNOSIS_SAFE); the V2 EIP-712
 * signature recovers `signer` (else `{"error":"invalid signature"}`, 400); `signer` is authorised
 * and unexpired for `maker`; the order hash was never seen (a replay is refused as a duplicate);
 * the price is on the 0.01 tick inside [tick, 1 − tick]; the size has ≤ 2 decimals.
 *
 * Matching against `markOf(platform symbol)`: FAK/FOK fill at once at the mark when the limit is
 * marketable (BUY: mark ≤ limit; SELL: mark ≥ limit), else are killed with the venue's error;
 * GTC fills at once at the mark when marketable (post-only ones are refused instead), else rests
 * (`live`) and fills at its limit as a maker when `poke()` runs or on any status, orders or trades
 * read after the mark crossed. Takers pay `takerFeeBps` (default 0, as on most Polymarket markets)
 * by rate × min(p, 1 − p) × size; makers pay 0. Times on the wire are epoch seconds.
 *
 * Each funder's USDC (what a test funds, `fund()`, less what buys cost, plus what sells bring, less fees)
 * and shares are kept (simulators/holdings.ts); there are no insufficient-balance refusals.
 *
 * Deviations, on purpose: `GET /data/orders` lists every order of the caller's funder wallets
 * (working and terminal) and each order object also carries its `salt` (the real venue lists
 * working orders without the salt).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { keccak256, toHex } from 'viem';
import { Decimal } from '../domain/decimal.js';
import { findByVenueSymbol } from '../domain/market/symbols.js';
import { POLYMARKET_TOKENS } from '../domain/market/venues/polymarket.js';
import {
  POLYMARKET_CHAIN_ID,
  hmacSignature,
  orderHash,
  priceAndSize,
  recoverAuthorizeSigner,
  recoverL1Signer,
  recoverOrderSigner,
  SIGNATURE_TYPE,
  type PolymarketOrder,
} from '../venues/polymarket/signing.js';
import {
  END_CURSOR,
  INITIAL_CURSOR,
  takerFeeUsd,
  USDC_UNITS,
  type WireOrder,
  type WireTrade,
} from '../venues/polymarket/wire.js';
import { addressControls, Faults, lc, listen, messageOf, Reply, Tally } from './harness.js';
import type { SimulatorOptions, VenueSimulator } from './harness.js';
import { crosses, decimalMarks, injectedSpec, markedOrders } from './matching.js';
import { Holdings } from './holdings.js';

/**
 * Options of {@link startPolymarketSimulator}: marks (probability units) of platform symbols
 * (`TRUMP-INAUGURATED-YES.PM`); `network` is the chain the signatures are checked for: mainnet 137
 * (default), testnet 80002.
 */
export interface PolymarketSimulatorOptions extends SimulatorOptions {
  /** Taker fee rate in basis points reported on trades (default 0). */
  takerFeeBps?: number;
}

/**
 * The running simulator and its test controls: owners are funder wallets (orders count by `maker`);
 * `rejectNext` refuses with `{"error": reason}` (400).
 */
export interface PolymarketSimulator extends VenueSimulator<{
  symbol: string;
  side: 'buy' | 'sell';
  qty: string;
  price: string;
}> {
  /** The signers authorised for a funder, with their expiry (epoch ms). */
  authorizedSigners(funder: string): { signer: string; expiresAt: number }[];
  /** Ends a signer's authorisation (the owner removes it from the wallet). */
  revokeSigner(funder: string, signer: string): void;
}

interface SimOrder {
  id: string;
  salt: number;
  maker: string;
  owner: string;
  tokenId: string;
  symbol: string;
  side: 'BUY' | 'SELL';
  price: Decimal;
  size: Decimal;
  matched: Decimal;
  status: 'LIVE' | 'MATCHED' | 'CANCELED';
  orderType: string;
  createdAt: number;
  trades: string[];
}

/**
 * A `POST /order` body in the venue's shape, as parsed JSON: the signed order, the caller's api key as
 * `owner`, `orderType` (`GTC` default, `GTD`, `FOK`, `FAK`) and `postOnly`; checked by `placeOrder`.
 */
interface PostOrderBody {
  order?: OrderWire | null;
  owner?: string;
  orderType?: string;
  postOnly?: boolean;
}

/**
 * The signed order as the venue takes it: {@link PolymarketOrder}'s fields with `salt` a JSON number,
 * `signatureType` a number (or its decimal text) and the EIP-712 `signature` (0x hex).
 */
type OrderWire = Omit<PolymarketOrder, 'salt' | 'signatureType'> & {
  salt: number;
  signatureType: number | string;
  signature?: string;
};

interface ApiKeyRow {
  address: string;
  secret: string;
  passphrase: string;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
  ) {
    super(error);
  }
}

const TICK = (tokenId: string) => new Decimal(findByVenueSymbol('polymarket', tokenId)?.tickSize ?? '0.01');
const nowSec = () => Math.floor(Date.now() / 1000);
const PAGE = 100;

/** Starts the simulator. Resolves once it listens. */
export async function startPolymarketSimulator(opts: PolymarketSimulatorOptions): Promise<PolymarketSimulator> {
  const network = opts.network ?? 'mainnet';
  const chainId = POLYMARKET_CHAIN_ID[network];
  const takerFeeBps = String(opts.takerFeeBps ?? 0);
  const signers = new Map<string, Map<string, number>>(); // funder → signer → expiresAt (ms)
  const authNonce = new Map<string, bigint>(); // funder → last authorisation nonce
  const keys = new Map<string, ApiKeyRow>(); // apiKey → row
  const keyOfAddress = new Map<string, string>(); // address → apiKey
  const orders = new Map<string, SimOrder>();
  const trades: (WireTrade & { ownerOrders: string[] })[] = [];
  const accepted = new Tally();
  const byClientId = new Tally();
  const holdings = new Holdings();
  const faults = new Faults();

  const marks = decimalMarks(opts.markOf);
  const markOf = async (tokenId: string): Promise<Decimal | null> => {
    const spec = findByVenueSymbol('polymarket', tokenId);
    return spec ? marks(spec) : null;
  };
  const marketable = (side: 'BUY' | 'SELL', limit: Decimal, mark: Decimal) => crosses(side === 'BUY', limit, mark);

  function fill(o: SimOrder, price: Decimal, asTaker: boolean): void {
    const size = o.size.sub(o.matched);
    const id = randomUUID();
    const feeUsd = new Decimal(asTaker ? takerFeeUsd(takerFeeBps, price.toFixed(), size.toFixed()) : 0);
    holdings.fill(o.maker, o.symbol, { side: o.side === 'BUY' ? 'buy' : 'sell', qty: size, price, feeUsd });
    const market = POLYMARKET_TOKENS[o.tokenId]?.marketId ?? '';
    const makerLeg = (orderId: string, owner: string, maker: string, side: 'BUY' | 'SELL', fee: string) => ({
      order_id: orderId,
      owner,
      maker_address: maker,
      matched_amount: size.toFixed(),
      price: price.toFixed(),
      fee_rate_bps: fee,
      asset_id: o.tokenId,
      outcome: '',
      side,
    });
    const base = {
      id,
      market,
      asset_id: o.tokenId,
      size: size.toFixed(),
      price: price.toFixed(),
      status: 'CONFIRMED',
      match_time: String(nowSec()),
      last_update: String(nowSec()),
      outcome: '',
      ownerOrders: [o.id],
    };
    if (asTaker) {
      trades.push({
        ...base,
        taker_order_id: o.id,
        side: o.side,
        fee_rate_bps: takerFeeBps,
        owner: o.owner,
        maker_address: o.maker,
        trader_side: 'TAKER',
        maker_orders: [
          makerLeg(
            `0x${randomBytes(32).toString('hex')}`,
            'sim-liquidity',
            '0x0000000000000000000000000000000000000001',
            o.side === 'BUY' ? 'SELL' : 'BUY',
            '0',
          ),
        ],
      });
    } else {
      trades.push({
        ...base,
        taker_order_id: `0x${randomBytes(32).toString('hex')}`,
        side: o.side === 'BUY' ? 'SELL' : 'BUY',
        fee_rate_bps: takerFeeBps,
        owner: 'sim-liquidity',
        maker_address: '0x0000000000000000000000000000000000000001',
        trader_side: 'MAKER',
        maker_orders: [makerLeg(o.id, o.owner, o.maker, o.side, '0')],
      });
    }
    o.matched = o.size;
    o.status = 'MATCHED';
    o.trades.push(id);
  }

  async function poke(): Promise<void> {
    const live = (o: SimOrder) => o.status === 'LIVE';
    for await (const [o, mark] of markedOrders(orders.values(), live, (o) => markOf(o.tokenId))) {
      if (marketable(o.side, o.price, mark)) fill(o, o.price, false);
    }
  }

  /** A new live order: nothing matched, no trades, created now. */
  const newOrder = (o: Omit<SimOrder, 'matched' | 'status' | 'createdAt' | 'trades'>): SimOrder => ({
    ...o,
    matched: new Decimal(0),
    status: 'LIVE',
    createdAt: nowSec(),
    trades: [],
  });

  function record(o: SimOrder): void {
    orders.set(o.id, o);
    accepted.add(o.maker);
    byClientId.add(String(o.salt));
  }

  const wireOrder = (o: SimOrder): WireOrder => ({
    id: o.id,
    status: o.status,
    owner: o.owner,
    maker_address: o.maker,
    market: POLYMARKET_TOKENS[o.tokenId]?.marketId ?? '',
    asset_id: o.tokenId,
    side: o.side,
    original_size: o.size.toFixed(),
    size_matched: o.matched.toFixed(),
    price: o.price.toFixed(),
    associate_trades: [...o.trades],
    outcome: o.symbol.replace(/\.PM$/, '').split('-').at(-1) ?? '',
    created_at: o.createdAt,
    expiration: '0',
    order_type: o.orderType,
    salt: o.salt,
  });

  // --- auth -------------------------------------------------------------------------------

  async function l1(req: IncomingMessage): Promise<string> {
    const h = req.headers;
    const address = lc(h['poly_address']);
    const ts = String(h['poly_timestamp'] ?? '');
    const sig = String(h['poly_signature'] ?? '');
    let nonce: bigint;
    try {
      nonce = BigInt(String(h['poly_nonce'] ?? '0'));
    } catch {
      throw new HttpError(401, 'Invalid L1 Request headers');
    }
    if (!address || !ts || !sig || (await recoverL1Signer(address, ts, nonce, sig, network)) !== address)
      throw new HttpError(401, 'Invalid L1 Request headers');
    return address;
  }

  function l2(req: IncomingMessage, method: string, path: string, body: string): { apiKey: string; row: ApiKeyRow } {
    const h = req.headers;
    const apiKey = String(h['poly_api_key'] ?? '');
    const row = keys.get(apiKey);
    const unauthorized = new HttpError(401, 'Unauthorized/Invalid api key');
    if (!row || String(h['poly_passphrase'] ?? '') !== row.passphrase || lc(h['poly_address']) !== row.address)
      throw unauthorized;
    const expected = Buffer.from(
      hmacSignature(row.secret, String(h['poly_timestamp'] ?? ''), method, path, body || undefined),
    );
    const given = Buffer.from(String(h['poly_signature'] ?? ''));
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw unauthorized;
    return { apiKey, row };
  }

  /** Funders whose wallet the caller's address signs for (authorised, any expiry). */
  const fundersOf = (address: string) => [...signers.entries()].filter(([, m]) => m.has(address)).map(([f]) => f);
  const visible = (o: SimOrder, apiKey: string, address: string) =>
    o.owner === apiKey || fundersOf(address).includes(o.maker);

  function newCreds(address: string): ApiKeyRow & { apiKey: string } {
    const apiKey = randomUUID();
    const row = {
      address,
      secret: randomBytes(32).toString('base64url') + '=',
      passphrase: randomBytes(32).toString('hex'),
    };
    keys.set(apiKey, row);
    keyOfAddress.set(address, apiKey);
    return { apiKey, ...row };
  }
  const credsBody = (apiKey: string) => ({
    apiKey,
    secret: keys.get(apiKey)!.secret,
    passphrase: keys.get(apiKey)!.passphrase,
  });

  // --- orders -----------------------------------------------------------------------------

  async function placeOrder(parsed: unknown, apiKey: string, row: ApiKeyRow, res: ServerResponse): Promise<unknown> {
    const body = parsed as PostOrderBody | null;
    const w = body?.order;
    if (!body || !w || typeof w !== 'object') throw new HttpError(400, 'Invalid order payload');
    if (body.owner !== apiKey) throw new HttpError(400, 'the order owner has to be the owner of the API KEY');
    if (lc(w.signer) !== row.address)
      throw new HttpError(400, 'the order signer address has to be the address of the API KEY');
    if (Number(w.signatureType) !== SIGNATURE_TYPE.POLY_GNOSIS_SAFE)
      throw new HttpError(400, 'unsupported signature type');
    if (!Number.isSafeInteger(w.salt) || (w.side !== 'BUY' && w.side !== 'SELL'))
      throw new HttpError(400, 'Invalid order payload');
    const spec = findByVenueSymbol('polymarket', String(w.tokenId));
    if (!spec) throw new HttpError(400, 'market not found');
    const order: PolymarketOrder = {
      salt: String(w.salt),
      maker: w.maker,
      signer: w.signer,
      tokenId: String(w.tokenId),
      makerAmount: String(w.makerAmount),
      takerAmount: String(w.takerAmount),
      side: w.side,
      signatureType: Number(w.signatureType),
      timestamp: String(w.timestamp),
      metadata: w.metadata,
      builder: w.builder,
    };
    const negRisk = POLYMARKET_TOKENS[order.tokenId]?.negRisk ?? false;
    let hash: string;
    try {
      hash = orderHash(order, network, negRisk);
    } catch {
      throw new HttpError(400, 'Invalid order payload');
    }
    if ((await recoverOrderSigner(order, String(w.signature ?? ''), network, negRisk)) !== row.address)
      throw new HttpError(400, 'invalid signature');
    const maker = lc(order.maker);
    const expiresAt = signers.get(maker)?.get(row.address);
    if (expiresAt === undefined)
      throw new HttpError(400, 'the order signer is not an authorized signer of the maker wallet');
    if (expiresAt <= Date.now())
      throw new HttpError(400, "the order signer's authorization for the maker wallet has expired");
    if (orders.has(hash)) throw new HttpError(400, `order ${hash} is invalid. Duplicated.`);
    const { price, size } = priceAndSize(order);
    const tick = TICK(order.tokenId);
    if (!price.mod(tick).isZero() || price.lt(tick) || price.gt(new Decimal(1).sub(tick)))
      throw new HttpError(
        400,
        `order ${hash} is invalid. Price (${price.toFixed()}) breaks minimum tick size rule: ${tick.toFixed()}`,
      );
    if (size.lte(0) || size.decimalPlaces() > spec.szDecimals)
      throw new HttpError(
        400,
        `order ${hash} is invalid. Size (${size.toFixed()}) lower than the minimum or with too many decimals`,
      );
    const reason = faults.takeRejection();
    if (reason !== null) throw new HttpError(400, reason);
    const orderType = String(body.orderType ?? 'GTC');
    const mark = await markOf(order.tokenId);
    const takes = mark !== null && marketable(order.side, price, mark);
    if (orderType === 'FAK' || orderType === 'FOK') {
      if (!takes) {
        const fak =
          'no orders found to match with FAK order. FAK orders are partially filled or killed if no match is found.';
        throw new HttpError(
          400,
          orderType === 'FAK' ? fak : "order couldn't be fully filled. FOK orders are fully filled or killed.",
        );
      }
    } else if (body.postOnly === true && takes) {
      throw new HttpError(400, 'invalid post-only order: order crosses book');
    }
    const o = newOrder({
      id: hash,
      salt: w.salt,
      maker,
      owner: apiKey,
      tokenId: order.tokenId,
      symbol: spec.symbol,
      side: order.side,
      price,
      size,
      orderType,
    });
    record(o);
    if (takes) fill(o, mark, true);
    if (faults.dropAck(res)) return undefined;
    return {
      success: true,
      orderID: hash,
      status: o.status === 'MATCHED' ? 'matched' : 'live',
      makingAmount: o.status === 'MATCHED' ? order.makerAmount : '',
      takingAmount: o.status === 'MATCHED' ? order.takerAmount : '',
      errorMsg: '',
      transactionsHashes: [],
      tradeIDs: [...o.trades],
    };
  }

  function page<T>(
    items: T[],
    cursor: string | null,
  ): { data: T[]; next_cursor: string; limit: number; count: number } {
    const start = cursor && cursor !== INITIAL_CURSOR ? Number(Buffer.from(cursor, 'base64').toString()) || 0 : 0;
    const data = items.slice(start, start + PAGE);
    const next = start + PAGE < items.length ? Buffer.from(String(start + PAGE)).toString('base64') : END_CURSOR;
    return { data, next_cursor: next, limit: PAGE, count: data.length };
  }

  // --- routing ----------------------------------------------------------------------------

  async function route(req: IncomingMessage, res: ServerResponse, raw: string): Promise<unknown> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = req.method ?? 'GET';
    const path = url.pathname;
    const q = url.searchParams;
    const json = () => {
      try {
        return raw ? JSON.parse(raw) : {};
      } catch {
        throw new HttpError(400, 'Invalid order payload');
      }
    };

    if (method === 'POST' && path === '/auth/authorize-signer') {
      const b = json();
      const m = b?.message ?? {};
      if (Number(b?.chainId) !== chainId) throw new HttpError(400, `wrong chain id, expected ${chainId}`);
      const funder = lc(m.funder);
      if ((await recoverAuthorizeSigner(m, String(b?.signature ?? ''), chainId)) !== funder || !funder)
        throw new HttpError(400, 'invalid signature');
      const nonce = BigInt(m.nonce);
      if (nonce <= (authNonce.get(funder) ?? -1n)) throw new HttpError(400, 'authorization nonce already used');
      if (Number(m.expiresAt) <= Date.now()) throw new HttpError(400, 'authorization expired');
      authNonce.set(funder, nonce);
      if (!signers.has(funder)) signers.set(funder, new Map());
      signers.get(funder)!.set(lc(m.signer), Number(m.expiresAt));
      return { success: true };
    }
    if (method === 'POST' && path === '/auth/api-key') {
      const address = await l1(req);
      if (keyOfAddress.has(address)) throw new HttpError(400, 'Could not create api key');
      const c = newCreds(address);
      return credsBody(c.apiKey);
    }
    if (method === 'GET' && path === '/auth/derive-api-key') {
      const address = await l1(req);
      const apiKey = keyOfAddress.get(address);
      if (!apiKey) throw new HttpError(400, 'Could not derive api key!');
      return credsBody(apiKey);
    }

    const { apiKey, row } = l2(req, method, path, raw);
    if (method === 'POST' && path === '/order') return placeOrder(json(), apiKey, row, res);
    if (method === 'DELETE' && path === '/order') {
      const id = String(json()?.orderID ?? '');
      const o = orders.get(id);
      await poke();
      if (!o || !visible(o, apiKey, row.address) || o.status !== 'LIVE')
        return {
          canceled: [],
          not_canceled: {
            [id]:
              o && visible(o, apiKey, row.address)
                ? "order can't be found - already canceled or matched"
                : 'order not found',
          },
        };
      o.status = 'CANCELED';
      return { canceled: [id], not_canceled: {} };
    }
    const byId = path.match(/^\/data\/order\/(0x[0-9a-fA-F]+)$/);
    if (method === 'GET' && byId) {
      await poke();
      const o = orders.get(byId[1].toLowerCase());
      if (!o || !visible(o, apiKey, row.address)) throw new HttpError(404, 'order not found');
      return wireOrder(o);
    }
    if (method === 'GET' && path === '/data/orders') {
      await poke();
      const list = [...orders.values()].filter(
        (o) =>
          visible(o, apiKey, row.address) &&
          (!q.get('asset_id') || o.tokenId === q.get('asset_id')) &&
          (!q.get('id') || o.id === q.get('id')),
      );
      return page(list.map(wireOrder), q.get('next_cursor'));
    }
    if (method === 'GET' && path === '/balance-allowance') {
      if (q.get('asset_type') !== 'COLLATERAL')
        throw new HttpError(400, 'the simulator answers asset_type=COLLATERAL only');
      await poke();
      const usdc = fundersOf(row.address).reduce((sum, f) => sum.add(holdings.paidCash(f)), new Decimal(0));
      return { balance: usdc.mul(USDC_UNITS).floor().toFixed(), allowances: {} };
    }
    if (method === 'GET' && path === '/data/trades') {
      await poke();
      const after = q.get('after') ? Number(q.get('after')) : -Infinity;
      const before = q.get('before') ? Number(q.get('before')) : Infinity;
      const list = trades.filter(
        (t) =>
          t.ownerOrders.some((id) => visible(orders.get(id)!, apiKey, row.address)) &&
          (!q.get('asset_id') || t.asset_id === q.get('asset_id')) &&
          Number(t.match_time) >= after &&
          Number(t.match_time) <= before,
      );
      return page(
        list.map(({ ownerOrders: _omit, ...t }) => t),
        q.get('next_cursor'),
      );
    }
    throw new HttpError(404, 'not found');
  }

  const fail = (err: unknown) =>
    err instanceof HttpError ? new Reply(err.status, { error: err.error }) : new Reply(500, { error: messageOf(err) });
  const common = await listen({ port: opts.port, route, fail, faults });

  return {
    ...common,
    clientOrderIds: () => byClientId.all(),
    async injectOrder(owner, o) {
      const spec = injectedSpec('polymarket', o.symbol);
      const maker = lc(owner);
      const id = keccak256(toHex(randomBytes(32)));
      const order = newOrder({
        id,
        salt: Number(BigInt(keccak256(toHex(randomBytes(8)))) & ((1n << 53n) - 1n)),
        maker,
        owner: `web-${maker}`,
        tokenId: spec.venueSymbol,
        symbol: spec.symbol,
        side: o.side === 'buy' ? 'BUY' : 'SELL',
        price: new Decimal(o.price),
        size: new Decimal(o.qty),
        orderType: 'GTC',
      });
      record(order);
      const mark = await markOf(order.tokenId);
      if (mark && marketable(order.side, order.price, mark)) fill(order, mark, true);
      return { venueOrderId: id };
    },
    poke,
    ...addressControls(accepted, holdings),
    authorizedSigners(funder) {
      return [...(signers.get(lc(funder)) ?? new Map<string, number>()).entries()].map(([signer, expiresAt]) => ({
        signer,
        expiresAt,
      }));
    },
    revokeSigner(funder, signer) {
      signers.get(lc(funder))?.delete(lc(signer));
    },
  };
}

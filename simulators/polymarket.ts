/**
 * A local Polymarket CLOB simulator (node:http on 127.0.0.1) of the V2 or the V3 exchange (option
 * `exchangeVersion`, default 2) serving exactly routes the real CLOB serves, with the venue's paths and
 * JSON shapes (docs/venues.md §3), and nothing else:
 * - public (no auth): `GET /` (`"OK"`), `GET /time` (epoch seconds), `GET /version` (`{version: 2}` or
 *   `{version: 3}`, the order version the exchange takes), `GET /book?token_id=` (the
 *   token's resting orders, aggregated by price, with its tick size, neg-risk flag and the mark as
 *   `last_trade_price`), `GET /tick-size?token_id=` → `{minimum_tick_size}`, `GET /neg-risk?token_id=`
 *   → `{neg_risk}`, `GET /fee-rate?token_id=` → `{base_fee}` (the taker fee bps), and the market metadata
 *   `clob-client-v2`'s market orders read: `GET /markets-by-token/<token>` → `{condition_id, primary_token_id,
 *   secondary_token_id}` and `GET /clob-markets/<condition>` → `{c, t: [{t, o}], mts, nr, mos, mbf, tbf, fd, r,
 *   gst, ao}`. Each market's condition id is the simulator's own (`0x` + keccak256 of its YES and NO token ids,
 *   simulators/polymarket-markets.ts, which is also the one source of tick sizes and neg-risk flags) and is the
 *   `market` of its books, orders and trades; an unknown token or condition is 404 `market not found`;
 * - L1 (`ClobAuth` EIP-712 headers `POLY_ADDRESS/POLY_SIGNATURE/POLY_TIMESTAMP/POLY_NONCE`):
 *   `POST /auth/api-key` (creates the key of (address, nonce); a second create is refused) and
 *   `GET /auth/derive-api-key` (returns it) → `{apiKey, secret, passphrase}`;
 * - L2 (HMAC headers verified on every call: base64url HMAC-SHA256 over ts+METHOD+path+body, the
 *   POLY_ADDRESS the key's): `POST /order`, `DELETE /order`, `GET /data/order/<id>` (any status),
 *   `GET /data/orders` (working orders only), `GET /data/trades`, `GET /balance-allowance`
 *   (`COLLATERAL`: USDC base units; `CONDITIONAL` with `token_id`: shares in base units).
 *
 * An order is accepted only when: the L2 headers verify; `owner` is the caller's API key; the
 * order `signer` is the API key's address; it is a V2/V3 order (`timestamp`, `metadata`, `builder`;
 * a V1 order with `taker`/`nonce`/`feeRateBps` is refused: the V2 exchange no longer takes them);
 * the EIP-712 signature under the domain of the simulator's exchange version only recovers `signer`
 * (else `{"error":"invalid signature"}`, 400: so is an order signed for the other version); the
 * signature type holds as the exchange checks it: 0 EOA `maker` = `signer`; 1 POLY_PROXY and
 * 2 POLY_GNOSIS_SAFE `maker` is the proxy / Safe wallet of `signer` (on chain a CREATE2 derivation;
 * here what a test registered with `registerWallet`); 3 POLY_1271 `maker` = `signer` = a deposit
 * wallet of the API key's address, whose ERC-1271 `isValidSignature` is run as the wallet runs it
 * (`recoverPoly1271Owner`: the ERC-7739 envelope binds this order and this exchange, and its inner
 * signature recovers the wallet's owner; ownership registered with `registerWallet(wallet, owner, 3)`);
 * the order hash was never seen (a replay is a duplicate); the price is on the
 * token's tick inside [tick, 1 − tick] and the size has ≤ 2 decimals, or, for FOK/FAK, the amounts are a market
 * order's (maker amount ≤ 2 decimals, taker amount ≤ 4, the price they imply inside [tick, 1 − tick], on the grid
 * or not: `createMarketOrder` divides a USDC amount by the book's price).
 *
 * Matching against `markOf(platform symbol)` (absent: the simulator's own replay of the recorded Polymarket prices,
 * simulators/polymarket-prices.ts): FAK/FOK fill at once at the mark when the limit is
 * marketable (BUY: mark ≤ limit; SELL: mark ≥ limit), else are killed with the venue's error; a fill is of the
 * order's signed share count (a market BUY's `takerAmount`, a market SELL's `makerAmount`) at the mark, so a
 * market BUY priced by the client at the ask spends shares × mark, not all of its USDC amount;
 * GTC fills at once at the mark when marketable (post-only ones are refused instead), else rests
 * (`live`) and fills at its limit as a maker when `poke()` runs or on any status, orders or trades
 * read after the mark crossed. Takers pay `takerFeeBps` (default 0, as on most Polymarket markets)
 * by rate × min(p, 1 − p) × size; makers pay 0 (`/clob-markets` publishes the rate as `tbf` and `fd.r`, with
 * `fd.e` 1: the client's `userUSDCBalance` fee adjustment, rate × (p(1 − p))^e, only approximates that formula
 * when the rate is not 0). Times on the wire are epoch seconds.
 *
 * Each trading wallet's USDC (what a test funds, `fund()`, less what buys cost, plus what sells
 * bring, less fees) and shares are kept (simulators/holdings.ts); there are no insufficient-balance
 * refusals. Deviations, on purpose: the liquidity takers meet at the mark is not on the book
 * (`GET /book` shows resting orders only); the owner-keyed test controls (`fund`, `orderCount`,
 * `injectOrder`) follow `linkOwner` (an end user who funds an agent's wallet) — a test control,
 * not a route. Without `markOf`, the book also carries the simulator's own liquidity: {@link OWN_BOOK_DEPTH}
 * shares at the ticks bracketing its own price ({@link ownTouch}), so a reader of the book finds a touch.
 *
 * The CLOB market channel is served at `/ws/market` on the same port (simulators/polymarket-ws.ts): `book`
 * snapshots equal to `GET /book`, `price_change` when its levels change, `last_trade_price` per fill.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { keccak256, toHex } from 'viem';
import { Decimal } from '../domain/decimal.js';
import { findByVenueSymbol } from '../domain/market/symbols.js';
import { POLYMARKET_SYMBOLS } from '../domain/market/venues/polymarket.js';
import {
  MARKET_AMOUNT_DECIMALS,
  hmacSignature,
  orderHash,
  priceAndSize,
  recoverL1Signer,
  recoverOrderSigner,
  recoverPoly1271Owner,
  SIGNATURE_TYPE,
  type ExchangeVersion,
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
import { Faults, lc, listenWithSocket, messageOf, Reply, Tally } from './harness.js';
import type { InjectedLimit, SimulatorOptions, SocketControls, VenueSimulator } from './harness.js';
import { crosses, decimalMarks, injectedSpec, markedOrders } from './matching.js';
import { sumLevels } from './book.js';
import { Holdings } from './holdings.js';
import { OWN_BOOK_DEPTH, ownTouch, polymarketOwnMarks } from './polymarket-prices.js';
import { polymarketWs, type PolymarketBookAnswer } from './polymarket-ws.js';
import { clobMarketInfoAnswer, marketByTokenAnswer, marketOfCondition, marketOfToken } from './polymarket-markets.js';

/**
 * Options of {@link startPolymarketSimulator}: marks (probability units) of platform symbols
 * (`TRUMP-INAUGURATED-YES.PM`); `network` is the chain the signatures are checked for: mainnet 137
 * (default), testnet 80002; `exchangeVersion` the exchange it runs (2, default, or 3: `GET /version`
 * answers it and orders are verified and hashed under its domain only). Without `markOf` the simulator
 * prices from its own data (the recorded prices in `dataDir` replayed at `now()`, Unix ms, default
 * `Date.now`; simulators/polymarket-prices.ts) and shows its own liquidity on the book. `wsIntervalMs`: how
 * often the market channel compares books for `price_change` (default 100 ms).
 */
export type PolymarketSimulatorOptions = Omit<SimulatorOptions, 'markOf'> & {
  markOf?: SimulatorOptions['markOf'];
  /** Taker fee rate in basis points reported on trades (default 0). */
  takerFeeBps?: number;
  /** The exchange version whose orders the simulator takes (default 2). */
  exchangeVersion?: ExchangeVersion;
  dataDir?: string;
  now?: () => number;
  wsIntervalMs?: number;
};

/**
 * The running simulator and its test controls: owners are funder wallets (orders count by `maker`);
 * `rejectNext` refuses with `{"error": reason}` (400).
 */
export interface PolymarketSimulator extends VenueSimulator<InjectedLimit>, SocketControls {
  /** The next `price_change` of the market channel is lost (not sent): a test of the reader's resync. */
  loseNextBookChange(): void;
  /**
   * The owner-keyed controls (`fund`, `orderCount`, `injectOrder`) of `owner` act on `wallet` from
   * now on: the end user funds and watches the agent's trading wallet. A test control, no route.
   */
  linkOwner(owner: string, wallet: string): void;
  /**
   * Records on-chain wallet ownership: `wallet` is the POLY_PROXY (1) or POLY_GNOSIS_SAFE (2) wallet
   * of `owner`, as the exchange derives it, or (3) the POLY_1271 deposit wallet `owner` controls (the
   * key its ERC-1271 `isValidSignature` accepts). A test control, no route.
   */
  registerWallet(wallet: string, owner: string, signatureType: 1 | 2 | 3): void;
}

interface SimOrder {
  id: string;
  salt: string;
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
  /** V1 fields: their presence marks an order the V2 exchange no longer takes. */
  taker?: string;
  nonce?: string;
  feeRateBps?: string;
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

/** A listed token's tick size and neg-risk flag (simulators/polymarket-markets.ts, the one source of both). */
const TICK = (tokenId: string) =>
  marketOfToken(tokenId)?.tickSize ?? new Decimal(findByVenueSymbol('polymarket', tokenId)?.tickSize ?? '0.01');
const NEG_RISK = (tokenId: string) => marketOfToken(tokenId)?.negRisk ?? false;
/** The `market` of a token on the wire (books, orders, trades): its market's condition id. */
const MARKET = (tokenId: string) => marketOfToken(tokenId)?.conditionId ?? '';
/** The minimum order size (shares) `/book` and `/clob-markets` publish. */
const MIN_ORDER_SIZE = '1';
const nowSec = () => Math.floor(Date.now() / 1000);
/** The L2 paths served (besides `/data/order/<id>`); any other path is 404 before authentication. */
const PRIVATE_PATHS = new Set(['/order', '/data/orders', '/data/trades', '/balance-allowance']);
const PAGE = 100;

/**
 * Why a limit order's price or size is refused (the CLOB's wording), or null: the price (USD per share) must be
 * on the `tick` grid inside [tick, 1 − tick]; the size (shares) positive with at most `szDecimals` decimals.
 */
function limitAmountsError(hash: string, price: Decimal, size: Decimal, tick: Decimal, szDecimals: number) {
  if (!price.mod(tick).isZero() || price.lt(tick) || price.gt(new Decimal(1).sub(tick)))
    return `order ${hash} is invalid. Price (${price.toFixed()}) breaks minimum tick size rule: ${tick.toFixed()}`;
  if (size.lte(0) || size.decimalPlaces() > szDecimals)
    return `order ${hash} is invalid. Size (${size.toFixed()}) lower than the minimum or with too many decimals`;
  return null;
}

/**
 * Whether a FOK/FAK order's amounts are a market order's as the CLOB takes them (what `createMarketOrder`
 * signs): the maker amount (USDC of a BUY, shares of a SELL; 6-decimal base units) with at most 2 decimals, the
 * taker amount with at most 4, both positive, and the price they imply (maker ÷ taker for a BUY, taker ÷ maker
 * for a SELL; off the tick grid when a USDC amount was divided by the book's price) inside [tick, 1 − tick].
 */
function marketAmountsValid(
  order: Pick<PolymarketOrder, 'makerAmount' | 'takerAmount'>,
  price: Decimal,
  tick: Decimal,
) {
  const units = (baseUnits: string) => new Decimal(baseUnits).div(USDC_UNITS);
  const maker = units(order.makerAmount);
  const taker = units(order.takerAmount);
  return (
    maker.gt(0) &&
    taker.gt(0) &&
    maker.decimalPlaces() <= MARKET_AMOUNT_DECIMALS.maker &&
    taker.decimalPlaces() <= MARKET_AMOUNT_DECIMALS.taker &&
    price.gte(tick) &&
    price.lte(new Decimal(1).sub(tick))
  );
}

/** The CLOB's refusal of a FOK/FAK order whose amounts are not a market order's. */
const marketAmountsError = (side: 'BUY' | 'SELL') =>
  `invalid amounts, the market ${side.toLowerCase()} orders maker amount supports a max accuracy of ${MARKET_AMOUNT_DECIMALS.maker} decimals, taker amount a max of ${MARKET_AMOUNT_DECIMALS.taker} decimals`;

/** Starts the simulator. Resolves once it listens. */
export async function startPolymarketSimulator(opts: PolymarketSimulatorOptions): Promise<PolymarketSimulator> {
  const network = opts.network ?? 'mainnet';
  const exchangeVersion = opts.exchangeVersion ?? 2;
  const takerFeeBps = String(opts.takerFeeBps ?? 0);
  const wallets = new Map<string, { signer: string; signatureType: number }>(); // proxy/Safe/deposit wallet → owner EOA
  const linked = new Map<string, string>(); // test owner → trading wallet
  const keys = new Map<string, ApiKeyRow>(); // apiKey → row
  const keyOf = new Map<string, string>(); // `${address}:${nonce}` → apiKey
  const orders = new Map<string, SimOrder>();
  const trades: (WireTrade & { ownerOrders: string[] })[] = [];
  const accepted = new Tally();
  const holdings = new Holdings();
  const faults = new Faults();

  const ownPrices = !opts.markOf;
  const marks = decimalMarks(
    opts.markOf ?? polymarketOwnMarks(POLYMARKET_SYMBOLS, { dataDir: opts.dataDir, now: opts.now }),
  );
  const markOf = async (tokenId: string): Promise<Decimal | null> => {
    const spec = findByVenueSymbol('polymarket', tokenId);
    return spec ? marks(spec) : null;
  };
  const marketable = (side: 'BUY' | 'SELL', limit: Decimal, mark: Decimal) => crosses(side === 'BUY', limit, mark);
  const ws = polymarketWs(
    { book: async (tokenId) => (findByVenueSymbol('polymarket', tokenId) ? bookOf(tokenId) : null) },
    POLYMARKET_SYMBOLS.flatMap((s) => (s.venueSymbol ? [s.venueSymbol] : [])),
    { intervalMs: opts.wsIntervalMs },
  );

  function fill(o: SimOrder, price: Decimal, asTaker: boolean): void {
    const size = o.size.sub(o.matched);
    const id = randomUUID();
    const settlement = `0x${randomBytes(32).toString('hex')}`; // the (simulated) on-chain settlement transaction
    const feeUsd = new Decimal(asTaker ? takerFeeUsd(takerFeeBps, price.toFixed(), size.toFixed()) : 0);
    holdings.fill(o.maker, o.symbol, { side: o.side === 'BUY' ? 'buy' : 'sell', qty: size, price, feeUsd });
    const market = MARKET(o.tokenId);
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
      transaction_hash: settlement,
      bucket_index: 0,
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
    ws.publishTrade({
      asset_id: o.tokenId,
      market,
      price: price.toFixed(),
      size: size.toFixed(),
      side: asTaker ? o.side : o.side === 'BUY' ? 'SELL' : 'BUY',
      fee_rate_bps: takerFeeBps,
      timestamp: String(Date.now()),
      transaction_hash: settlement,
    });
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
    accepted.add(o.maker, o.salt);
  }

  const wireOrder = (o: SimOrder): WireOrder => ({
    id: o.id,
    status: o.status,
    owner: o.owner,
    maker_address: o.maker,
    market: MARKET(o.tokenId),
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
  });

  // --- auth -------------------------------------------------------------------------------

  async function l1(req: IncomingMessage): Promise<{ address: string; nonce: bigint }> {
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
    return { address, nonce };
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

  /** The wallets `address` trades for: its own (EOA) and the proxy / Safe / deposit wallets it owns. */
  const walletsOf = (address: string) => [
    address,
    ...[...wallets.entries()].filter(([, w]) => w.signer === address).map(([wallet]) => wallet),
  ];
  const visible = (o: SimOrder, apiKey: string, address: string) =>
    o.owner === apiKey || walletsOf(address).includes(o.maker);
  /** The trading wallet an owner-keyed test control acts on. */
  const resolve = (owner: string) => linked.get(lc(owner)) ?? lc(owner);

  function newCreds(address: string, nonce: bigint): ApiKeyRow & { apiKey: string } {
    const apiKey = randomUUID();
    const row = {
      address,
      secret: randomBytes(32).toString('base64url') + '=',
      passphrase: randomBytes(32).toString('hex'),
    };
    keys.set(apiKey, row);
    keyOf.set(`${address}:${nonce}`, apiKey);
    return { apiKey, ...row };
  }
  const credsBody = (apiKey: string) => ({
    apiKey,
    secret: keys.get(apiKey)!.secret,
    passphrase: keys.get(apiKey)!.passphrase,
  });

  // --- orders -----------------------------------------------------------------------------

  /** A proxy / Safe maker must be the wallet of the signer, as the exchange derives it (here: registered). */
  const walletCheck = (signatureType: number) => (maker: string, signer: string) => {
    const w = wallets.get(maker);
    if (!w || w.signer !== signer || w.signatureType !== signatureType)
      throw new HttpError(400, `the order maker is not the signature type ${signatureType} wallet of the signer`);
  };
  /** Per signature type, how `maker` must relate to the order's signer. */
  const MAKER_CHECKS: Record<number, (maker: string, signer: string) => void> = {
    [SIGNATURE_TYPE.EOA]: (maker, signer) => {
      if (maker !== signer) throw new HttpError(400, 'the order maker has to be the signer for signature type 0 (EOA)');
    },
    [SIGNATURE_TYPE.POLY_PROXY]: walletCheck(SIGNATURE_TYPE.POLY_PROXY),
    [SIGNATURE_TYPE.POLY_GNOSIS_SAFE]: walletCheck(SIGNATURE_TYPE.POLY_GNOSIS_SAFE),
    [SIGNATURE_TYPE.POLY_1271]: (maker, signer) => {
      if (maker !== signer)
        throw new HttpError(400, 'the order maker has to be the signer for signature type 3 (POLY_1271)');
    },
  };
  /** The POLY_1271 deposit wallet at `address` and its owner, when one is registered there. */
  const depositWallet = (address: string) => {
    const w = wallets.get(address);
    return w?.signatureType === SIGNATURE_TYPE.POLY_1271 ? w : undefined;
  };
  /**
   * Whether the order signature is valid as the simulator's exchange version checks it (its domain only):
   * ECDSA of the signer (types 0-2), or the deposit wallet's ERC-1271 answer (type 3: the ERC-7739 envelope recovers the wallet's owner; a
   * signer that is not a deposit wallet has no `isValidSignature` to say yes).
   */
  async function signatureValid(order: PolymarketOrder, signature: string, negRisk: boolean): Promise<boolean> {
    const signer = lc(order.signer);
    if (order.signatureType !== SIGNATURE_TYPE.POLY_1271)
      return (await recoverOrderSigner(order, signature, network, negRisk, exchangeVersion)) === signer;
    const owner = depositWallet(signer)?.signer;
    return (
      owner !== undefined && (await recoverPoly1271Owner(order, signature, network, negRisk, exchangeVersion)) === owner
    );
  }

  async function placeOrder(parsed: unknown, apiKey: string, row: ApiKeyRow, res: ServerResponse): Promise<unknown> {
    const body = parsed as PostOrderBody | null;
    const w = body?.order;
    if (!body || !w || typeof w !== 'object') throw new HttpError(400, 'Invalid order payload');
    if (body.owner !== apiKey) throw new HttpError(400, 'the order owner has to be the owner of the API KEY');
    // The signer is the API key's address; for POLY_1271, a deposit wallet that address owns.
    const signerOwner =
      Number(w.signatureType) === SIGNATURE_TYPE.POLY_1271 ? depositWallet(lc(w.signer))?.signer : undefined;
    if (lc(w.signer) !== row.address && signerOwner !== row.address)
      throw new HttpError(400, 'the order signer address has to be the address of the API KEY');
    if (w.taker !== undefined || w.nonce !== undefined || w.feeRateBps !== undefined || w.timestamp === undefined)
      throw new HttpError(
        400,
        `invalid order version: sign a CTF Exchange V${exchangeVersion} order (timestamp, metadata, builder)`,
      );
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
    const negRisk = NEG_RISK(order.tokenId);
    let hash: string;
    try {
      hash = orderHash(order, network, negRisk, exchangeVersion);
    } catch {
      throw new HttpError(400, 'Invalid order payload');
    }
    const maker = lc(order.maker);
    const makerCheck = MAKER_CHECKS[order.signatureType];
    if (!makerCheck) throw new HttpError(400, `invalid signature type ${order.signatureType}`);
    makerCheck(maker, lc(order.signer));
    if (!(await signatureValid(order, String(w.signature ?? ''), negRisk)))
      throw new HttpError(400, 'invalid signature');
    if (orders.has(hash)) throw new HttpError(400, `order ${hash} is invalid. Duplicated.`);
    const { price, size } = priceAndSize(order);
    const tick = TICK(order.tokenId);
    const orderType = String(body.orderType ?? 'GTC');
    const immediate = orderType === 'FAK' || orderType === 'FOK';
    // A FOK/FAK order must carry a market order's amounts (maker ≤ 2 decimals, taker ≤ 4; its price may be off the
    // grid), as the CLOB requires even of one built like a limit order; a GTC/GTD order must be a limit order's.
    if (immediate && !marketAmountsValid(order, price, tick)) throw new HttpError(400, marketAmountsError(order.side));
    const limitError = immediate ? null : limitAmountsError(hash, price, size, tick, spec.szDecimals);
    if (limitError !== null) throw new HttpError(400, limitError);
    const reason = faults.takeRejection();
    if (reason !== null) throw new HttpError(400, reason);
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
      salt: String(w.salt),
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
      transactionsHashes: o.trades.map((id) => trades.find((t) => t.id === id)?.transaction_hash),
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

  // --- public market data -----------------------------------------------------------------

  /** The token's platform spec, or a 404 `market not found` (how the venue answers an unknown token). */
  const tokenSpec = (q: URLSearchParams) => {
    const spec = findByVenueSymbol('polymarket', q.get('token_id') ?? '');
    if (!spec?.venueSymbol) throw new HttpError(404, 'market not found');
    return spec as typeof spec & { venueSymbol: string };
  };
  /**
   * The resting orders of a token on one side, aggregated by price (best last, as the venue orders them), with
   * the simulator's own level (`own`, when it prices from its own data) added in.
   */
  const levels = (tokenId: string, side: 'BUY' | 'SELL', own: Decimal | null) => {
    const resting = [...orders.values()].filter((o) => o.status === 'LIVE' && o.tokenId === tokenId && o.side === side);
    const entries = resting.map((o) => ({ px: o.price, sz: o.size.sub(o.matched) }));
    if (own) entries.push({ px: own, sz: new Decimal(OWN_BOOK_DEPTH) });
    const summed = sumLevels(entries);
    return (side === 'BUY' ? summed : summed.reverse()).map((l) => ({ price: l.px.toFixed(), size: l.sz.toFixed() }));
  };
  /** The market of a `/markets-by-token/` or `/clob-markets/` id, or the venue's 404 for an id it does not list. */
  const listed = <T>(market: T | undefined): T => {
    if (!market) throw new HttpError(404, 'market not found');
    return market;
  };
  /**
   * `GET <prefix><id>` routes that take no authentication, by path prefix: the market of an outcome token
   * (`{condition_id, primary_token_id, secondary_token_id}`) and the CLOB parameters of a condition id (the
   * short-keyed `{c, t, mts, nr, mos, mbf, tbf, fd, r, gst, ao}`), simulators/polymarket-markets.ts.
   */
  const PUBLIC_BY_ID: Record<string, (id: string) => unknown> = {
    '/markets-by-token/': (tokenId) => marketByTokenAnswer(listed(marketOfToken(tokenId))),
    '/clob-markets/': (conditionId) =>
      clobMarketInfoAnswer(listed(marketOfCondition(conditionId)), Number(takerFeeBps), MIN_ORDER_SIZE),
  };
  /** `GET <path>` routes that take no authentication, by `METHOD path`. */
  const PUBLIC: Record<string, (q: URLSearchParams) => Promise<unknown>> = {
    'GET /': async () => 'OK',
    'GET /time': async () => nowSec(),
    'GET /version': async () => ({ version: exchangeVersion }),
    'GET /tick-size': async (q) => ({ minimum_tick_size: TICK(tokenSpec(q).venueSymbol).toNumber() }),
    'GET /neg-risk': async (q) => ({ neg_risk: NEG_RISK(tokenSpec(q).venueSymbol) }),
    'GET /fee-rate': async (q) => {
      tokenSpec(q);
      return { base_fee: Number(takerFeeBps) };
    },
    'GET /book': async (q) => bookOf(tokenSpec(q).venueSymbol),
  };

  /** `GET /book` of a listed token (`tokenId`): its levels now (after a `poke()`), tick, neg-risk flag, mark, hash. */
  async function bookOf(tokenId: string): Promise<PolymarketBookAnswer> {
    await poke();
    const mark = await markOf(tokenId);
    const tick = TICK(tokenId);
    const own = ownPrices && mark ? ownTouch(mark, tick) : { bid: null, ask: null };
    const book = {
      market: MARKET(tokenId),
      asset_id: tokenId,
      timestamp: String(Date.now()),
      bids: levels(tokenId, 'BUY', own.bid),
      asks: levels(tokenId, 'SELL', own.ask),
      min_order_size: MIN_ORDER_SIZE,
      tick_size: tick.toFixed(),
      neg_risk: NEG_RISK(tokenId),
      last_trade_price: mark ? mark.toFixed() : '',
    };
    return { ...book, hash: keccak256(toHex(JSON.stringify(book))).slice(2, 42) };
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

    const publicRoute = PUBLIC[`${method} ${path}`];
    if (publicRoute) return publicRoute(q);
    const byId = Object.keys(PUBLIC_BY_ID).find((prefix) => path.startsWith(prefix));
    if (method === 'GET' && byId) return PUBLIC_BY_ID[byId](path.slice(byId.length));
    if (method === 'POST' && path === '/auth/api-key') {
      const { address, nonce } = await l1(req);
      if (keyOf.has(`${address}:${nonce}`)) throw new HttpError(400, 'Could not create api key');
      return credsBody(newCreds(address, nonce).apiKey);
    }
    if (method === 'GET' && path === '/auth/derive-api-key') {
      const { address, nonce } = await l1(req);
      const apiKey = keyOf.get(`${address}:${nonce}`);
      if (!apiKey) throw new HttpError(400, 'Could not derive api key!');
      return credsBody(apiKey);
    }

    if (!PRIVATE_PATHS.has(path) && !path.startsWith('/data/order/')) throw new HttpError(404, 'not found');
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
    const orderPath = path.match(/^\/data\/order\/(0x[0-9a-fA-F]+)$/);
    if (method === 'GET' && orderPath) {
      await poke();
      const o = orders.get(orderPath[1].toLowerCase());
      if (!o || !visible(o, apiKey, row.address)) throw new HttpError(404, 'order not found');
      return wireOrder(o);
    }
    if (method === 'GET' && path === '/data/orders') {
      await poke();
      const list = [...orders.values()].filter(
        (o) =>
          o.status === 'LIVE' &&
          visible(o, apiKey, row.address) &&
          (!q.get('asset_id') || o.tokenId === q.get('asset_id')) &&
          (!q.get('market') || MARKET(o.tokenId) === q.get('market')?.toLowerCase()) &&
          (!q.get('id') || o.id === q.get('id')),
      );
      return page(list.map(wireOrder), q.get('next_cursor'));
    }
    if (method === 'GET' && path === '/balance-allowance') {
      await poke();
      // `signature_type` picks the funder: 0 the address itself, 1-3 the wallets of that type it owns.
      const sigType = q.get('signature_type');
      const mine =
        sigType === null
          ? walletsOf(row.address)
          : sigType === '0'
            ? [row.address]
            : walletsOf(row.address).filter((f) => wallets.get(f)?.signatureType === Number(sigType));
      if (q.get('asset_type') === 'COLLATERAL') {
        const usdc = mine.reduce((sum, f) => sum.add(holdings.paidCash(f)), new Decimal(0));
        return { balance: usdc.mul(USDC_UNITS).floor().toFixed(), allowances: {} };
      }
      const symbol = findByVenueSymbol('polymarket', q.get('token_id') ?? '')?.symbol;
      if (q.get('asset_type') !== 'CONDITIONAL' || !symbol)
        throw new HttpError(400, 'asset_type COLLATERAL, or CONDITIONAL with a known token_id');
      const shares = mine
        .flatMap((f) => holdings.positions(f))
        .filter((p) => p.symbol === symbol)
        .reduce((sum, p) => sum.add(p.qty), new Decimal(0));
      return { balance: shares.mul(USDC_UNITS).floor().toFixed(), allowances: {} };
    }
    if (method === 'GET' && path === '/data/trades') {
      await poke();
      const after = q.get('after') ? Number(q.get('after')) : -Infinity;
      const before = q.get('before') ? Number(q.get('before')) : Infinity;
      const list = trades.filter(
        (t) =>
          t.ownerOrders.some((id) => visible(orders.get(id)!, apiKey, row.address)) &&
          (!q.get('id') || t.id === q.get('id')) &&
          (!q.get('market') || t.market === q.get('market')?.toLowerCase()) &&
          (!q.get('maker_address') ||
            t.ownerOrders.some((id) => orders.get(id)!.maker === lc(q.get('maker_address')))) &&
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
  const common = await listenWithSocket({ port: opts.port, route, fail, faults }, ws);

  return {
    ...common,
    wsUrl: `${common.url.replace(/^http/, 'ws')}/ws/market`,
    loseNextBookChange: () => ws.loseNextChange(),
    clientOrderIds: () => accepted.clientOrderIds(),
    async injectOrder(owner, o) {
      const spec = injectedSpec('polymarket', o.symbol);
      const maker = resolve(owner);
      const id = keccak256(toHex(randomBytes(32)));
      const order = newOrder({
        id,
        salt: (BigInt(keccak256(toHex(randomBytes(8)))) & ((1n << 53n) - 1n)).toString(),
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
    orderCount: (owner) => accepted.of(resolve(owner)),
    fund: (owner, amountUsd) => holdings.fund(resolve(owner), amountUsd),
    linkOwner(owner, wallet) {
      linked.set(lc(owner), lc(wallet));
    },
    registerWallet(wallet, owner, signatureType) {
      wallets.set(lc(wallet), { signer: lc(owner), signatureType });
    },
  };
}

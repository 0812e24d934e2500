/**
 * A local Aster Futures v3 simulator (node:http on 127.0.0.1) serving the REST surface the adapter
 * and generic clients use, with Aster's paths, form-urlencoded requests and JSON shapes (docs/venues.md §2):
 * - Public market data (simulators/aster-markets.ts): `GET /fapi/v3/exchangeInfo`, `/fapi/v3/depth`,
 *   `/fapi/v3/ticker/24hr`, and the spot host's `GET /api/v3/exchangeInfo` (no spot pairs).
 * - `GET /ws`, `/ws/<stream>`, `/stream?streams=…` (upgrade): the futures market streams, partial depth and
 *   aggTrade (simulators/aster-ws.ts), streaming the same books (marks + resting orders) it matches against and
 *   its own fills.
 * - `POST /fapi/v3/registerAndApproveAgent` (unauthenticated): the owner's EIP-712 `Message`
 *   signature (chainId = `signatureChainId`) over the received string minus `&signature=…` must
 *   recover `user`; nonce rules as below; `expired` (ms) in the future; `canWithdraw=true` needs
 *   an `ipWhitelist`. Records the agent (name, expiry, permissions); answers `{"code":200,"msg":"success"}`.
 * - `POST /fapi/v3/approveBuilder` (signed by the main wallet, no `signer`): EIP-712 `ApproveBuilder(string
 *   Builder,string MaxFeeRate,string BuilderName,string AsterChain,string User,uint256 Nonce)` (the
 *   parameters with capitalised names; `BuilderName` only when sent) in the `AsterSignTransaction`
 *   domain of `signatureChainId` must recover `user`; `asterChain` is this network's. Records the
 *   builder and its fee cap; `GET /fapi/v3/builder` lists them.
 * - Signed endpoints (`POST|DELETE|GET /fapi/v3/order`, `GET /fapi/v3/openOrders`, `/fapi/v3/allOrders`,
 *   `/fapi/v3/userTrades`, `/fapi/v3/accountWithJoinMargin`, `/fapi/v3/balance`, `/fapi/v3/positionRisk`,
 *   `/fapi/v3/leverageBracket`, `/fapi/v3/builder`): the string received (body for POST/DELETE, query for
 *   GET) minus its last `&signature=…` is the signed `msg`; the `AsterSignTransaction`
 *   signature (chainId 1666, testnet 714) must recover `signer`, else
 *   `{"code":-1022,"msg":"Signature for this request is not valid."}`; `signer` must be `user` itself
 *   (the main wallet signing for itself) or an approved, unexpired agent of `user` with perp permission,
 *   else `-2015 Invalid API-key, IP, or permissions for action.`; `nonce` (µs) within ±10 s of the server
 *   clock and not among the user's 100 latest, else `-4225 Nonce Expired` (Aster answers a re-used nonce
 *   the same way, per its `noop` sample). Parameters may come in any order.
 * - Other refusals: unknown symbol `-1121 Invalid symbol.`, unknown order `-2013 Order does not
 *   exist.`, cancel of a final order `-2011 Unknown order sent.`, quantity precision `-1111`, price
 *   off tick `-4014`, notional < 5 USDT `-4164`, trigger already reached `-2021`, post-only (GTX)
 *   that would take `-5022`, missing/malformed parameters `-1102`, time span > 7 days `-1127`, a
 *   `builder` the user has not approved or a `feeRate` above its cap `-1130` (the simulator's wording).
 *   Errors are HTTP 400 (`-2015`: 401) with `{"code","msg"}`.
 *
 * Orders answer as `newOrderRespType` asks: `ACK` (the default) the order as accepted (`NEW`, nothing
 * executed), `RESULT` its state once matched. Matching against `markOf(platform symbol)` (absent: its own
 * prices, simulators/aster-prices.ts): MARKET fills at
 * once at the mark (no mark → `-4131`);
 * LIMIT fills at once at the mark when marketable (buy: mark ≤ price; sell: mark ≥ price), else IOC
 * expires and GTC/GTX rest, filling at their price as maker once the mark crosses (on `poke()` and
 * before every read or cancel). STOP(_MARKET) triggers when buy mark ≥ stopPrice / sell mark ≤
 * stopPrice, TAKE_PROFIT(_MARKET) the other way; a triggered market order fills at the mark, a
 * triggered STOP becomes a resting limit (same orderId, status NEW). Fees: taker 0.035 %, maker
 * 0.01 % of the notional, in USDT (= USD), 8 decimals, positive = charged (a builder's fee is not
 * charged). Each user's collateral (what a test funds, `fund()`) and net positions are kept
 * (simulators/holdings.ts): trades carry their `realizedPnl`, and `GET /fapi/v3/accountWithJoinMargin`, `/balance` and
 * `/positionRisk` value the positions at the marks, cross margin at 20× (capped at the symbol's
 * maximum). Deviations, on purpose: no margin checks (reduceOnly accepted as is, an order beyond the
 * collateral too), no funding payments, one fill per order, hedge mode and TRAILING_STOP_MARKET refused.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import { recoverTypedDataSigner } from '../venues/evm-recover.js';
import { Decimal } from '../domain/decimal.js';
import { findByVenueSymbol, findSymbol, type SymbolSpec } from '../domain/market/symbols.js';
import { ASTER_SYMBOLS } from '../domain/market/venues/aster.js';
import { ASTER_CHAIN_ID, asterDomain, recoverSigner, splitSigned } from '../venues/aster/signing.js';
import type { WireAccount, WireOrder, WireStatus, WireTrade } from '../venues/aster/wire.js';
import {
  addressControls,
  Faults,
  isAddress,
  lc,
  listenWithSocket,
  messageOf,
  NOT_FOUND_TEXT,
  Reply,
  Tally,
} from './harness.js';
import type { InjectedLimit, SimulatorOptions, SocketControls, VenueSimulator } from './harness.js';
import { crosses, decimalMarks, injectedSpec, markedOrders, triggerReached } from './matching.js';
import { Holdings } from './holdings.js';
import * as markets from './aster-markets.js';
import { asterWs } from './aster-ws.js';
import { ASTER_HALF_SPREAD, asterOwnMarks } from './aster-prices.js';

/**
 * Options of {@link startAsterSimulator}: marks in USD of platform symbols (`BTC.ASTER`); `network`
 * picks the trading chain id the venue expects: mainnet 1666 (default), testnet 714. Without `markOf`
 * the simulator prices from its own data (simulators/aster-prices.ts: the recorded Hyperliquid ticks from
 * `dataDir` replayed at `now()` (Unix ms, default `Date.now`), +5 bps, a touch ±2 bps wide). `wsIntervalMs`:
 * the period (ms) of every partial-depth stream instead of the one its name asks (simulators/aster-ws.ts).
 */
export type AsterSimulatorOptions = Omit<SimulatorOptions, 'markOf'> & {
  markOf?: SimulatorOptions['markOf'];
  dataDir?: string;
  now?: () => number;
  wsIntervalMs?: number;
};

/** An order placed in Aster's own web interface ({@link AsterSimulator.injectOrder}): a limit order. */
export interface InjectedOrder extends InjectedLimit {
  tif?: 'GTC' | 'GTX';
}

/** One approved agent (API wallet) of a user, as the simulator keeps it. */
export interface AsterAgent {
  /** Lower-case address. */
  address: string;
  name: string;
  /** Expiry, epoch ms. */
  expired: number;
  canSpotTrade: boolean;
  canPerpTrade: boolean;
  canWithdraw: boolean;
}

/** The running simulator and its test controls; `rejectNext` refuses with `{"code":-2010,"msg": reason}`. */
export interface AsterSimulator extends VenueSimulator<InjectedOrder>, SocketControls {
  /** The user's approved agents. */
  agents(owner: string): AsterAgent[];
  /** Test hook: makes the user's agent `agentAddress` expired as of now (as if `expired` had passed). */
  expireAgent(owner: string, agentAddress: string): void;
}

const TAKER_FEE = new Decimal('0.00035');
const MAKER_FEE = new Decimal('0.0001');
const NONCE_WINDOW_US = 10_000_000n;
const KEPT_NONCES = 100;
const WEEK_MS = 7 * 86_400_000;
const MIN_NOTIONAL = new Decimal(markets.MIN_NOTIONAL_USDT);
/** Leverage of a position (cross, capped at the symbol's maximum). */
const DEFAULT_LEVERAGE = 20;

interface SimOrder {
  orderId: number;
  clientOrderId: string;
  owner: string;
  spec: SymbolSpec & { venueSymbol: string };
  side: 'BUY' | 'SELL';
  type: string;
  price: Decimal | null;
  stopPrice: Decimal | null;
  origQty: Decimal;
  executedQty: Decimal;
  avgPrice: Decimal | null;
  tif: string;
  reduceOnly: boolean;
  triggered: boolean;
  status: WireStatus;
  time: number;
  updateTime: number;
}

/** A refusal in Aster's shape. */
class AsterFail extends Error {
  constructor(
    readonly code: number,
    msg: string,
    readonly http = 400,
  ) {
    super(msg);
  }
}

const BAD_SIGNATURE = () => new AsterFail(-1022, 'Signature for this request is not valid.');
const NO_PERMISSION = () => new AsterFail(-2015, 'Invalid API-key, IP, or permissions for action.', 401);
const NONCE_EXPIRED = () => new AsterFail(-4225, 'Nonce Expired');
const MANDATORY = (k: string) =>
  new AsterFail(-1102, `Mandatory parameter '${k}' was not sent, was empty/null, or malformed.`);
const BAD_SYMBOL = () => new AsterFail(-1121, 'Invalid symbol.');
const NO_ORDER = () => new AsterFail(-2013, 'Order does not exist.');

const nowUs = () => BigInt(Date.now()) * 1000n;

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** The client order id the venue gives an order sent without one: 22 random letters and digits. */
const generatedClientOrderId = () => [...randomBytes(22)].map((b) => ALPHANUMERIC[b % ALPHANUMERIC.length]).join('');

/** `asterChain` of a builder approval per network. */
const ASTER_CHAIN = { mainnet: 'Mainnet', testnet: 'Testnet' } as const;

/** A builder a user approved (`POST /fapi/v3/approveBuilder`): the user's and its address as sent, its fee cap and name. */
interface ApprovedBuilder {
  userAddress: string;
  builderAddress: string;
  maxFeeRate: Decimal;
  builderName: string;
}

/** Which order types the simulator takes, and what each needs: a limit price, a trigger price, a time in force. */
const TYPES: Record<string, { price: boolean; stop: boolean; tif: boolean; takeProfit: boolean }> = {
  MARKET: { price: false, stop: false, tif: false, takeProfit: false },
  LIMIT: { price: true, stop: false, tif: true, takeProfit: false },
  STOP_MARKET: { price: false, stop: true, tif: false, takeProfit: false },
  STOP: { price: true, stop: true, tif: false, takeProfit: false },
  TAKE_PROFIT_MARKET: { price: false, stop: true, tif: false, takeProfit: true },
  TAKE_PROFIT: { price: true, stop: true, tif: false, takeProfit: true },
};

/** Starts the simulator. Resolves once it listens. */
export async function startAsterSimulator(opts: AsterSimulatorOptions): Promise<AsterSimulator> {
  const chainId = ASTER_CHAIN_ID[opts.network ?? 'mainnet'];
  const agentsOf = new Map<string, Map<string, AsterAgent>>(); // user → agent address → agent
  const nonces = new Map<string, bigint[]>(); // user → latest nonces (≤ 100)
  const buildersOf = new Map<string, Map<string, ApprovedBuilder>>(); // user → builder address → approval
  const funded = new Set<string>(); // users with a deposit
  const orders = new Map<number, SimOrder>();
  const trades: (WireTrade & { owner: string })[] = [];
  const accepted = new Tally();
  const holdings = new Holdings();
  let nextOrderId = 8_000_000_000 + Math.floor(Math.random() * 1_000_000);
  let nextTradeId = 500_000_000 + Math.floor(Math.random() * 1_000_000);
  const faults = new Faults();

  const markOf = decimalMarks(opts.markOf ?? asterOwnMarks(ASTER_SYMBOLS, { dataDir: opts.dataDir, now: opts.now }));
  /** The synthetic book's half touch: wider when the simulator prices from its own data (aster-prices.ts). */
  const halfSpread = opts.markOf ? '0' : ASTER_HALF_SPREAD;
  const marketable = (o: SimOrder, mark: Decimal) => crosses(o.side === 'BUY', o.price!, mark);
  const reached = (o: SimOrder, mark: Decimal) =>
    triggerReached(TYPES[o.type].takeProfit ? 'takeProfit' : 'stop', o.side === 'BUY', o.stopPrice!, mark);

  // --- authentication ----------------------------------------------------------------------

  function useNonce(user: string, raw: string | null): void {
    if (!raw || !/^\d{1,19}$/.test(raw)) throw MANDATORY('nonce');
    const n = BigInt(raw);
    const d = n - nowUs();
    if (d > NONCE_WINDOW_US || d < -NONCE_WINDOW_US) throw NONCE_EXPIRED();
    const kept = nonces.get(user) ?? [];
    if (kept.includes(n)) throw NONCE_EXPIRED();
    kept.push(n);
    if (kept.length > KEPT_NONCES) kept.shift();
    nonces.set(user, kept);
  }

  /**
   * A received parameter string split at its last `&signature=…`: the signed `msg`, the signature,
   * the parameters, `user` and the address parameter `second`. @throws -1102 when the signature or
   * either address is missing or malformed.
   */
  function signedForm(received: string, second: 'signer' | 'agentAddress') {
    const parts = splitSigned(received);
    if (!parts) throw MANDATORY('signature');
    const p = new URLSearchParams(parts.msg);
    const user = p.get('user');
    const other = p.get(second);
    if (!isAddress(user)) throw MANDATORY('user');
    if (!isAddress(other)) throw MANDATORY(second);
    return { ...parts, p, user, other };
  }

  /** Whether the venue knows the main wallet `user` (lower-case): it has a deposit (`fund()`), an agent or a builder. */
  const isKnown = (user: string) => funded.has(user) || agentsOf.has(user) || buildersOf.has(user);

  /**
   * Verifies a signed request as Aster does: the signature recovers `signer`, who is the main wallet
   * `user` itself (one the venue knows) or an API wallet `user` approved for perps and not expired.
   * Returns its parameters and the user (lower-case).
   */
  async function authenticate(received: string): Promise<{ p: URLSearchParams; user: string }> {
    const { msg, signature, p, user, other: signer } = signedForm(received, 'signer');
    const recovered = await recoverSigner(msg, signature, chainId);
    if (recovered !== lc(signer)) throw BAD_SIGNATURE();
    if (lc(signer) === lc(user)) {
      if (!isKnown(lc(user))) throw NO_PERMISSION();
    } else {
      const agent = agentsOf.get(lc(user))?.get(lc(signer));
      if (!agent || agent.expired <= Date.now() || !agent.canPerpTrade) throw NO_PERMISSION();
    }
    useNonce(lc(user), p.get('nonce'));
    return { p, user: lc(user) };
  }

  /**
   * `POST /fapi/v3/approveBuilder`, signed by the main wallet (module doc): records `builder` (as sent)
   * with its fee cap `maxFeeRate` for `user`; a second approval of the same builder replaces the first.
   */
  async function approveBuilder(received: string): Promise<unknown> {
    const parts = splitSigned(received);
    if (!parts) throw MANDATORY('signature');
    const p = new URLSearchParams(parts.msg);
    const user = p.get('user');
    const builder = p.get('builder');
    if (!isAddress(user)) throw MANDATORY('user');
    if (!isAddress(builder)) throw MANDATORY('builder');
    const maxFeeRate = decimal(p, 'maxFeeRate', true)!;
    for (const k of ['asterChain', 'signatureChainId', 'nonce']) if (!p.get(k)) throw MANDATORY(k);
    if (!/^\d{1,19}$/.test(p.get('nonce')!)) throw MANDATORY('nonce');
    if (!/^\d+$/.test(p.get('signatureChainId')!)) throw MANDATORY('signatureChainId');
    if (p.get('asterChain') !== ASTER_CHAIN[opts.network ?? 'mainnet']) throw MANDATORY('asterChain');
    const name = p.get('builderName');
    const fields = [
      ['Builder', builder],
      ['MaxFeeRate', p.get('maxFeeRate')!],
      ...(name === null ? [] : [['BuilderName', name]]),
      ['AsterChain', p.get('asterChain')!],
      ['User', user],
    ];
    const message: Record<string, string | bigint> = Object.fromEntries(fields);
    message.Nonce = BigInt(p.get('nonce')!);
    const types = {
      ApproveBuilder: [...fields.map(([k]) => ({ name: k, type: 'string' })), { name: 'Nonce', type: 'uint256' }],
    };
    let recovered: string | null = null;
    try {
      recovered = recoverTypedDataSigner({
        domain: asterDomain(Number(p.get('signatureChainId'))),
        types,
        primaryType: 'ApproveBuilder',
        message,
        signature: parts.signature,
      });
    } catch {
      // a signature that does not recover is refused below, as one of another signer
    }
    if (lc(recovered) !== lc(user)) throw BAD_SIGNATURE();
    useNonce(lc(user), p.get('nonce'));
    if (!buildersOf.has(lc(user))) buildersOf.set(lc(user), new Map());
    buildersOf.get(lc(user))!.set(lc(builder), {
      userAddress: user,
      builderAddress: builder,
      maxFeeRate,
      builderName: name ?? '',
    });
    return { code: 200, msg: 'success' };
  }

  async function register(received: string): Promise<unknown> {
    const { msg, signature, p, user, other: agentAddress } = signedForm(received, 'agentAddress');
    for (const k of ['agentName', 'expired', 'signatureChainId', 'canSpotTrade', 'canPerpTrade', 'canWithdraw'])
      if (!p.get(k)) throw MANDATORY(k);
    for (const k of ['canSpotTrade', 'canPerpTrade', 'canWithdraw'])
      if (!['true', 'false'].includes(p.get(k)!)) throw MANDATORY(k);
    if (!/^\d+$/.test(p.get('signatureChainId')!)) throw MANDATORY('signatureChainId');
    if (!/^\d+$/.test(p.get('expired')!)) throw MANDATORY('expired');
    const recovered = await recoverSigner(msg, signature, Number(p.get('signatureChainId')));
    if (recovered !== lc(user)) throw BAD_SIGNATURE();
    useNonce(lc(user), p.get('nonce'));
    const expired = Number(p.get('expired'));
    if (expired <= Date.now()) throw new AsterFail(-1102, "Parameter 'expired' must be in the future.");
    if (p.get('canWithdraw') === 'true' && !p.get('ipWhitelist')) throw MANDATORY('ipWhitelist');
    if (lc(agentAddress) === lc(user)) throw new AsterFail(-1102, 'Agent address cannot be the user address.');
    if (!agentsOf.has(lc(user))) agentsOf.set(lc(user), new Map());
    agentsOf.get(lc(user))!.set(lc(agentAddress), {
      address: lc(agentAddress),
      name: p.get('agentName')!,
      expired,
      canSpotTrade: p.get('canSpotTrade') === 'true',
      canPerpTrade: p.get('canPerpTrade') === 'true',
      canWithdraw: p.get('canWithdraw') === 'true',
    });
    return { code: 200, msg: 'success' };
  }

  // --- matching ----------------------------------------------------------------------------

  function fill(o: SimOrder, px: Decimal, maker: boolean): void {
    const qty = o.origQty.sub(o.executedQty);
    const notional = px.mul(qty);
    const now = Date.now();
    const fee = notional.mul(maker ? MAKER_FEE : TAKER_FEE).toDecimalPlaces(8, Decimal.ROUND_HALF_EVEN);
    const side = o.side === 'BUY' ? 'buy' : 'sell';
    const { realized } = holdings.fill(o.owner, o.spec.symbol, { side, qty, price: px, feeUsd: fee }, now);
    trades.push({
      owner: o.owner,
      id: nextTradeId++,
      orderId: o.orderId,
      symbol: o.spec.venueSymbol,
      side: o.side,
      price: px.toFixed(),
      qty: qty.toFixed(),
      quoteQty: notional.toFixed(),
      commission: fee.toFixed(8),
      commissionAsset: 'USDT',
      realizedPnl: realized.toDecimalPlaces(8, Decimal.ROUND_HALF_EVEN).toFixed(),
      maker,
      buyer: o.side === 'BUY',
      positionSide: 'BOTH',
      time: now,
    });
    o.executedQty = o.origQty;
    o.avgPrice = px;
    o.status = 'FILLED';
    o.updateTime = now;
    const trade = trades[trades.length - 1];
    ws.publishTrade({
      id: trade.id,
      symbol: trade.symbol,
      price: trade.price,
      qty: trade.qty,
      time: now,
      buyerMaker: maker === (o.side === 'BUY'),
    });
  }

  const working = (o: SimOrder) => o.status === 'NEW' || o.status === 'PARTIALLY_FILLED';

  async function poke(): Promise<void> {
    for await (const [o, mark] of markedOrders(orders.values(), working, (o) => markOf(o.spec))) {
      if (o.stopPrice && !o.triggered) {
        if (!reached(o, mark)) continue;
        // Fired: a STOP_MARKET / TAKE_PROFIT_MARKET fills at the mark; a STOP / TAKE_PROFIT rests as a limit.
        o.triggered = true;
        o.updateTime = Date.now();
        if (!o.price || marketable(o, mark)) fill(o, mark, false);
      } else if (o.price && marketable(o, mark)) fill(o, o.price, true);
    }
  }

  /** A new working order: the next order id, nothing filled, not triggered, `NEW`, stamped now. */
  function newOrder(
    o: Omit<SimOrder, 'orderId' | 'executedQty' | 'avgPrice' | 'triggered' | 'status' | 'time' | 'updateTime'>,
  ): SimOrder {
    const now = Date.now();
    const fresh = { executedQty: new Decimal(0), avgPrice: null, triggered: false, status: 'NEW' as const };
    return { orderId: nextOrderId++, ...o, ...fresh, time: now, updateTime: now };
  }

  function record(o: SimOrder): void {
    orders.set(o.orderId, o);
    accepted.add(o.owner, String(o.clientOrderId));
  }

  const specOfVenue = (venueSymbol: string | null) => {
    const spec = venueSymbol ? findByVenueSymbol('aster', venueSymbol) : undefined;
    if (!spec?.venueSymbol) throw BAD_SYMBOL();
    return spec as SymbolSpec & { venueSymbol: string };
  };

  function decimal(p: URLSearchParams, k: string, required: boolean): Decimal | null {
    const v = p.get(k);
    if (v === null || v === '') {
      if (required) throw MANDATORY(k);
      return null;
    }
    if (!/^\d+(\.\d+)?$/.test(v)) throw MANDATORY(k);
    return new Decimal(v);
  }

  async function place(user: string, p: URLSearchParams): Promise<WireOrder> {
    const spec = specOfVenue(p.get('symbol'));
    const side = p.get('side');
    if (side !== 'BUY' && side !== 'SELL') throw new AsterFail(-1117, 'Invalid side.');
    const type = p.get('type') ?? '';
    const t = TYPES[type];
    if (!t) throw new AsterFail(-1116, 'Invalid orderType.');
    if (p.get('positionSide') && p.get('positionSide') !== 'BOTH')
      throw new AsterFail(-4061, "Order's position side does not match user's setting.");
    const qty = decimal(p, 'quantity', true)!;
    const price = decimal(p, 'price', t.price);
    const stopPrice = decimal(p, 'stopPrice', t.stop);
    const tif = t.tif ? (p.get('timeInForce') ?? '') : (p.get('timeInForce') ?? 'GTC');
    if (t.tif && !['GTC', 'IOC', 'FOK', 'GTX'].includes(tif)) throw new AsterFail(-1115, 'Invalid timeInForce.');
    const reduceOnly = p.get('reduceOnly') ?? 'false';
    if (reduceOnly !== 'true' && reduceOnly !== 'false') throw MANDATORY('reduceOnly');
    const cid = p.get('newClientOrderId') ?? generatedClientOrderId();
    if (!/^[.A-Za-z:/0-9_-]{1,36}$/.test(cid))
      throw new AsterFail(
        -1100,
        "Illegal characters found in parameter 'newClientOrderId'; legal range is '^[\\.A-Z\\:/a-z0-9_-]{1,36}$'.",
      );
    if (qty.lte(0)) throw new AsterFail(-4003, 'Quantity less than zero.');
    if (qty.decimalPlaces() > spec.szDecimals)
      throw new AsterFail(-1111, 'Precision is over the maximum defined for this asset.');
    for (const px of [price, stopPrice]) {
      if (px && (px.lte(0) || !px.mod(spec.tickSize).isZero()))
        throw new AsterFail(-4014, 'Price not increased by tick size.');
    }
    const respType = p.get('newOrderRespType') ?? 'ACK';
    if (respType !== 'ACK' && respType !== 'RESULT') throw MANDATORY('newOrderRespType');
    checkBuilder(user, p);
    const live = [...orders.values()].some(
      (o) => o.owner === user && o.clientOrderId === cid && (o.status === 'NEW' || o.status === 'PARTIALLY_FILLED'),
    );
    if (live) throw new AsterFail(-4015, 'Client order id is not valid.');
    const reason = faults.takeRejection();
    if (reason !== null) throw new AsterFail(-2010, reason);
    const mark = await markOf(spec);
    if (!mark && type === 'MARKET')
      throw new AsterFail(-4131, "The counterparty's best price does not meet the PERCENT_PRICE filter limit");
    if (reduceOnly === 'false' && (price ?? mark ?? new Decimal(0)).mul(qty).lt(MIN_NOTIONAL))
      throw new AsterFail(-4164, "Order's notional must be no smaller than 5.0 (unless you choose reduce only)");
    const o = newOrder({
      clientOrderId: cid,
      owner: user,
      spec,
      side,
      type,
      price,
      stopPrice,
      origQty: qty,
      tif,
      reduceOnly: reduceOnly === 'true',
    });
    if (stopPrice && mark && reached(o, mark)) throw new AsterFail(-2021, 'Order would immediately trigger.');
    const takes = mark !== null && (type === 'MARKET' || (type === 'LIMIT' && marketable(o, mark)));
    if (type === 'LIMIT' && tif === 'GTX' && takes) {
      throw new AsterFail(
        -5022,
        'Due to the order could not be executed as maker, the Post Only order will be rejected. The order will not be recorded in the order history',
      );
    }
    record(o);
    const acknowledged = wire(o);
    if (takes) fill(o, mark, false);
    else if (type === 'LIMIT' && (tif === 'IOC' || tif === 'FOK')) o.status = 'EXPIRED';
    return respType === 'ACK' ? acknowledged : wire(o);
  }

  /**
   * An order's builder code: `builder` and `feeRate` come together, the builder is one `user` approved
   * and `feeRate` is at most its cap. @throws -1102 when one comes without the other, -1130 otherwise.
   */
  function checkBuilder(user: string, p: URLSearchParams): void {
    const builder = p.get('builder');
    const feeRate = decimal(p, 'feeRate', builder !== null);
    if (builder === null) {
      if (feeRate !== null) throw MANDATORY('builder');
      return;
    }
    const approved = buildersOf.get(user)?.get(lc(builder));
    if (!approved) throw new AsterFail(-1130, "Data sent for parameter 'builder' is not valid.");
    if (feeRate!.gt(approved.maxFeeRate)) throw new AsterFail(-1130, "Data sent for parameter 'feeRate' is not valid.");
  }

  // --- answers -----------------------------------------------------------------------------

  const dp = (spec: SymbolSpec) => Math.max(0, new Decimal(spec.tickSize).decimalPlaces());
  function wire(o: SimOrder): WireOrder & Record<string, unknown> {
    const pd = dp(o.spec);
    return {
      orderId: o.orderId,
      clientOrderId: o.clientOrderId,
      symbol: o.spec.venueSymbol,
      side: o.side,
      positionSide: 'BOTH',
      type: o.type,
      origType: o.type,
      price: (o.price ?? new Decimal(0)).toFixed(pd),
      origQty: o.origQty.toFixed(o.spec.szDecimals),
      executedQty: o.executedQty.toFixed(o.spec.szDecimals),
      cumQty: o.executedQty.toFixed(o.spec.szDecimals),
      cumQuote: (o.avgPrice ?? new Decimal(0)).mul(o.executedQty).toFixed(),
      avgPrice: (o.avgPrice ?? new Decimal(0)).toFixed(pd + 3),
      status: o.status,
      timeInForce: o.tif,
      stopPrice: (o.stopPrice ?? new Decimal(0)).toFixed(pd),
      reduceOnly: o.reduceOnly,
      closePosition: false,
      workingType: 'CONTRACT_PRICE',
      priceProtect: false,
      time: o.time,
      updateTime: o.updateTime,
    };
  }

  /** The user's order named by `orderId` or `origClientOrderId` on `symbol`. */
  function findOrder(user: string, p: URLSearchParams): SimOrder {
    const spec = specOfVenue(p.get('symbol'));
    const id = p.get('orderId');
    const cid = p.get('origClientOrderId');
    if (!id && !cid)
      throw new AsterFail(-1102, "Param 'orderId' or 'origClientOrderId' must be sent, but both were empty/null!");
    const mine = [...orders.values()].filter((o) => o.owner === user && o.spec.venueSymbol === spec.venueSymbol);
    const o = id ? mine.find((x) => String(x.orderId) === id) : mine.filter((x) => x.clientOrderId === cid).at(-1);
    if (!o) throw NO_ORDER();
    return o;
  }

  function timeSpan(p: URLSearchParams): { start: number; end: number } {
    const s = p.get('startTime');
    const e = p.get('endTime');
    if ((s && !/^\d+$/.test(s)) || (e && !/^\d+$/.test(e)))
      throw MANDATORY(s && !/^\d+$/.test(s) ? 'startTime' : 'endTime');
    const end = e ? Number(e) : s ? Number(s) + WEEK_MS : Date.now();
    const start = s ? Number(s) : end - WEEK_MS;
    if (start > end) throw new AsterFail(-1023, 'Start time is greater than end time.');
    if (end - start > WEEK_MS) throw new AsterFail(-1127, 'More than 168 hours between startTime and endTime.');
    return { start, end };
  }

  /** `user`'s collateral and positions valued at the marks (module doc): what the account reads report. */
  async function valuation(user: string) {
    const held = await Promise.all(
      holdings.positions(user).map(async (p) => {
        const spec = findSymbol('aster', p.symbol)! as SymbolSpec & { venueSymbol: string };
        const mark = (await markOf(spec)) ?? p.avgEntryPrice;
        const leverage = Math.min(DEFAULT_LEVERAGE, spec.maxLeverage);
        /** The position's initial margin, USD: |size × mark| ÷ leverage. */
        const initial = p.qty.mul(mark).abs().div(leverage);
        return { p, spec, mark, leverage, initial, upnl: mark.sub(p.avgEntryPrice).mul(p.qty) };
      }),
    );
    const sum = (f: (h: (typeof held)[number]) => Decimal) => held.reduce((s, h) => s.add(f(h)), new Decimal(0));
    const wallet = holdings.marginCash(user);
    const upnl = sum((h) => h.upnl);
    const initial = sum((h) => h.initial);
    const available = Decimal.max(0, wallet.add(upnl).sub(initial));
    return { held, wallet, upnl, initial, available };
  }

  /** USDT with 8 decimals, half-even, as the account reads write it. */
  const usdt = (v: Decimal) => v.toDecimalPlaces(8, Decimal.ROUND_HALF_EVEN).toFixed(8);

  /** The USDT fields the account's asset entry and the balance entry share: cross margin, what may leave, now. */
  const crossFields = (wallet: Decimal, upnl: Decimal, available: Decimal) => ({
    crossWalletBalance: usdt(wallet),
    crossUnPnl: usdt(upnl),
    availableBalance: usdt(available),
    maxWithdrawAmount: usdt(available),
    marginAvailable: true,
    updateTime: Date.now(),
  });

  /**
   * `GET /fapi/v3/accountWithJoinMargin` of `user` ("Account Information v3", module doc): its collateral and
   * positions valued at the marks, in the documented shape (positions carry `unrealizedProfit` and no mark price).
   */
  async function account(user: string): Promise<WireAccount & Record<string, unknown>> {
    const { held, wallet, upnl, initial, available } = await valuation(user);
    return {
      feeTier: 0,
      canTrade: true,
      canDeposit: true,
      canWithdraw: true,
      updateTime: Date.now(),
      totalInitialMargin: usdt(initial),
      totalMaintMargin: usdt(initial.div(2)),
      totalWalletBalance: usdt(wallet),
      totalUnrealizedProfit: usdt(upnl),
      totalMarginBalance: usdt(wallet.add(upnl)),
      totalPositionInitialMargin: usdt(initial),
      totalOpenOrderInitialMargin: usdt(new Decimal(0)),
      totalCrossWalletBalance: usdt(wallet),
      totalCrossUnPnl: usdt(upnl),
      availableBalance: usdt(available),
      maxWithdrawAmount: usdt(available),
      assets: [
        {
          asset: 'USDT',
          walletBalance: usdt(wallet),
          unrealizedProfit: usdt(upnl),
          marginBalance: usdt(wallet.add(upnl)),
          maintMargin: usdt(initial.div(2)),
          initialMargin: usdt(initial),
          positionInitialMargin: usdt(initial),
          openOrderInitialMargin: usdt(new Decimal(0)),
          ...crossFields(wallet, upnl, available),
        },
      ],
      positions: held.map((h) => ({
        symbol: h.spec.venueSymbol,
        initialMargin: usdt(h.initial),
        maintMargin: usdt(h.initial.div(2)),
        unrealizedProfit: usdt(h.upnl),
        positionInitialMargin: usdt(h.initial),
        openOrderInitialMargin: '0',
        leverage: String(h.leverage),
        isolated: false,
        entryPrice: h.p.avgEntryPrice.toDecimalPlaces(8, Decimal.ROUND_HALF_EVEN).toFixed(),
        maxNotional: markets.MAX_NOTIONAL_VALUE,
        positionSide: 'BOTH',
        positionAmt: h.p.qty.toFixed(h.spec.szDecimals),
        updateTime: Date.now(),
      })),
    };
  }

  /** `GET /fapi/v3/balance` of `user`: one entry, USDT, from the same valuation as {@link account}. */
  async function balance(user: string) {
    const { wallet, upnl, available } = await valuation(user);
    return [
      {
        accountAlias: createHash('sha256').update(user).digest('base64url').slice(0, 8),
        asset: 'USDT',
        balance: usdt(wallet),
        ...crossFields(wallet, upnl, available),
      },
    ];
  }

  /**
   * `GET /fapi/v3/positionRisk` of `user` (one-way mode): one entry per routed symbol, or only `symbol`'s,
   * flat ones with zero amount and entry price; cross margin, no liquidation price (no margin model).
   */
  async function positionRisk(user: string, symbol: string | null) {
    const only = symbol === null ? null : specOfVenue(symbol);
    const { held } = await valuation(user);
    const now = Date.now();
    const specs = ASTER_SYMBOLS.filter((s) => !only || s.venueSymbol === only.venueSymbol);
    return Promise.all(
      specs.map(async (spec) => {
        const h = held.find((x) => x.spec.symbol === spec.symbol);
        const mark = h?.mark ?? (await markOf(spec)) ?? new Decimal(0);
        const pd = markets.priceDecimals(spec);
        return {
          entryPrice: (h?.p.avgEntryPrice ?? new Decimal(0)).toFixed(pd + 3),
          marginType: 'cross',
          isAutoAddMargin: 'false',
          isolatedMargin: usdt(new Decimal(0)),
          leverage: String(Math.min(DEFAULT_LEVERAGE, spec.maxLeverage)),
          liquidationPrice: '0',
          markPrice: usdt(mark),
          maxNotionalValue: markets.MAX_NOTIONAL_VALUE,
          positionAmt: (h?.p.qty ?? new Decimal(0)).toFixed(spec.szDecimals),
          symbol: spec.venueSymbol!,
          unRealizedProfit: usdt(h?.upnl ?? new Decimal(0)),
          positionSide: 'BOTH',
          updateTime: h ? now : 0,
        };
      }),
    );
  }

  const limitOf = (p: URLSearchParams) => Math.min(Math.max(Number(p.get('limit') ?? 500) || 500, 1), 1000);

  /** Resting limit orders on `spec` (triggers not yet fired are hidden), as the book shows them. */
  const restingOf = (spec: SymbolSpec): markets.BookOrder[] =>
    [...orders.values()]
      .filter((o) => working(o) && o.spec.symbol === spec.symbol && o.price !== null && (!o.stopPrice || o.triggered))
      .map((o) => ({ isBuy: o.side === 'BUY', px: o.price!, sz: o.origQty.sub(o.executedQty) }));

  /** `GET /fapi/v3/ticker/24hr` of one symbol: {@link markets.ticker24hr} over its trades; no mark → `-1121`. */
  async function ticker(spec: SymbolSpec & { venueSymbol: string }) {
    const mark = await markOf(spec);
    if (!mark) throw BAD_SYMBOL();
    const mine = trades
      .filter((t) => t.symbol === spec.venueSymbol)
      .map((t) => ({ id: t.id, qty: new Decimal(t.qty), quoteQty: new Decimal(t.price).mul(t.qty), time: t.time }));
    return markets.ticker24hr(spec, mark, mine);
  }

  /** The public routes (no signature): market data, by `METHOD path`. */
  const PUBLIC: Record<string, (q: URLSearchParams) => Promise<unknown>> = {
    'GET /fapi/v3/exchangeInfo': async () => markets.exchangeInfo(),
    'GET /api/v3/exchangeInfo': async () => markets.spotExchangeInfo(),
    'GET /fapi/v3/depth': async (q) => {
      const spec = specOfVenue(q.get('symbol'));
      const limit = markets.depthLimit(q.get('limit'));
      if (limit === null) throw new AsterFail(-1130, "Data sent for parameter 'limit' is not valid.");
      return markets.depth(spec, await markOf(spec), restingOf(spec), limit, Date.now(), halfSpread);
    },
    'GET /fapi/v3/ticker/24hr': async (q) => {
      const symbol = q.get('symbol');
      if (symbol !== null) return ticker(specOfVenue(symbol));
      const marked: (SymbolSpec & { venueSymbol: string })[] = [];
      for (const s of ASTER_SYMBOLS) if (await markOf(s)) marked.push(specOfVenue(s.venueSymbol!));
      return Promise.all(marked.map(ticker));
    },
  };

  async function route(req: IncomingMessage, res: ServerResponse, body: string): Promise<unknown> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const key = `${req.method} ${url.pathname}`;
    const received = req.method === 'GET' ? url.search.replace(/^\?/, '') : body;
    if (Object.hasOwn(PUBLIC, key)) {
      await poke();
      return PUBLIC[key](url.searchParams);
    }
    if (key === 'POST /fapi/v3/registerAndApproveAgent') return register(received);
    if (key === 'POST /fapi/v3/approveBuilder') return approveBuilder(received);
    const known = [
      'POST /fapi/v3/order',
      'DELETE /fapi/v3/order',
      'GET /fapi/v3/order',
      'GET /fapi/v3/openOrders',
      'GET /fapi/v3/allOrders',
      'GET /fapi/v3/userTrades',
      'GET /fapi/v3/accountWithJoinMargin',
      'GET /fapi/v3/balance',
      'GET /fapi/v3/positionRisk',
      'GET /fapi/v3/leverageBracket',
      'GET /fapi/v3/builder',
    ];
    if (!known.includes(key)) return NOT_FOUND_TEXT;
    const { p, user } = await authenticate(received);
    await poke();
    switch (key) {
      case 'POST /fapi/v3/order': {
        const out = await place(user, p);
        return faults.dropAck(res) ? undefined : out;
      }
      case 'DELETE /fapi/v3/order': {
        const o = findOrder(user, p);
        if (o.status !== 'NEW' && o.status !== 'PARTIALLY_FILLED') throw new AsterFail(-2011, 'Unknown order sent.');
        o.status = 'CANCELED';
        o.updateTime = Date.now();
        return wire(o);
      }
      case 'GET /fapi/v3/order':
        return wire(findOrder(user, p));
      case 'GET /fapi/v3/accountWithJoinMargin':
        return account(user);
      case 'GET /fapi/v3/balance':
        return balance(user);
      case 'GET /fapi/v3/positionRisk':
        return positionRisk(user, p.get('symbol'));
      case 'GET /fapi/v3/leverageBracket': {
        const symbol = p.get('symbol');
        if (symbol !== null) return markets.leverageBracket(specOfVenue(symbol));
        return ASTER_SYMBOLS.map((s) => markets.leverageBracket(s as SymbolSpec & { venueSymbol: string }));
      }
      case 'GET /fapi/v3/builder':
        return [...(buildersOf.get(user)?.values() ?? [])].map((b) => ({
          userAddress: b.userAddress,
          builderAddress: b.builderAddress,
          maxFeeRate: b.maxFeeRate.toNumber(),
          builderName: b.builderName,
        }));
      case 'GET /fapi/v3/openOrders': {
        const sym = p.get('symbol');
        const spec = sym ? specOfVenue(sym) : null;
        return [...orders.values()]
          .filter(
            (o) =>
              o.owner === user &&
              (o.status === 'NEW' || o.status === 'PARTIALLY_FILLED') &&
              (!spec || o.spec.venueSymbol === spec.venueSymbol),
          )
          .map(wire);
      }
      case 'GET /fapi/v3/allOrders': {
        const spec = specOfVenue(p.get('symbol'));
        const { start, end } = timeSpan(p);
        const from = p.get('orderId');
        const list = [...orders.values()]
          .filter(
            (o) =>
              o.owner === user &&
              o.spec.venueSymbol === spec.venueSymbol &&
              (from ? o.orderId >= Number(from) : o.time >= start && o.time <= end),
          )
          .sort((a, b) => a.orderId - b.orderId);
        return (from ? list.slice(0, limitOf(p)) : list.slice(-limitOf(p))).map(wire);
      }
      case 'GET /fapi/v3/userTrades': {
        const spec = specOfVenue(p.get('symbol'));
        const fromId = p.get('fromId');
        if (fromId && (p.get('startTime') || p.get('endTime')))
          throw new AsterFail(-1128, 'Combination of optional parameters invalid.');
        const mine = trades
          .filter((t) => t.owner === user && t.symbol === spec.venueSymbol)
          .sort((a, b) => a.id - b.id);
        let list: typeof mine;
        if (fromId) list = mine.filter((t) => t.id >= Number(fromId)).slice(0, limitOf(p));
        else {
          const { start, end } = timeSpan(p);
          const inSpan = mine.filter((t) => t.time >= start && t.time <= end);
          list = p.get('startTime') ? inSpan.slice(0, limitOf(p)) : inSpan.slice(-limitOf(p));
        }
        return list.map(({ owner: _o, ...t }) => t);
      }
    }
    return NOT_FOUND_TEXT;
  }

  const fail = (err: unknown) =>
    err instanceof AsterFail
      ? new Reply(err.http, { code: err.code, msg: err.message })
      : new Reply(500, { code: -1000, msg: messageOf(err) });
  const ws = asterWs(
    {
      depth: async (symbol, limit) => {
        const spec = ASTER_SYMBOLS.find((x) => x.venueSymbol === symbol) as
          (SymbolSpec & { venueSymbol: string }) | undefined;
        if (!spec) return null;
        await poke();
        return markets.depth(spec, await markOf(spec), restingOf(spec), limit, Date.now(), halfSpread);
      },
    },
    ASTER_SYMBOLS.map((x) => x.venueSymbol!),
    { intervalMs: opts.wsIntervalMs },
  );
  const common = await listenWithSocket({ port: opts.port, route, fail, faults }, ws);

  return {
    ...common,
    clientOrderIds: () => accepted.clientOrderIds(),
    async injectOrder(owner, o) {
      const spec = injectedSpec('aster', o.symbol);
      const order = newOrder({
        clientOrderId: `web_${randomBytes(10).toString('hex')}`,
        owner: lc(owner),
        spec,
        side: o.side === 'buy' ? 'BUY' : 'SELL',
        type: 'LIMIT',
        price: new Decimal(o.price),
        stopPrice: null,
        origQty: new Decimal(o.qty),
        tif: o.tif ?? 'GTC',
        reduceOnly: false,
      });
      record(order);
      const mark = await markOf(spec);
      if (mark && marketable(order, mark)) fill(order, mark, false);
      return { venueOrderId: String(order.orderId) };
    },
    poke,
    ...addressControls(accepted, holdings, funded),
    agents(owner) {
      return [...(agentsOf.get(lc(owner))?.values() ?? [])].map((a) => ({ ...a }));
    },
    expireAgent(owner, agentAddress) {
      const a = agentsOf.get(lc(owner))?.get(lc(agentAddress));
      if (a) a.expired = Date.now() - 1;
    },
  };
}

/**
 * A local Hyperliquid simulator (node:http on 127.0.0.1) serving the REST surface the adapter uses,
 * with the venue's paths and JSON shapes (docs/venues.md §1.4):
 * - `POST /exchange` `{action, nonce, signature:{r,s,v}, vaultAddress, expiresAfter}`:
 *   - `approveAgent` (user-signed): the `HyperliquidTransaction:ApproveAgent` signature recovers the
 *     master; `action.nonce` must equal `nonce`; `hyperliquidChain` must be this network's;
 *     `agentName` `"<name> valid_until <ms>"` sets the expiry (in the future, ≤ 180 days). A new
 *     unnamed agent replaces the unnamed one; a same-named agent replaces the named one.
 *   - L1 actions `order`, `cancel`, `cancelByCloid`: the phantom-agent signature is recovered over
 *     keccak(msgpack(action) ‖ nonce ‖ vault ‖ expiresAfter); the recovered address must be an
 *     approved, unexpired agent (or a master itself), and the action is applied to that agent's
 *     master (an L1 action never names the user: the venue maps agent → master). A tampered action
 *     recovers some other address, which is unknown: `User or API Wallet 0x… does not exist.`
 *   - Nonces, per signer: unused (`Invalid nonce: duplicate nonce`), greater than the smallest of the
 *     100 highest kept once 100 are kept (`Invalid nonce: nonce too low`), within 1 day of now
 *     (`Invalid nonce: nonce too far from current time`).
 *   - Refusals: `{"status":"err","response":"<msg>"}` (HTTP 200); malformed bodies: 422 text
 *     `Failed to deserialize the JSON body into the target type`. Per-order refusals are
 *     `{"error":"…"}` statuses inside an ok answer, with the venue's wording.
 * - `POST /info`, in the shapes of the venue's published TypeScript SDK (`@nktkas/hyperliquid`, whose
 *   response types type these answers): account types by the master's `user` — `orderStatus` (oid
 *   or cloid), `historicalOrders`, `openOrders`, `frontendOpenOrders`, `userFills`, `userFillsByTime`,
 *   `clearinghouseState`, `userAbstraction` (`"default"`); market types (simulators/hyperliquid-markets.ts)
 *   — `meta`, `metaAndAssetCtxs`, `allMids`, `l2Book` (a book around the mark plus the resting orders),
 *   `spotMeta`, `spotMetaAndAssetCtxs` and `outcomeMeta` (empty but for USDC), `perpDexs` (the main
 *   dex only), main dex only (`dex` absent or `""`).
 * - `GET /ws` (upgrade): the public WebSocket, `l2Book`, `trades`, `allMids`, ping (simulators/hyperliquid-ws.ts),
 *   streaming the same books (marks + resting orders) it matches against and its own fills as trades.
 * - A master exists once it has a deposit (`fund()`) or has approved an agent: it may then sign L1
 *   actions itself, as on the venue.
 *
 * Matching against `markOf(platform symbol)` (absent: the simulator's own replay of the recorded ticks): an IOC fills at once at the mark when marketable
 * (buy: mark ≤ limit; sell: mark ≥ limit), else is refused `Order could not immediately match
 * against any resting orders. asset=N` (recorded as `iocCancelRejected`; `FrontendMarket` is an IOC); an ALO that would match
 * is refused (`badAloPxRejected`); a GTC fills at once at the mark when marketable, else rests and
 * fills at its limit as a maker once the mark crosses (on `poke()` and before every read or
 * cancel). Trigger orders rest until the mark reaches `triggerPx` (sl: buy when mark ≥ trigger, sell
 * when mark ≤ trigger; tp the other way): a market trigger then fills at the mark (within its limit
 * `p`), a limit trigger becomes a resting limit with status `triggered` until it fills (the real
 * venue spawns a child order with a new oid instead). Fees: taker 0.045 %, maker 0.015 % of the
 * notional, USDC, 6 decimals. Each master's collateral (what a test funds, `fund()`) and net positions
 * are kept (simulators/holdings.ts): fills carry `startPosition`, `dir` and `closedPnl`, and
 * `clearinghouseState` values the positions at the marks, cross margin at 20× (capped at the asset's
 * maximum). Deviations, on purpose: no margin checks (an order beyond the collateral is accepted), no
 * funding payments, no vaults/sub-accounts (a non-null `vaultAddress` is refused), one fill per order.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type {
  ClearinghouseStateResponse,
  FrontendOpenOrdersResponse,
  HistoricalOrdersResponse,
  OpenOrdersResponse,
  OrderStatusResponse,
  UserAbstractionResponse,
  UserFillsResponse,
} from '@nktkas/hyperliquid/api/info';
import { Decimal } from '../domain/decimal.js';
import { findByVenueSymbol, findSymbol, type SymbolSpec } from '../domain/market/symbols.js';
import { HYPERLIQUID_SYMBOLS } from '../domain/market/venues/hyperliquid.js';
import {
  HYPERLIQUID_CHAIN,
  parseAgentName,
  recoverL1Signer,
  recoverUserSigner,
} from '../venues/hyperliquid/signing.js';
import { specOfCoin, toWire, validPrice } from '../venues/hyperliquid/wire.js';
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
import { hyperliquidWs } from './hyperliquid-ws.js';
import { replayedMarks } from './hyperliquid-prices.js';
import type { TradesEvent } from '@nktkas/hyperliquid/api/subscription';
import * as markets from './hyperliquid-markets.js';
import { usdc } from './hyperliquid-markets.js';

/**
 * Options of {@link startHyperliquidSimulator}: marks in USD of platform symbols (`BTC.HL`);
 * `network` picks the phantom-agent source (`a`/`b`) and `hyperliquidChain` the venue expects.
 * Without `markOf` the simulator prices from its own replay of the recorded Hyperliquid ticks
 * (simulators/hyperliquid-prices.ts, from `dataDir` when given). `wsIntervalMs`: how often (ms, default
 * 500) its WebSocket looks for book and mid changes to send, `wsResendMs` after how long (ms, default 5 000)
 * it sends unchanged data again (simulators/hyperliquid-ws.ts).
 */
export type HyperliquidSimulatorOptions = Omit<SimulatorOptions, 'markOf'> & {
  markOf?: SimulatorOptions['markOf'];
  dataDir?: string;
  wsIntervalMs?: number;
  wsResendMs?: number;
};

/** An order placed in the venue's own web interface ({@link HyperliquidSimulator.injectOrder}). */
export interface InjectedOrder extends InjectedLimit {
  tif?: 'Gtc' | 'Alo';
}

/**
 * The running simulator and its test controls (`owner` is the master): `rejectNext` refuses with a
 * `{"error": reason}` status.
 */
export interface HyperliquidSimulator extends VenueSimulator<InjectedOrder>, SocketControls {
  /** The master's approved agents: name (`""` = unnamed), address (lower-case), expiry (epoch ms or null). */
  agents(owner: string): { name: string; address: string; validUntil: number | null }[];
}

const TAKER_FEE = new Decimal('0.00045');
const MAKER_FEE = new Decimal('0.00015');
const DAY_MS = 86_400_000;
const MAX_AGENT_VALIDITY_MS = 180 * DAY_MS;
const KEPT_NONCES = 100;
const PAGE = 2000;
const DESERIALIZE = 'Failed to deserialize the JSON body into the target type';
/** Leverage of a position (the venue's default cross leverage, capped at the asset's maximum). */
const DEFAULT_LEVERAGE = 20;
/** Fills a `trades` subscription's first frame lists at most (the coin's latest). */
const RECENT_TRADES = 50;
/** The counterparty a fill against the synthetic book shows in `trades` (`users`). */
const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000' as const;

/** An order as `historicalOrders` / `orderStatus` report it (the SDK's type). */
type OrderWithStatus = HistoricalOrdersResponse[number];
/** The venue's order status words (`open`, `filled`, `canceled`, `triggered`, `…Rejected`, …). */
type OrderStatusWord = OrderWithStatus['status'];
/** A fill as `userFills` reports it (the SDK's type). */
type Fill = UserFillsResponse[number];
/** A client order id: `0x` + 32 hex. */
type Cloid = `0x${string}`;
/** Time in force of a limit order; `FrontendMarket` (the venue's UI market order) behaves as `Ioc`. */
type Tif = 'Gtc' | 'Ioc' | 'Alo' | 'FrontendMarket';

interface SimOrder {
  oid: number;
  cloid: Cloid | null;
  owner: string;
  spec: SymbolSpec;
  asset: number;
  isBuy: boolean;
  limitPx: Decimal;
  origSz: Decimal;
  filled: Decimal;
  reduceOnly: boolean;
  tif: Tif | null;
  trigger: { isMarket: boolean; triggerPx: Decimal; tpsl: 'tp' | 'sl' } | null;
  triggered: boolean;
  status: OrderStatusWord;
  timestamp: number;
  statusTimestamp: number;
}

interface Agent {
  address: string;
  validUntil: number | null;
}

class Refused extends Error {}
class BadBody extends Error {}

/**
 * A `POST /exchange` body in the venue's shape (docs/venues.md §1.4), as parsed JSON: `route` checks
 * `action.type`, `nonce` and that `signature` is present; the handlers check the rest (a wrong shape
 * is the venue's 422, a bad signature fails its recovery, also 422).
 */
interface ExchangeBody {
  action: ApproveAgentAction | L1Action;
  nonce: number;
  signature: { r: string; s: string; v: number | string };
  vaultAddress?: string | null;
  expiresAfter?: number | null;
}

/** `approveAgent` (user-signed): the fields the venue signs, checked by {@link approveAgent}. */
interface ApproveAgentAction {
  type: 'approveAgent';
  signatureChainId: string;
  hyperliquidChain: string;
  agentAddress: string;
  agentName?: string | null;
  nonce: number;
}

/** An L1 action: `order` (`orders`, `grouping`), `cancel` / `cancelByCloid` (`cancels`); others are refused. */
interface L1Action {
  type: string;
  orders?: unknown;
  grouping?: unknown;
  cancels?: unknown;
}

/** One order of an `order` action (asset, isBuy, limit px, size, reduceOnly, type, cloid), checked by `placeOne`. */
interface OrderWire {
  a: number;
  b: boolean;
  p: string;
  s: string;
  r: boolean;
  t: { limit?: { tif: Tif }; trigger?: { isMarket: boolean; triggerPx: string; tpsl: 'tp' | 'sl' } };
  c?: string;
}

/** One cancel: by oid (`cancel`: `{a, o}`) or by cloid (`cancelByCloid`: `{asset, cloid}`). */
type CancelWire = { a?: number; o?: number; asset?: number; cloid?: string } | null | undefined;

/**
 * A `POST /info` body: `type`; for the account types the master's `user`, plus `oid` (number or
 * cloid) or `startTime`/`endTime` (epoch ms); for the market types `coin` (`l2Book`) and `dex`
 * (absent or `""`, the main dex: the only one served).
 */
interface InfoBody {
  type?: string;
  user: string;
  oid?: number | string | null;
  startTime?: number;
  endTime?: number;
  coin?: unknown;
  dex?: unknown;
}

/** Time in force by the `tif` a limit order names: whether it must match at once (IOC) or must not (ALO). */
const TIF_RULES: Record<Tif, { ioc: boolean; alo: boolean }> = {
  Gtc: { ioc: false, alo: false },
  Ioc: { ioc: true, alo: false },
  FrontendMarket: { ioc: true, alo: false },
  Alo: { ioc: false, alo: true },
};

/** Starts the simulator. Resolves once it listens. */
export async function startHyperliquidSimulator(opts: HyperliquidSimulatorOptions): Promise<HyperliquidSimulator> {
  const network = opts.network ?? 'mainnet';
  const approvals = new Map<string, Map<string, Agent>>(); // master → agent name ('' = unnamed) → agent
  const nonces = new Map<string, number[]>(); // signer → kept highest nonces, ascending
  const orders = new Map<number, SimOrder>();
  const fills: (Fill & { owner: string })[] = [];
  const funded = new Set<string>(); // masters with a deposit: they exist on the venue and may sign L1 actions
  const accepted = new Tally();
  const holdings = new Holdings();
  let nextOid = 9_000_000_000 + Math.floor(Math.random() * 1_000_000);
  let nextTid = 100_000_000_000_000 + Math.floor(Math.random() * 1_000_000);
  const faults = new Faults();

  const markOf = decimalMarks(opts.markOf ?? replayedMarks(HYPERLIQUID_SYMBOLS, { dataDir: opts.dataDir }));
  const reached = (o: SimOrder, mark: Decimal) =>
    triggerReached(o.trigger!.tpsl === 'sl' ? 'stop' : 'takeProfit', o.isBuy, o.trigger!.triggerPx, mark);

  // --- agents and nonces -------------------------------------------------------------------

  /** The master an L1 signer acts for now: itself when it is a master, else the master that approved it (unexpired). */
  function masterOf(signer: string): string | null {
    if (approvals.has(signer) || funded.has(signer)) return signer;
    const now = Date.now();
    for (const [master, named] of approvals) {
      for (const a of named.values())
        if (a.address === signer && (a.validUntil == null || a.validUntil > now)) return master;
    }
    return null;
  }

  function useNonce(signer: string, nonce: number): void {
    if (!Number.isSafeInteger(nonce) || nonce <= 0)
      throw new Refused('Invalid nonce: nonce must be a positive integer');
    const kept = nonces.get(signer) ?? [];
    if (kept.includes(nonce)) throw new Refused('Invalid nonce: duplicate nonce');
    if (kept.length >= KEPT_NONCES && nonce <= kept[0])
      throw new Refused(`Invalid nonce: nonce too low (${nonce} ≤ ${kept[0]})`);
    if (Math.abs(nonce - Date.now()) > DAY_MS) throw new Refused('Invalid nonce: nonce too far from current time');
    kept.push(nonce);
    kept.sort((a, b) => a - b);
    if (kept.length > KEPT_NONCES) kept.shift();
    nonces.set(signer, kept);
  }

  async function approveAgent(body: ExchangeBody): Promise<unknown> {
    const a = body.action as ApproveAgentAction;
    if (!isAddress(a.agentAddress) || typeof a.signatureChainId !== 'string' || !Number.isSafeInteger(a.nonce))
      throw new BadBody(DESERIALIZE);
    if (a.hyperliquidChain !== HYPERLIQUID_CHAIN[network])
      throw new Refused(`Invalid hyperliquidChain ${a.hyperliquidChain}`);
    if (a.nonce !== body.nonce) throw new Refused('Nonce in action does not match nonce of request');
    let master: string;
    try {
      master = await recoverUserSigner(
        'HyperliquidTransaction:ApproveAgent',
        { ...a, agentName: a.agentName ?? '' },
        body.signature,
      );
    } catch {
      throw new BadBody(DESERIALIZE);
    }
    useNonce(master, body.nonce);
    const { name, validUntil } = parseAgentName(a.agentName);
    if (validUntil != null && (validUntil <= Date.now() || validUntil > Date.now() + MAX_AGENT_VALIDITY_MS))
      throw new Refused(`Invalid agent valid_until ${validUntil}: must lie in the next 180 days`);
    if (lc(a.agentAddress) === master) throw new Refused('Agent address cannot be the user address');
    if (!approvals.has(master)) approvals.set(master, new Map());
    approvals.get(master)!.set(name, { address: lc(a.agentAddress), validUntil });
    return { status: 'ok', response: { type: 'default' } };
  }

  // --- orders ------------------------------------------------------------------------------

  function fill(o: SimOrder, px: Decimal, taker: boolean): void {
    const sz = o.origSz.sub(o.filled);
    const fee = px
      .mul(sz)
      .mul(taker ? TAKER_FEE : MAKER_FEE)
      .toDecimalPlaces(6, Decimal.ROUND_HALF_EVEN);
    const now = Date.now();
    const side = o.isBuy ? 'buy' : 'sell';
    const { before, realized } = holdings.fill(o.owner, o.spec.symbol, { side, qty: sz, price: px, feeUsd: fee }, now);
    const opens = before.isZero() || before.isPos() === o.isBuy;
    fills.push({
      owner: o.owner,
      coin: o.spec.base,
      px: toWire(px),
      sz: toWire(sz),
      side: o.isBuy ? 'B' : 'A',
      time: now,
      startPosition: toWire(before),
      dir: `${opens ? 'Open' : 'Close'} ${o.isBuy === opens ? 'Long' : 'Short'}`,
      closedPnl: usdc(realized),
      hash: `0x${randomBytes(32).toString('hex')}`,
      oid: o.oid,
      crossed: taker,
      fee: fee.toFixed(),
      tid: nextTid++,
      feeToken: 'USDC',
      twapId: null,
      ...(o.cloid ? { cloid: o.cloid } : {}),
    });
    o.filled = o.origSz;
    o.status = 'filled';
    o.statusTimestamp = now;
    ws.publishTrades([tradeOf(fills[fills.length - 1])]);
  }

  /** A fill as the public `trades` channel shows it: `users` = [buyer, seller], the synthetic book's side the zero address. */
  function tradeOf(f: Fill & { owner: string }): TradesEvent[number] {
    const owner = f.owner as `0x${string}`;
    const users: TradesEvent[number]['users'] = f.side === 'B' ? [owner, ZERO_ADDRESS] : [ZERO_ADDRESS, owner];
    return { coin: f.coin, side: f.side, px: f.px, sz: f.sz, time: f.time, hash: f.hash, tid: f.tid, users };
  }

  const working = (o: SimOrder) => o.status === 'open' || o.status === 'triggered';

  async function poke(): Promise<void> {
    for await (const [o, mark] of markedOrders(orders.values(), working, (o) => markOf(o.spec))) {
      const marketable = crosses(o.isBuy, o.limitPx, mark);
      if (o.trigger && !o.triggered) {
        if (!reached(o, mark)) continue;
        // Fired: a market trigger fills at the mark within its limit or is refused; a limit trigger rests as `triggered`.
        o.triggered = true;
        o.statusTimestamp = Date.now();
        if (marketable) fill(o, mark, true);
        else o.status = o.trigger.isMarket ? 'marketOrderNoLiquidityRejected' : 'triggered';
      } else if (marketable) fill(o, o.limitPx, false);
    }
  }

  /** A new working order: the next oid, nothing filled, not triggered, `open`, stamped now. */
  function newOrder(
    o: Omit<SimOrder, 'oid' | 'filled' | 'triggered' | 'status' | 'timestamp' | 'statusTimestamp'>,
  ): SimOrder {
    const now = Date.now();
    return {
      oid: nextOid++,
      ...o,
      filled: new Decimal(0),
      triggered: false,
      status: 'open',
      timestamp: now,
      statusTimestamp: now,
    };
  }

  function record(o: SimOrder): void {
    orders.set(o.oid, o);
    accepted.add(o.owner, o.cloid);
  }

  /** One order of an `order` action for `owner`: its status object. */
  async function placeOne(owner: string, wire: unknown): Promise<Record<string, unknown>> {
    const w = wire as OrderWire | null;
    if (
      !w ||
      typeof w !== 'object' ||
      typeof w.a !== 'number' ||
      typeof w.b !== 'boolean' ||
      typeof w.p !== 'string' ||
      typeof w.s !== 'string' ||
      typeof w.r !== 'boolean' ||
      !w.t
    )
      throw new BadBody(DESERIALIZE);
    const spec = findByVenueSymbol('hyperliquid', String(w.a));
    if (!spec) return { error: `Invalid asset ${w.a}` };
    let p: Decimal, s: Decimal;
    try {
      p = new Decimal(w.p);
      s = new Decimal(w.s);
    } catch {
      throw new BadBody(DESERIALIZE);
    }
    if (s.lte(0) || s.decimalPlaces() > spec.szDecimals) return { error: 'Order has invalid size.' };
    if (!validPrice(p, spec.szDecimals)) return { error: `Order has invalid price. asset=${w.a}` };
    if (!w.r && p.mul(s).lt(10)) return { error: `Order must have minimum value of $10. asset=${w.a}` };
    const tif = w.t.limit?.tif ?? null;
    const trig = w.t.trigger
      ? {
          isMarket: Boolean(w.t.trigger.isMarket),
          triggerPx: new Decimal(w.t.trigger.triggerPx),
          tpsl: w.t.trigger.tpsl,
        }
      : null;
    if (!trig && (tif === null || !Object.hasOwn(TIF_RULES, tif))) throw new BadBody(DESERIALIZE);
    if (trig && trig.tpsl !== 'tp' && trig.tpsl !== 'sl') throw new BadBody(DESERIALIZE);
    if (w.c !== undefined && (typeof w.c !== 'string' || !/^0x[0-9a-f]{32}$/.test(w.c))) throw new BadBody(DESERIALIZE);
    const reason = faults.takeRejection();
    if (reason !== null) return { error: reason };
    const o = newOrder({
      cloid: (w.c as Cloid | undefined) ?? null,
      owner,
      spec,
      asset: w.a,
      isBuy: w.b,
      limitPx: p,
      origSz: s,
      reduceOnly: w.r,
      tif,
      trigger: trig,
    });
    const cl = o.cloid ? { cloid: o.cloid } : {};
    const mark = await markOf(spec);
    if (trig) {
      record(o);
      return { resting: { oid: o.oid, ...cl } };
    }
    const marketable = mark !== null && crosses(o.isBuy, p, mark);
    const rules = tif === null ? null : TIF_RULES[tif];
    if (rules?.ioc && !marketable) {
      o.status = 'iocCancelRejected';
      record(o);
      return { error: `Order could not immediately match against any resting orders. asset=${w.a}` };
    }
    if (rules?.alo && marketable) {
      o.status = 'badAloPxRejected';
      record(o);
      return {
        error: `Post only order would have immediately matched, bbo was ${toWire(mark)}@${toWire(mark)}. asset=${w.a}`,
      };
    }
    record(o);
    if (!marketable) return { resting: { oid: o.oid, ...cl } };
    fill(o, mark, true);
    return { filled: { totalSz: toWire(o.origSz), avgPx: toWire(mark), oid: o.oid, ...cl } };
  }

  function cancelOne(owner: string, asset: number | undefined, find: (o: SimOrder) => boolean): unknown {
    const o = [...orders.values()].find((x) => x.owner === owner && x.asset === asset && find(x));
    if (!o || (o.status !== 'open' && o.status !== 'triggered'))
      return { error: `Order was never placed, already canceled, or filled. asset=${asset}` };
    o.status = 'canceled';
    o.statusTimestamp = Date.now();
    return 'success';
  }

  async function l1(body: ExchangeBody, res: ServerResponse): Promise<unknown> {
    const action = body.action as L1Action;
    if (body.vaultAddress != null && !isAddress(body.vaultAddress)) throw new BadBody(DESERIALIZE);
    let signer: string;
    try {
      signer = await recoverL1Signer(action, body.nonce, body.signature, {
        vaultAddress: body.vaultAddress,
        expiresAfter: body.expiresAfter,
        network,
      });
    } catch {
      throw new BadBody(DESERIALIZE);
    }
    const owner = masterOf(signer);
    if (!owner) throw new Refused(`User or API Wallet ${signer} does not exist.`);
    if (body.vaultAddress != null) throw new Refused(`Vault not registered: ${lc(body.vaultAddress)}`);
    if (body.expiresAfter != null && Number(body.expiresAfter) < Date.now())
      throw new Refused(`Action expired at ${body.expiresAfter}`);
    useNonce(signer, body.nonce);
    if (action.type === 'order') {
      if (!Array.isArray(action.orders) || typeof action.grouping !== 'string') throw new BadBody(DESERIALIZE);
      await poke();
      const statuses = [];
      for (const w of action.orders) statuses.push(await placeOne(owner, w));
      if (statuses.some((s) => !('error' in s)) && faults.dropAck(res)) return undefined;
      return { status: 'ok', response: { type: 'order', data: { statuses } } };
    }
    if (action.type === 'cancel' || action.type === 'cancelByCloid') {
      if (!Array.isArray(action.cancels)) throw new BadBody(DESERIALIZE);
      await poke();
      const statuses = (action.cancels as CancelWire[]).map((c) =>
        action.type === 'cancel'
          ? cancelOne(owner, c?.a, (o) => o.oid === c?.o)
          : cancelOne(owner, c?.asset, (o) => o.cloid !== null && o.cloid === lc(c?.cloid)),
      );
      return { status: 'ok', response: { type: 'cancel', data: { statuses } } };
    }
    throw new Refused(`Unsupported action type ${String(action.type)} in simulator`);
  }

  // --- info --------------------------------------------------------------------------------

  const ORDER_TYPE_LABEL = (o: SimOrder): OrderWithStatus['order']['orderType'] =>
    o.trigger
      ? `${o.trigger.tpsl === 'tp' ? 'Take Profit' : 'Stop'} ${o.trigger.isMarket ? 'Market' : 'Limit'}`
      : o.tif === 'FrontendMarket'
        ? 'Market'
        : 'Limit';
  /** What every order listing starts with: coin, side, limit price, remaining size, oid, placement time. */
  const orderHead = (o: SimOrder) => ({
    coin: o.spec.base,
    side: o.isBuy ? ('B' as const) : ('A' as const),
    limitPx: toWire(o.limitPx),
    sz: toWire(o.origSz.sub(o.filled)),
    oid: o.oid,
    timestamp: o.timestamp,
  });
  const wireOrder = (o: SimOrder): OrderWithStatus => ({
    order: {
      ...orderHead(o),
      triggerCondition: o.trigger
        ? `Price ${(o.trigger.tpsl === 'sl') === o.isBuy ? 'above' : 'below'} ${toWire(o.trigger.triggerPx)}`
        : 'N/A',
      isTrigger: o.trigger !== null,
      triggerPx: o.trigger ? toWire(o.trigger.triggerPx) : '0.0',
      children: [],
      isPositionTpsl: false,
      reduceOnly: o.reduceOnly,
      orderType: ORDER_TYPE_LABEL(o),
      origSz: toWire(o.origSz),
      tif: o.tif,
      cloid: o.cloid,
    },
    status: o.status,
    statusTimestamp: o.statusTimestamp,
  });

  /** `clearinghouseState` of `user` (module doc): its collateral and positions valued at the marks. */
  async function clearinghouse(user: string): Promise<ClearinghouseStateResponse> {
    const held = await Promise.all(
      holdings.positions(user).map(async (p) => {
        const spec = findSymbol('hyperliquid', p.symbol)!;
        const mark = (await markOf(spec)) ?? p.avgEntryPrice;
        const leverage = Math.min(DEFAULT_LEVERAGE, spec.maxLeverage);
        const value = p.qty.abs().mul(mark);
        const upnl = mark.sub(p.avgEntryPrice).mul(p.qty);
        // Return on equity: unrealised PnL over the margin the position took at entry.
        const entryMargin = p.qty.abs().mul(p.avgEntryPrice).div(leverage);
        const roe = entryMargin.isZero() ? new Decimal(0) : upnl.div(entryMargin);
        return { p, spec, leverage, value, upnl, roe, margin: value.div(leverage) };
      }),
    );
    const sum = (f: (h: (typeof held)[number]) => Decimal) => held.reduce((s, h) => s.add(f(h)), new Decimal(0));
    const accountValue = holdings.marginCash(user).add(sum((h) => h.upnl));
    const used = sum((h) => h.margin);
    const summary = {
      accountValue: usdc(accountValue),
      totalNtlPos: usdc(sum((h) => h.value)),
      totalRawUsd: usdc(accountValue.sub(sum((h) => h.upnl))),
      totalMarginUsed: usdc(used),
    };
    return {
      marginSummary: summary,
      crossMarginSummary: summary,
      crossMaintenanceMarginUsed: usdc(used.div(2)),
      withdrawable: usdc(Decimal.max(0, accountValue.sub(used))),
      assetPositions: held.map((h) => ({
        type: 'oneWay',
        position: {
          coin: h.spec.base,
          szi: toWire(h.p.qty),
          entryPx: usdc(h.p.avgEntryPrice),
          positionValue: usdc(h.value),
          unrealizedPnl: usdc(h.upnl),
          returnOnEquity: toWire(h.roe.toDecimalPlaces(8, Decimal.ROUND_HALF_EVEN)),
          liquidationPx: null,
          leverage: { type: 'cross', value: h.leverage },
          marginUsed: usdc(h.margin),
          maxLeverage: h.spec.maxLeverage,
          cumFunding: { allTime: '0.0', sinceOpen: '0.0', sinceChange: '0.0' },
        },
      })),
      time: Date.now(),
    };
  }

  /** An account's view: its orders and fills (without the owner key). */
  interface Mine {
    user: string;
    orders: SimOrder[];
    fills: Fill[];
  }

  /** The working orders, newest first. */
  const openOf = (list: SimOrder[]) => list.filter(working).sort((a, b) => b.timestamp - a.timestamp || b.oid - a.oid);

  /** `openOrders` entry: the short form (`cloid` and `reduceOnly: true` only when set). */
  const openOrder = (o: SimOrder): OpenOrdersResponse[number] => ({
    ...orderHead(o),
    origSz: toWire(o.origSz),
    ...(o.cloid ? { cloid: o.cloid } : {}),
    ...(o.reduceOnly ? { reduceOnly: true as const } : {}),
  });

  /** The account `POST /info` types (by the master's `user`), each answered from that account's orders and fills. */
  const ACCOUNT_INFO: Record<string, (mine: Mine, body: InfoBody) => unknown> = {
    orderStatus: ({ orders: mine }, body): OrderStatusResponse => {
      const key = body.oid;
      if (key === undefined || key === null) throw new BadBody(DESERIALIZE);
      const o =
        typeof key === 'number'
          ? mine.find((x) => x.oid === key)
          : typeof key === 'string'
            ? mine.find((x) => x.cloid !== null && x.cloid === lc(key))
            : undefined;
      return o ? { status: 'order', order: wireOrder(o) } : { status: 'unknownOid' };
    },
    historicalOrders: ({ orders: mine }): HistoricalOrdersResponse =>
      mine
        .sort((a, b) => b.timestamp - a.timestamp || b.oid - a.oid)
        .slice(0, PAGE)
        .map(wireOrder),
    openOrders: ({ orders: mine }): OpenOrdersResponse => openOf(mine).map(openOrder),
    frontendOpenOrders: ({ orders: mine }): FrontendOpenOrdersResponse => openOf(mine).map((o) => wireOrder(o).order),
    clearinghouseState: ({ user }) => clearinghouse(user),
    // Every account keeps perp and spot apart, never set otherwise: what a new account answers.
    userAbstraction: (): UserAbstractionResponse => 'default',
    userFills: ({ fills: mine }): UserFillsResponse =>
      mine.sort((a, b) => b.time - a.time || b.tid - a.tid).slice(0, PAGE),
    userFillsByTime: ({ fills: mine }, body): UserFillsResponse => {
      if (!Number.isSafeInteger(body.startTime)) throw new BadBody(DESERIALIZE);
      const start = body.startTime as number;
      const end = Number.isSafeInteger(body.endTime) ? (body.endTime as number) : Infinity;
      return mine
        .filter((f) => f.time >= start && f.time <= end)
        .sort((a, b) => a.time - b.time || a.tid - b.tid)
        .slice(0, PAGE);
    },
  };

  /** The marks of the routed coins (coin → mark, null without one). */
  async function coinMarks(): Promise<Map<string, Decimal | null>> {
    return new Map(await Promise.all(HYPERLIQUID_SYMBOLS.map(async (s) => [s.base, await markOf(s)] as const)));
  }

  /** The resting limit orders of every owner on `coin`, as the book shows them (trigger orders not yet fired are hidden). */
  const restingOf = (coin: string): markets.BookOrder[] =>
    [...orders.values()]
      .filter((o) => working(o) && o.spec.base === coin && (!o.trigger || o.triggered))
      .map((o) => ({ isBuy: o.isBuy, px: o.limitPx, sz: o.origSz.sub(o.filled) }));

  /** The notional (USD) and size (coins) of the simulator's fills of `coin` over the last day. */
  const volumeOf = (coin: string): markets.DayVolume => {
    const since = Date.now() - DAY_MS;
    return fills
      .filter((f) => f.coin === coin && f.time >= since)
      .reduce((v, f) => ({ notional: v.notional.add(new Decimal(f.px).mul(f.sz)), base: v.base.add(f.sz) }), {
        notional: new Decimal(0),
        base: new Decimal(0),
      });
  };

  /** The public (market data) `POST /info` types: answered from the symbol table, the marks and the resting orders. */
  const MARKET_INFO: Record<string, (body: InfoBody) => Promise<unknown>> = {
    meta: async () => markets.meta(),
    metaAndAssetCtxs: async () => markets.metaAndAssetCtxs(await coinMarks(), restingOf, volumeOf),
    allMids: async () => markets.allMids(await coinMarks(), restingOf),
    l2Book: async (body) => {
      if (typeof body.coin !== 'string') throw new BadBody(DESERIALIZE);
      const spec = specOfCoin(body.coin);
      return markets.l2Book(body.coin, spec ? await markOf(spec) : null, restingOf(body.coin));
    },
    spotMeta: async () => markets.spotMeta(),
    spotMetaAndAssetCtxs: async () => markets.spotMetaAndAssetCtxs(),
    perpDexs: async () => markets.perpDexs(),
    outcomeMeta: async () => markets.outcomeMeta(),
  };

  async function info(body: InfoBody): Promise<unknown> {
    const type = String(body.type);
    if (body.dex !== undefined && body.dex !== '') throw new BadBody(DESERIALIZE);
    await poke();
    if (Object.hasOwn(MARKET_INFO, type)) return MARKET_INFO[type](body);
    if (!Object.hasOwn(ACCOUNT_INFO, type) || !isAddress(body.user)) throw new BadBody(DESERIALIZE);
    const user = lc(body.user);
    const mine: Mine = {
      user,
      orders: [...orders.values()].filter((o) => o.owner === user),
      fills: fills.filter((f) => f.owner === user).map(({ owner: _o, ...f }) => f),
    };
    return ACCOUNT_INFO[type](mine, body);
  }

  // --- routing -----------------------------------------------------------------------------

  async function route(req: IncomingMessage, res: ServerResponse, raw: string): Promise<unknown> {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    if (req.method !== 'POST' || (path !== '/exchange' && path !== '/info')) return NOT_FOUND_TEXT;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new BadBody(DESERIALIZE);
    }
    if (!parsed || typeof parsed !== 'object') throw new BadBody(DESERIALIZE);
    if (path === '/info') return info(parsed as InfoBody);
    const body = parsed as Partial<ExchangeBody>;
    if (
      !body.action ||
      typeof body.action !== 'object' ||
      typeof body.action.type !== 'string' ||
      !Number.isSafeInteger(body.nonce) ||
      !body.signature
    )
      throw new BadBody(DESERIALIZE);
    const checked = body as ExchangeBody;
    return checked.action.type === 'approveAgent' ? approveAgent(checked) : l1(checked, res);
  }

  const fail = (err: unknown) => {
    if (err instanceof Refused) return new Reply(200, { status: 'err', response: err.message });
    return err instanceof BadBody ? new Reply(422, err.message, true) : new Reply(500, messageOf(err), true);
  };
  const ws = hyperliquidWs(
    {
      book: async (coin) => {
        const spec = specOfCoin(coin);
        return spec ? markets.l2Book(coin, await markOf(spec), restingOf(coin)) : null;
      },
      mids: async () => markets.allMids(await coinMarks(), restingOf),
      recentTrades: (coin) =>
        fills
          .filter((f) => f.coin === coin)
          .slice(-RECENT_TRADES)
          .map(tradeOf),
    },
    { intervalMs: opts.wsIntervalMs, resendMs: opts.wsResendMs },
  );
  const common = await listenWithSocket({ port: opts.port, route, fail, faults }, ws);

  return {
    ...common,
    clientOrderIds: () => accepted.clientOrderIds(),
    async injectOrder(owner, o) {
      const spec = injectedSpec('hyperliquid', o.symbol);
      const order = newOrder({
        cloid: null,
        owner: lc(owner),
        spec,
        asset: Number(spec.venueSymbol),
        isBuy: o.side === 'buy',
        limitPx: new Decimal(o.price),
        origSz: new Decimal(o.qty),
        reduceOnly: false,
        tif: o.tif ?? 'Gtc',
        trigger: null,
      });
      record(order);
      const mark = await markOf(spec);
      if (mark && crosses(order.isBuy, order.limitPx, mark)) fill(order, mark, true);
      return { venueOrderId: String(order.oid) };
    },
    poke,
    ...addressControls(accepted, holdings, funded),
    agents(owner) {
      return [...(approvals.get(lc(owner)) ?? new Map<string, Agent>()).entries()].map(([name, a]) => ({
        name,
        address: a.address,
        validUntil: a.validUntil,
      }));
    },
  };
}

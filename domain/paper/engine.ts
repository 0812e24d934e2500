/**
 * The paper venue's matching engine (docs/api.md §1 "internalised", §2.6; docs/architecture.md "paper venue").
 * Pure: no I/O, no clock. Orders match against the canonical mark and the recorded L2 book
 * re-centred on it, with Hyperliquid semantics:
 * - market: walks the book (taker), one fill per level; past the last level the remainder is canceled;
 * - limit: a crossing limit walks levels at or better than its price (taker), the remainder rests
 *   (`Gtc`, `Alo`) or is canceled (`Ioc`); `Alo` that would cross is rejected; a resting limit fills
 *   its whole remainder at its price (maker) once the mark reaches it;
 * - stop / take_profit: trigger on the mark, then execute as market; stop_limit triggers as a stop
 *   and then behaves as a limit at `stopLimitPrice`;
 * - reduceOnly: never increases exposure: clipped to the position, rejected when it would add.
 * Sizes in contracts, prices in USD, all Decimals.
 */
import { Decimal, ZERO } from '../decimal.js';
import type { BookLevel, MarkTick } from '../market/types.js';

export type Side = 'buy' | 'sell';
export type OrderType = 'market' | 'limit' | 'stop' | 'stop_limit' | 'take_profit';
export type TimeInForce = 'Gtc' | 'Ioc' | 'Alo';

/** An order as the engine sees it; `qty` is the remaining quantity (contracts). */
export interface PaperOrder {
  side: Side;
  type: OrderType;
  qty: Decimal;
  price?: Decimal;
  triggerPrice?: Decimal;
  stopLimitPrice?: Decimal;
  reduceOnly: boolean;
  timeInForce: TimeInForce;
  /** True once a stop / stop_limit / take_profit has triggered. */
  triggered?: boolean;
}

/** One execution: price USD, qty contracts, taker (crossed the book) or maker (rested). */
export interface EngineFill {
  price: Decimal;
  qty: Decimal;
  liquidity: 'taker' | 'maker';
}

/**
 * What happened to an order. Reasons are stable snake_case: `alo_would_cross`,
 * `reduce_only_would_increase`, `no_liquidity`, `book_exhausted`, `ioc_remainder`, `ioc_no_cross`.
 */
export type MatchResult =
  | { kind: 'filled'; fills: EngineFill[]; filledQty: Decimal; avgPrice: Decimal }
  | {
      kind: 'partial_canceled';
      fills: EngineFill[];
      filledQty: Decimal;
      avgPrice: Decimal;
      canceledQty: Decimal;
      reason: string;
    }
  | { kind: 'resting'; order: PaperOrder; fills: EngineFill[]; filledQty: Decimal }
  | { kind: 'canceled'; reason: string }
  | { kind: 'rejected'; reason: string };

/** +1 for buy, −1 for sell. */
const dir = (side: Side) => (side === 'buy' ? 1 : -1);

/**
 * Trigger direction per (type, side): `up` triggers when mark ≥ trigger, `down` when mark ≤ trigger.
 * A buy stop protects a short (price rising), a buy take-profit takes a short's profit (price falling).
 */
const TRIGGER_DIRECTION: Record<'stop' | 'stop_limit' | 'take_profit', Record<Side, 'up' | 'down'>> = {
  stop: { buy: 'up', sell: 'down' },
  stop_limit: { buy: 'up', sell: 'down' },
  take_profit: { buy: 'down', sell: 'up' },
};

function isTriggered(order: PaperOrder, mark: Decimal): boolean {
  if (order.type === 'market' || order.type === 'limit' || order.triggered) return true;
  const trigger = order.triggerPrice!;
  return TRIGGER_DIRECTION[order.type][order.side] === 'up' ? mark.gte(trigger) : mark.lte(trigger);
}

/** The limit price in force once triggered (undefined = market). */
function limitOf(order: PaperOrder): Decimal | undefined {
  if (order.type === 'limit') return order.price;
  if (order.type === 'stop_limit') return order.stopLimitPrice;
  return undefined;
}

/** Whether a limit crosses the book's opposite touch. */
function limitCrossesBook(side: Side, limit: Decimal, tick: MarkTick): boolean {
  const touch = side === 'buy' ? tick.book.asks[0]?.price : tick.book.bids[0]?.price;
  return touch !== undefined && (side === 'buy' ? limit.gte(touch) : limit.lte(touch));
}

/** Clips a reduce-only order to the position; null when it would increase exposure. */
function clipReduceOnly(order: PaperOrder, positionQty: Decimal): PaperOrder | null {
  if (!order.reduceOnly) return order;
  if (positionQty.isZero() || positionQty.s === dir(order.side)) return null;
  return { ...order, qty: Decimal.min(order.qty, positionQty.abs()) };
}

/** Walks the opposite side of the book up to `limit` (none = market); taker fills. */
function walk(
  side: Side,
  qty: Decimal,
  levels: BookLevel[],
  limit?: Decimal,
): { fills: EngineFill[]; filled: Decimal } {
  const fills: EngineFill[] = [];
  let left = qty;
  for (const level of levels) {
    if (left.lte(0)) break;
    if (limit && (side === 'buy' ? level.price.gt(limit) : level.price.lt(limit))) break;
    const take = Decimal.min(left, level.size);
    if (take.lte(0)) continue;
    fills.push({ price: level.price, qty: take, liquidity: 'taker' });
    left = left.minus(take);
  }
  return { fills, filled: qty.minus(left) };
}

function avg(fills: EngineFill[]): Decimal {
  const qty = fills.reduce((s, f) => s.plus(f.qty), ZERO);
  return fills.reduce((s, f) => s.plus(f.price.times(f.qty)), ZERO).div(qty);
}

/** Executes a triggered order now: market walk, or limit cross-then-rest per time in force. */
function execute(order: PaperOrder, tick: MarkTick): MatchResult {
  const levels = order.side === 'buy' ? tick.book.asks : tick.book.bids;
  const limit = limitOf(order);
  if (limit && order.timeInForce === 'Alo' && limitCrossesBook(order.side, limit, tick))
    return { kind: 'rejected', reason: 'alo_would_cross' };
  if (!limit && levels.length === 0) return { kind: 'rejected', reason: 'no_liquidity' };
  const { fills, filled } = walk(order.side, order.qty, levels, limit);
  const rest = order.qty.minus(filled);
  if (rest.isZero()) return { kind: 'filled', fills, filledQty: filled, avgPrice: avg(fills) };
  if (!limit || order.timeInForce === 'Ioc') {
    if (filled.isZero()) return { kind: 'canceled', reason: limit ? 'ioc_no_cross' : 'no_liquidity' };
    return {
      kind: 'partial_canceled',
      fills,
      filledQty: filled,
      avgPrice: avg(fills),
      canceledQty: rest,
      reason: limit ? 'ioc_remainder' : 'book_exhausted',
    };
  }
  return { kind: 'resting', order: { ...order, qty: rest, triggered: true }, fills, filledQty: filled };
}

/**
 * Matches an order on arrival against the tick. `positionQty` is the account's signed position
 * in the symbol (contracts, + long, − short).
 */
export function matchOnArrival(order: PaperOrder, tick: MarkTick, positionQty: Decimal): MatchResult {
  const clipped = clipReduceOnly(order, positionQty);
  if (!clipped) return { kind: 'rejected', reason: 'reduce_only_would_increase' };
  if (!isTriggered(clipped, tick.mark)) return { kind: 'resting', order: clipped, fills: [], filledQty: ZERO };
  return execute(
    { ...clipped, triggered: clipped.type !== 'market' && clipped.type !== 'limit' ? true : clipped.triggered },
    tick,
  );
}

/**
 * Re-evaluates a resting order on a new mark. Returns `resting` with no fills when nothing happens.
 * A triggered limit (or stop_limit) fills its whole remainder at its limit price as maker once the
 * mark reaches it; a stop or take-profit that triggers executes as market.
 */
export function matchOnMark(order: PaperOrder, tick: MarkTick, positionQty: Decimal): MatchResult {
  if (!isTriggered(order, tick.mark)) return { kind: 'resting', order, fills: [], filledQty: ZERO };
  const clipped = clipReduceOnly(order, positionQty);
  if (!clipped) return { kind: 'canceled', reason: 'reduce_only_would_increase' };
  const limit = limitOf(clipped);
  if (!limit) return execute({ ...clipped, triggered: true }, tick);
  if (!order.triggered && order.type === 'stop_limit') {
    // Just triggered: behaves as a new limit at stopLimitPrice (crosses now, or rests).
    return execute(
      { ...clipped, triggered: true, timeInForce: clipped.timeInForce === 'Alo' ? 'Gtc' : clipped.timeInForce },
      tick,
    );
  }
  const reached = clipped.side === 'buy' ? tick.mark.lte(limit) : tick.mark.gte(limit);
  if (!reached)
    return { kind: 'resting', order: { ...clipped, triggered: order.triggered }, fills: [], filledQty: ZERO };
  const fills = [{ price: limit, qty: clipped.qty, liquidity: 'maker' as const }];
  return { kind: 'filled', fills, filledQty: clipped.qty, avgPrice: limit };
}

/** Cheap predicate for the trigger watcher: would this resting order act on this mark? */
export function crosses(order: PaperOrder, mark: Decimal): boolean {
  if (!isTriggered(order, mark)) return false;
  if (order.type === 'stop' || order.type === 'take_profit') return true;
  if (order.type === 'stop_limit' && !order.triggered) return true;
  const limit = limitOf(order)!;
  return order.side === 'buy' ? mark.lte(limit) : mark.gte(limit);
}

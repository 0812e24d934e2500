/**
 * How the venue simulators match against the platform's marks: marks as Decimals, the walk over
 * working orders with their marks (`poke()`), marketable limits, stop / take-profit triggers, and
 * the symbol of an order placed in a venue's own web interface. Each venue's own rules (fees,
 * statuses, what a fired trigger becomes) stay in its simulator.
 */
import { Decimal } from '../domain/decimal.js';
import { findSymbol, type SymbolSpec } from '../domain/market/symbols.js';
import type { SimulatorOptions } from './harness.js';

/** The mark of a symbol (its platform `symbol`) as a Decimal, null without a mark, from the simulator's `markOf`. */
export function decimalMarks(
  markOf: SimulatorOptions['markOf'],
): (spec: { symbol: string }) => Promise<Decimal | null> {
  return async (spec) => {
    const m = await markOf(spec.symbol);
    return m == null ? null : new Decimal(m);
  };
}

/**
 * The working orders of `orders` (those `working` keeps), each with its mark (`markOf`: a price, or
 * a venue's quote), in order; orders without a mark are skipped. What a `poke()` pass walks.
 */
export async function* markedOrders<O, M>(
  orders: Iterable<O>,
  working: (o: O) => boolean,
  markOf: (o: O) => Promise<M | null>,
): AsyncGenerator<[O, M]> {
  for (const o of orders) {
    if (!working(o)) continue;
    const mark = await markOf(o);
    if (mark) yield [o, mark];
  }
}

/** Whether a limit order is marketable at `mark`: a buy when mark ≤ limit, a sell when mark ≥ limit. */
export const crosses = (isBuy: boolean, limit: Decimal, mark: Decimal): boolean =>
  isBuy ? mark.lte(limit) : mark.gte(limit);

/** Whether a trigger order fires at `mark`: a stop buy / take-profit sell when mark ≥ trigger, a stop sell / take-profit buy when mark ≤ trigger. */
export function triggerReached(kind: 'stop' | 'takeProfit', isBuy: boolean, trigger: Decimal, mark: Decimal): boolean {
  const up = (kind === 'stop') === isBuy;
  return up ? mark.gte(trigger) : mark.lte(trigger);
}

/** The venue's symbol spec of a platform symbol an injected order names. @throws Error `unknown symbol <symbol>`. */
export function injectedSpec(venue: string, symbol: string): SymbolSpec & { venueSymbol: string } {
  const spec = findSymbol(venue, symbol);
  if (!spec?.venueSymbol) throw new Error(`unknown symbol ${symbol}`);
  return spec as SymbolSpec & { venueSymbol: string };
}

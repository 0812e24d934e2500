/**
 * What a venue simulator keeps of each owner's money and positions, for its account reads (Hyperliquid
 * `clearinghouseState`, Aster `GET /fapi/v3/account`, Kalshi `GET /portfolio/balance` and
 * `/portfolio/positions`, Polymarket `GET /balance-allowance`): the collateral a test funds
 * ({@link Holdings.fund}, the stand-in for a deposit on the venue) and, per platform symbol, the net
 * position the owner's fills leave (average entry as the paper engine keeps it, domain/paper/position.ts).
 * Sizes in contracts, amounts in USD, all Decimals.
 *
 * Cash is read two ways: on a margin venue (perps) deposits + realised PnL − fees; on a fully paid venue
 * (prediction markets) deposits − what buys cost + what sells brought − fees.
 */
import { Decimal, ZERO } from '../domain/decimal.js';
import { applyFill, FLAT, type PositionState } from '../domain/paper/position.js';

interface Owner {
  deposits: Decimal;
  realized: Decimal;
  fees: Decimal;
  /** Σ sells' notional − Σ buys' notional. */
  flow: Decimal;
  positions: Map<string, PositionState>;
}

/** The owners' holdings of one simulator; owners are keyed as the simulator keys them (lower-case addresses, Kalshi member ids). */
export class Holdings {
  private readonly owners = new Map<string, Owner>();

  private of(owner: string): Owner {
    let o = this.owners.get(owner);
    if (!o) {
      o = { deposits: ZERO, realized: ZERO, fees: ZERO, flow: ZERO, positions: new Map() };
      this.owners.set(owner, o);
    }
    return o;
  }

  /** Credits `amountUsd` (decimal string) to `owner`'s collateral. */
  fund(owner: string, amountUsd: string): void {
    const o = this.of(owner);
    o.deposits = o.deposits.plus(amountUsd);
  }

  /**
   * Books one fill of `owner` on `symbol`: the position moves, the fee is charged, the notional flows.
   * Returns the owner's position in `symbol` before the fill and the PnL the fill realised.
   */
  fill(
    owner: string,
    symbol: string,
    fill: { side: 'buy' | 'sell'; qty: Decimal; price: Decimal; feeUsd: Decimal },
    ts = Date.now(),
  ): { before: Decimal; realized: Decimal } {
    const o = this.of(owner);
    const prior = o.positions.get(symbol) ?? FLAT;
    const { position } = applyFill(prior, fill, ts);
    o.positions.set(symbol, position);
    const realized = position.realizedPnl.minus(prior.realizedPnl);
    o.realized = o.realized.plus(realized);
    o.fees = o.fees.plus(fill.feeUsd);
    const notional = fill.qty.times(fill.price);
    o.flow = fill.side === 'sell' ? o.flow.plus(notional) : o.flow.minus(notional);
    return { before: prior.qty, realized };
  }

  /** A margin venue's cash: deposits + realised PnL − fees. */
  marginCash(owner: string): Decimal {
    const o = this.of(owner);
    return o.deposits.plus(o.realized).minus(o.fees);
  }

  /** A fully paid venue's cash: deposits + sells − buys − fees. */
  paidCash(owner: string): Decimal {
    const o = this.of(owner);
    return o.deposits.plus(o.flow).minus(o.fees);
  }

  /** The owner's open positions, by platform symbol. */
  positions(owner: string): { symbol: string; qty: Decimal; avgEntryPrice: Decimal }[] {
    return [...this.of(owner).positions]
      .filter(([, p]) => !p.qty.isZero())
      .map(([symbol, p]) => ({ symbol, qty: p.qty, avgEntryPrice: p.avgEntryPrice }));
  }
}

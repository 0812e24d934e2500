/**
 * Replay of an account's event log (docs/api.md §4.7 statements): the cash and position state of every
 * venue after each state-changing event, with no table of its own. (`/accounts/{id}/state/history`
 * reads the stored snapshots of db/state-snapshots.ts instead, which carry margin and mark-based equity.)
 *
 * Event kinds that change state (everything else — intents, open orders, position frames,
 * imported manual trades — is ignored; manual trades never move cash):
 * - `funding.deposit`     cash += amountUsd
 * - `funding.withdrawal`  cash −= |amountUsd|
 * - `funding.transfer`    cash += amountUsd (signed: − out of the account, + into it); counted with the
 *                         deposits when positive, with the withdrawals when negative
 * - `funding.payment`     cash += amountUsd (signed, negative = the account paid); funding += amountUsd
 * - `fill.executed`       cash += realizedPnlUsd − feeUsd; realised += realizedPnlUsd; fees += feeUsd;
 *                         the symbol's net position moves by ±qty (average entry as the paper
 *                         engine keeps it, domain/paper/position.ts) and its last price becomes the fill price.
 *
 * All amounts are USD Decimals, sizes signed contracts (+ long, − short). Pure: no I/O.
 */
import { Decimal, ZERO, fmt } from '../decimal.js';
import { applyFill, FLAT, type PositionState } from '../paper/position.js';

/** One row of the account event log, as the replay needs it. */
export interface LogEvent {
  seq: number;
  kind: string;
  venue: string | null;
  data: Record<string, unknown>;
  createdAt: Date;
}

/** The event kinds that change cash or positions; the only ones the replay loads. */
export const STATE_EVENT_KINDS = [
  'funding.deposit',
  'funding.withdrawal',
  'funding.transfer',
  'funding.payment',
  'fill.executed',
] as const;

/** Running state of one venue of the account. */
export interface VenueLedger {
  /** Cash balance, USD. */
  cash: Decimal;
  /** Cumulative realised PnL of fills (before fees), USD. */
  realized: Decimal;
  /** Cumulative fees paid, USD. */
  fees: Decimal;
  /** Cumulative funding payments (signed), USD. */
  funding: Decimal;
  /** Cumulative deposits, USD. */
  deposits: Decimal;
  /** Cumulative withdrawals (a positive amount), USD. */
  withdrawals: Decimal;
  /** Net position per symbol. */
  positions: Map<string, PositionState>;
  /** Last fill price per symbol, USD. */
  lastPrice: Map<string, Decimal>;
}

/** One point of the state series (docs/api.md §4.3 `state/history`), every amount a USD decimal string. */
export interface StatePoint {
  /** The event's seq on the account log. */
  seq: number;
  /** The event's kind. */
  kind: string;
  /** When the event was logged, ISO 8601. */
  ts: string;
  venue: string;
  /** Cash balance after the event: deposits − withdrawals + realised PnL − fees + funding. */
  balanceUsd: string;
  /** Cumulative realised PnL of fills on the venue, before fees. */
  realizedPnlUsd: string;
  /** Cumulative fees. */
  feesUsd: string;
  /** Cumulative funding payments, signed (negative = paid). */
  fundingUsd: string;
  /** Open positions (symbols with a non-zero net quantity). */
  positions: number;
  /** Σ |qty| × last fill price of the symbol, over open positions. */
  notionalUsd: string;
  /** balance + Σ (last fill price − average entry) × qty over open positions. */
  equityUsd: string;
}

/** `data[key]` as a decimal (0 when absent or empty); throws a TypeError naming the key when it is neither a string nor a number. */
const amountOf = (data: Record<string, unknown>, key: string): Decimal => {
  const v = data[key];
  if (v == null || v === '') return ZERO;
  if (typeof v !== 'string' && typeof v !== 'number')
    throw new TypeError(`event field ${key} is not a decimal: ${JSON.stringify(v)}`);
  return new Decimal(String(v));
};

const emptyLedger = (): VenueLedger => ({
  cash: ZERO,
  realized: ZERO,
  fees: ZERO,
  funding: ZERO,
  deposits: ZERO,
  withdrawals: ZERO,
  positions: new Map(),
  lastPrice: new Map(),
});

/** The venue an event belongs to: its `venue` column, else `data.venue`, else `paper`. */
export function venueOf(e: LogEvent): string {
  return e.venue ?? (typeof e.data.venue === 'string' ? e.data.venue : 'paper');
}

/**
 * Applies one event to `ledger` in place. Returns false (and leaves the ledger alone) for a kind
 * that does not change state.
 */
export function applyEvent(ledger: VenueLedger, e: LogEvent): boolean {
  switch (e.kind) {
    case 'funding.deposit': {
      const a = amountOf(e.data, 'amountUsd');
      ledger.cash = ledger.cash.plus(a);
      ledger.deposits = ledger.deposits.plus(a);
      return true;
    }
    case 'funding.withdrawal': {
      const a = amountOf(e.data, 'amountUsd').abs();
      ledger.cash = ledger.cash.minus(a);
      ledger.withdrawals = ledger.withdrawals.plus(a);
      return true;
    }
    case 'funding.transfer': {
      const a = amountOf(e.data, 'amountUsd');
      ledger.cash = ledger.cash.plus(a);
      if (a.isNeg()) ledger.withdrawals = ledger.withdrawals.plus(a.abs());
      else ledger.deposits = ledger.deposits.plus(a);
      return true;
    }
    case 'funding.payment': {
      const a = amountOf(e.data, 'amountUsd');
      ledger.cash = ledger.cash.plus(a);
      ledger.funding = ledger.funding.plus(a);
      return true;
    }
    case 'fill.executed': {
      const realized = amountOf(e.data, 'realizedPnlUsd');
      const fee = amountOf(e.data, 'feeUsd');
      ledger.cash = ledger.cash.plus(realized).minus(fee);
      ledger.realized = ledger.realized.plus(realized);
      ledger.fees = ledger.fees.plus(fee);
      const symbol = String(e.data.symbol);
      const price = amountOf(e.data, 'price');
      const side = e.data.side === 'sell' ? 'sell' : 'buy';
      const next = applyFill(
        ledger.positions.get(symbol) ?? FLAT,
        { side, qty: amountOf(e.data, 'qty'), price },
        e.createdAt.getTime(),
      ).position;
      ledger.positions.set(symbol, next);
      ledger.lastPrice.set(symbol, price);
      return true;
    }
    default:
      return false;
  }
}

/** The point of docs/api.md §4.3 for `ledger` as it stands after event `e`. */
export function pointOf(ledger: VenueLedger, e: LogEvent, venue: string): StatePoint {
  let notional = ZERO;
  let unrealized = ZERO;
  let open = 0;
  for (const [symbol, p] of ledger.positions) {
    if (p.qty.isZero()) continue;
    const last = ledger.lastPrice.get(symbol) ?? p.avgEntryPrice;
    open++;
    notional = notional.plus(p.qty.abs().times(last));
    unrealized = unrealized.plus(last.minus(p.avgEntryPrice).times(p.qty));
  }
  return {
    seq: e.seq,
    kind: e.kind,
    ts: e.createdAt.toISOString(),
    venue,
    balanceUsd: fmt(ledger.cash),
    realizedPnlUsd: fmt(ledger.realized),
    feesUsd: fmt(ledger.fees),
    fundingUsd: fmt(ledger.funding),
    positions: open,
    notionalUsd: fmt(notional),
    equityUsd: fmt(ledger.cash.plus(unrealized)),
  };
}

/**
 * Replays `events` (any order; sorted by seq here) and returns one {@link StatePoint} per
 * state-changing event, oldest first, each carrying the state of the event's venue.
 */
export function replayPoints(events: LogEvent[]): StatePoint[] {
  const ledgers = new Map<string, VenueLedger>();
  const out: StatePoint[] = [];
  for (const e of [...events].sort((a, b) => a.seq - b.seq)) {
    const venue = venueOf(e);
    const ledger = ledgers.get(venue) ?? emptyLedger();
    ledgers.set(venue, ledger);
    if (applyEvent(ledger, e)) out.push(pointOf(ledger, e, venue));
  }
  return out;
}

/** A fresh, empty ledger (for callers that replay by hand, e.g. statements). */
export function newLedger(): VenueLedger {
  return emptyLedger();
}

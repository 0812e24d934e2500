/**
 * Monthly account statements (docs/api.md §4.7 "Statement documents"), built from the account event log
 * (cash: deposits, withdrawals, fills, funding payments) and the account's round trips. Pure: the
 * route loads rows, this module does the Decimal arithmetic, csv.ts and pdf.ts render.
 *
 * Reconciliation (all USD, the whole account, every venue summed):
 *   closing = opening + deposits − withdrawals + realised PnL − fees + funding
 * where realised PnL and fees are those of the month's fills (the amounts that moved cash).
 * Round trips are listed for reference; a manual (imported, docs/api.md §2.10) round trip never moved
 * cash, so its PnL is reported apart (`manualRoundTripPnlUsd`) and is not in the reconciliation.
 */
import { Decimal, ZERO, fmt } from '../decimal.js';
import { applyEvent, newLedger, venueOf, type LogEvent, type VenueLedger } from './replay.js';

/** `[start, end)` of a `YYYY-MM` month in UTC. */
export function monthBounds(month: string): { start: Date; end: Date } {
  const [y, m] = month.split('-').map(Number);
  return { start: new Date(Date.UTC(y, m - 1, 1)), end: new Date(Date.UTC(y, m, 1)) };
}

/** A round trip as `tradeView` (db/views.ts) shows it. */
export interface RoundTripLine {
  tradeId: string;
  venue: string;
  symbol: string;
  side: string;
  qty: string;
  entryPrice: string;
  exitPrice: string;
  realizedPnlUsd: string;
  feesUsd: string;
  openedAt: string;
  closedAt: string;
  source: string;
}

/** A cash movement that is not a fill: deposit or withdrawal (amount positive; a transfer in or out is one of them) or funding payment (signed). */
export interface CashLine {
  seq: number;
  ts: string;
  venue: string;
  amountUsd: string;
  /** Funding payments: the symbol and funding hour. */
  symbol?: string;
  hour?: string;
}

/** A fill as `fillView` shows it, with its cash effect `netUsd` = realised PnL − fee. */
export interface FillLine {
  seq: number;
  fillId: string;
  executedAt: string;
  venue: string;
  symbol: string;
  side: string;
  qty: string;
  price: string;
  feeUsd: string;
  realizedPnlUsd: string;
  netUsd: string;
}

/** Statement totals, USD decimal strings (withdrawals and fees positive; PnL and funding signed). */
export interface StatementTotals {
  openingBalanceUsd: string;
  depositsUsd: string;
  withdrawalsUsd: string;
  realizedPnlUsd: string;
  feesUsd: string;
  fundingUsd: string;
  closingBalanceUsd: string;
  /** Σ realised PnL of platform round trips closed in the month (equals the fills' when every close is in the month). */
  roundTripPnlUsd: string;
  /** Σ realised PnL of manual round trips closed in the month; not in the cash reconciliation. */
  manualRoundTripPnlUsd: string;
  fills: number;
  roundTrips: number;
}

/** One monthly statement of one account. */
export interface Statement {
  accountId: string;
  accountNumber: string;
  accountName: string;
  month: string;
  /** Inclusive start and exclusive end of the month, ISO (UTC). */
  periodStart: string;
  periodEnd: string;
  generatedAt: string;
  deposits: CashLine[];
  withdrawals: CashLine[];
  fills: FillLine[];
  roundTrips: RoundTripLine[];
  funding: CashLine[];
  totals: StatementTotals;
  /** True when opening + deposits − withdrawals + realised − fees + funding equals the replayed closing balance. */
  reconciles: boolean;
}

const cashOf = (ledgers: Map<string, VenueLedger>) => [...ledgers.values()].reduce((s, l) => s.plus(l.cash), ZERO);
/** A statement cell: '' for null or undefined, the text of a string, number or boolean, else JSON (never `[object Object]`). */
const str = (v: unknown): string =>
  v == null
    ? ''
    : typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'
      ? String(v)
      : JSON.stringify(v);
const sum = (xs: string[]) => xs.reduce((s, x) => s.plus(x), ZERO);

/**
 * Builds the statement of `month` (`YYYY-MM`, UTC) from the account's state events (any order; only
 * those logged before the month's end matter — earlier ones make the opening balance) and the round
 * trips closed in the month. Events are bucketed by the time they were logged (`createdAt`).
 */
export function buildStatement(input: {
  account: { id: string; accountNumber: string; name: string };
  month: string;
  events: LogEvent[];
  roundTrips: RoundTripLine[];
  now?: Date;
}): Statement {
  const { start, end } = monthBounds(input.month);
  const ledgers = new Map<string, VenueLedger>();
  const ledger = (venue: string) => {
    const l = ledgers.get(venue) ?? newLedger();
    ledgers.set(venue, l);
    return l;
  };
  let opening: Decimal | null = null;
  const deposits: CashLine[] = [];
  const withdrawals: CashLine[] = [];
  const funding: CashLine[] = [];
  const fills: FillLine[] = [];
  for (const e of [...input.events].sort((a, b) => a.seq - b.seq)) {
    if (e.createdAt >= end) continue;
    if (e.createdAt >= start && opening === null) opening = cashOf(ledgers);
    const venue = venueOf(e);
    if (!applyEvent(ledger(venue), e) || e.createdAt < start) continue;
    const ts = e.createdAt.toISOString();
    const amount = str(e.data.amountUsd);
    const cash = new Decimal(amount || 0);
    if (e.kind === 'funding.deposit' || (e.kind === 'funding.transfer' && !cash.isNeg()))
      deposits.push({ seq: e.seq, ts, venue, amountUsd: fmt(cash) });
    else if (e.kind === 'funding.withdrawal' || e.kind === 'funding.transfer')
      withdrawals.push({ seq: e.seq, ts, venue, amountUsd: fmt(cash.abs()) });
    else if (e.kind === 'funding.payment')
      funding.push({
        seq: e.seq,
        ts,
        venue,
        amountUsd: fmt(new Decimal(amount || 0)),
        symbol: str(e.data.symbol),
        hour: str(e.data.hour),
      });
    else if (e.kind === 'fill.executed') {
      const realized = new Decimal(str(e.data.realizedPnlUsd) || 0);
      const fee = new Decimal(str(e.data.feeUsd) || 0);
      fills.push({
        seq: e.seq,
        fillId: str(e.data.fillId),
        executedAt: str(e.data.executedAt) || ts,
        venue,
        symbol: str(e.data.symbol),
        side: str(e.data.side),
        qty: str(e.data.qty),
        price: str(e.data.price),
        feeUsd: fmt(fee),
        realizedPnlUsd: fmt(realized),
        netUsd: fmt(realized.minus(fee)),
      });
    }
  }
  const closing = cashOf(ledgers);
  const open = opening ?? closing;
  const t = {
    deposits: sum(deposits.map((d) => d.amountUsd)),
    withdrawals: sum(withdrawals.map((d) => d.amountUsd)),
    realized: sum(fills.map((f) => f.realizedPnlUsd)),
    fees: sum(fills.map((f) => f.feeUsd)),
    funding: sum(funding.map((f) => f.amountUsd)),
  };
  const formula = open.plus(t.deposits).minus(t.withdrawals).plus(t.realized).minus(t.fees).plus(t.funding);
  const roundTrips = [...input.roundTrips].sort(
    (a, b) => a.closedAt.localeCompare(b.closedAt) || a.tradeId.localeCompare(b.tradeId),
  );
  return {
    accountId: input.account.id,
    accountNumber: input.account.accountNumber,
    accountName: input.account.name,
    month: input.month,
    periodStart: start.toISOString(),
    periodEnd: end.toISOString(),
    generatedAt: (input.now ?? new Date()).toISOString(),
    deposits,
    withdrawals,
    fills,
    roundTrips,
    funding,
    totals: {
      openingBalanceUsd: fmt(open),
      depositsUsd: fmt(t.deposits),
      withdrawalsUsd: fmt(t.withdrawals),
      realizedPnlUsd: fmt(t.realized),
      feesUsd: fmt(t.fees),
      fundingUsd: fmt(t.funding),
      closingBalanceUsd: fmt(closing),
      roundTripPnlUsd: fmt(sum(roundTrips.filter((r) => r.source !== 'manual').map((r) => r.realizedPnlUsd))),
      manualRoundTripPnlUsd: fmt(sum(roundTrips.filter((r) => r.source === 'manual').map((r) => r.realizedPnlUsd))),
      fills: fills.length,
      roundTrips: roundTrips.length,
    },
    reconciles: formula.eq(closing),
  };
}

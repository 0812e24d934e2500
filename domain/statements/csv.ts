/**
 * CSV rendering of a monthly statement (docs/api.md §4.7 "Statement documents").
 *
 * One table, header row first, columns {@link STATEMENT_CSV_COLUMNS}. `section` says what a row is:
 * `statement` (metadata: `reference` names the field, `detail` holds the value), `opening_balance`,
 * `deposit`, `withdrawal`, `fill`, `round_trip`, `funding`, then the totals `deposits_total`,
 * `withdrawals_total`, `realized_pnl_total`, `fees_total`, `funding_total`, `round_trip_pnl_total`,
 * `manual_round_trip_pnl_total`, `closing_balance`. USD amounts are in `amountUsd`: the cash effect of a
 * line (deposit +, withdrawal −, fill realised − fee, funding signed; a round trip's realised PnL) and,
 * on totals rows, the magnitude used in closing = opening + deposits − withdrawals + realised − fees + funding.
 */
import { stringify } from 'csv-stringify/sync';
import { fmt, Decimal } from '../decimal.js';
import type { Statement } from './statement.js';

/** The CSV header. */
export const STATEMENT_CSV_COLUMNS = [
  'section',
  'time',
  'venue',
  'symbol',
  'side',
  'qty',
  'price',
  'exitPrice',
  'amountUsd',
  'feeUsd',
  'realizedPnlUsd',
  'reference',
  'detail',
] as const;
type Col = (typeof STATEMENT_CSV_COLUMNS)[number];

/** Renders `s` as CSV text (RFC 4180, `\r\n`-free: `\n` line ends). */
export function statementCsv(s: Statement): string {
  const rows: Partial<Record<Col, string>>[] = [];
  const meta = (reference: string, detail: string) => rows.push({ section: 'statement', reference, detail });
  meta('accountId', s.accountId);
  meta('accountNumber', s.accountNumber);
  meta('accountName', s.accountName);
  meta('month', s.month);
  meta('periodStart', s.periodStart);
  meta('periodEnd', s.periodEnd);
  meta('generatedAt', s.generatedAt);
  meta('reconciles', String(s.reconciles));
  const t = s.totals;
  rows.push({ section: 'opening_balance', time: s.periodStart, amountUsd: t.openingBalanceUsd });
  for (const d of s.deposits)
    rows.push({ section: 'deposit', time: d.ts, venue: d.venue, amountUsd: d.amountUsd, reference: `seq:${d.seq}` });
  for (const w of s.withdrawals)
    rows.push({
      section: 'withdrawal',
      time: w.ts,
      venue: w.venue,
      amountUsd: fmt(new Decimal(w.amountUsd).neg()),
      reference: `seq:${w.seq}`,
    });
  for (const f of s.fills)
    rows.push({
      section: 'fill',
      time: f.executedAt,
      venue: f.venue,
      symbol: f.symbol,
      side: f.side,
      qty: f.qty,
      price: f.price,
      amountUsd: f.netUsd,
      feeUsd: f.feeUsd,
      realizedPnlUsd: f.realizedPnlUsd,
      reference: f.fillId,
    });
  for (const r of s.roundTrips)
    rows.push({
      section: 'round_trip',
      time: r.closedAt,
      venue: r.venue,
      symbol: r.symbol,
      side: r.side,
      qty: r.qty,
      price: r.entryPrice,
      exitPrice: r.exitPrice,
      amountUsd: r.realizedPnlUsd,
      feeUsd: r.feesUsd,
      realizedPnlUsd: r.realizedPnlUsd,
      reference: r.tradeId,
      detail: `${r.source}; opened ${r.openedAt}`,
    });
  for (const f of s.funding)
    rows.push({
      section: 'funding',
      time: f.ts,
      venue: f.venue,
      symbol: f.symbol,
      amountUsd: f.amountUsd,
      reference: `seq:${f.seq}`,
      detail: f.hour ? `hour ${f.hour}` : '',
    });
  const total = (section: string, amountUsd: string, detail = '') =>
    rows.push({ section, time: s.periodEnd, amountUsd, detail });
  total('deposits_total', t.depositsUsd);
  total('withdrawals_total', t.withdrawalsUsd);
  total('realized_pnl_total', t.realizedPnlUsd, `${t.fills} fills`);
  total('fees_total', t.feesUsd);
  total('funding_total', t.fundingUsd);
  total('round_trip_pnl_total', t.roundTripPnlUsd, `${t.roundTrips} round trips; reference only`);
  total('manual_round_trip_pnl_total', t.manualRoundTripPnlUsd, 'imported trades; no cash effect');
  total('closing_balance', t.closingBalanceUsd, 'opening + deposits - withdrawals + realised - fees + funding');
  return stringify(rows, { header: true, columns: [...STATEMENT_CSV_COLUMNS], eof: true });
}

/**
 * PDF rendering of a monthly statement (docs/api.md §4.7 "Statement documents") with pdfkit: an A4
 * document with the summary (the reconciliation), then deposits and withdrawals, fills, round
 * trips and funding payments. USD amounts are shown as stored (full decimal precision).
 */
import PDFDocument from 'pdfkit';
import type { Statement } from './statement.js';

type Doc = InstanceType<typeof PDFDocument>;

const MARGIN = 40;

/** Writes a table: a bold header row, then rows; starts a new page when the page is full. */
function table(doc: Doc, title: string, headers: string[], widths: number[], rows: string[][]) {
  doc.moveDown(0.8).font('Helvetica-Bold').fontSize(11).text(title, MARGIN);
  if (!rows.length) {
    doc.font('Helvetica').fontSize(9).text('None.', MARGIN);
    return;
  }
  const line = (cells: string[], bold: boolean) => {
    if (doc.y > doc.page.height - MARGIN - 20) doc.addPage();
    const y = doc.y;
    let x = MARGIN;
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(7.5);
    let h = 0;
    cells.forEach((c, i) => {
      doc.text(c, x, y, { width: widths[i] - 4, lineBreak: true });
      h = Math.max(h, doc.y - y);
      x += widths[i];
    });
    doc.x = MARGIN;
    doc.y = y + h + 2;
  };
  line(headers, true);
  for (const r of rows) line(r, false);
}

/** Renders `s` as a PDF document (a Buffer starting with `%PDF-`). */
export function statementPdf(s: Statement): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    info: {
      Title: `Statement ${s.accountNumber} ${s.month}`,
      Subject: 'Monthly account statement',
      Author: 'platform',
    },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const t = s.totals;
  doc.font('Helvetica-Bold').fontSize(16).text(`Account statement ${s.month}`);
  doc
    .font('Helvetica')
    .fontSize(9)
    .text(`Account ${s.accountNumber} (${s.accountId}) ${s.accountName}`)
    .text(`Period ${s.periodStart} to ${s.periodEnd} (UTC, end exclusive)`)
    .text(`Generated ${s.generatedAt}. All amounts in USD.`);

  table(
    doc,
    'Summary',
    ['Item', 'USD'],
    [260, 200],
    [
      ['Opening balance', t.openingBalanceUsd],
      ['+ Deposits', t.depositsUsd],
      ['- Withdrawals', t.withdrawalsUsd],
      [`+ Realised PnL (${t.fills} fills, before fees)`, t.realizedPnlUsd],
      ['- Fees', t.feesUsd],
      ['+ Funding payments', t.fundingUsd],
      ['= Closing balance', t.closingBalanceUsd],
      ['Reconciles', s.reconciles ? 'yes' : 'NO'],
      [`Round trips (${t.roundTrips}), platform realised PnL`, t.roundTripPnlUsd],
      ['Manual round trips realised PnL (no cash effect)', t.manualRoundTripPnlUsd],
    ],
  );
  const cash = [
    ...s.deposits.map((d) => [d.ts, 'deposit', d.venue, d.amountUsd]),
    ...s.withdrawals.map((w) => [w.ts, 'withdrawal', w.venue, `-${w.amountUsd}`]),
  ].sort((a, b) => a[0].localeCompare(b[0]));
  table(doc, 'Deposits and withdrawals', ['Time', 'Type', 'Venue', 'USD'], [150, 80, 80, 150], cash);
  table(
    doc,
    'Fills',
    ['Time', 'Symbol', 'Side', 'Qty', 'Price', 'Fee', 'Realised', 'Fill'],
    [95, 55, 30, 50, 65, 60, 65, 95],
    s.fills.map((f) => [f.executedAt, f.symbol, f.side, f.qty, f.price, f.feeUsd, f.realizedPnlUsd, f.fillId]),
  );
  table(
    doc,
    'Round trips',
    ['Closed', 'Symbol', 'Side', 'Qty', 'Entry', 'Exit', 'Realised', 'Fees', 'Source'],
    [95, 55, 35, 45, 60, 60, 65, 50, 50],
    s.roundTrips.map((r) => [
      r.closedAt,
      r.symbol,
      r.side,
      r.qty,
      r.entryPrice,
      r.exitPrice,
      r.realizedPnlUsd,
      r.feesUsd,
      r.source,
    ]),
  );
  table(
    doc,
    'Funding payments',
    ['Time', 'Venue', 'Symbol', 'Hour', 'USD'],
    [130, 60, 70, 130, 120],
    s.funding.map((f) => [f.ts, f.venue, f.symbol ?? '', f.hour ?? '', f.amountUsd]),
  );
  doc.end();
  return done;
}

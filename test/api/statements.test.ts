/** Statement documents (docs/api.md §4.7): the monthly list, CSV totals that reconcile, the PDF, and 404s. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { Decimal } from '../../domain/decimal.js';
import { ensureTenant, issueCredential } from '../../db/seed.js';
import { startStack, type Stack } from '../support/stack.js';
import { fillMarketOrders, importManualShort } from '../support/trading.js';
import { publish, recordedTick } from '../support/marks.js';

type Row = Record<string, string>;

describe('statements', () => {
  let s: Stack;
  let t: Awaited<ReturnType<Stack['trader']>>;
  const month = new Date().toISOString().slice(0, 7);
  const raw = (path: string, token = t.token) =>
    fetch(`${s.api.baseUrl}${path}`, { headers: { 'x-tenant-slug': s.tenant.slug, authorization: `Bearer ${token}` } });
  const csvOf = async (m: string) => {
    const res = await raw(`/api/v1/reports/statements/${t.accountId}/${m}`);
    expect(res.status).toBe(200);
    return parse<Row>(await res.text(), { columns: true });
  };
  beforeAll(async () => {
    s = await startStack();
    await publish(s.orm, await recordedTick('SOL.PAPER', 0.5));
    t = await s.trader();
    await fillMarketOrders(s, t.token, 'SOL.PAPER', [
      ['buy', '3'],
      ['sell', '1'],
      ['sell', '2'],
      ['sell', '1'],
      ['buy', '1'],
    ]);
    await importManualShort(s, t);
  });
  afterAll(async () => s?.stop());

  it('lists every month with activity, with document urls', async () => {
    const res = await s.call('GET', `/api/v1/reports/statements?accountId=${t.accountId}`, { token: t.token });
    expect(res.status).toBe(200);
    expect(res.body.statements).toEqual([
      {
        accountId: t.accountId,
        month: '2025-07',
        urls: {
          csv: `/api/v1/reports/statements/${t.accountId}/2025-07?format=csv`,
          pdf: `/api/v1/reports/statements/${t.accountId}/2025-07?format=pdf`,
        },
      },
      expect.objectContaining({ accountId: t.accountId, month }),
    ]);
    const all = await s.call('GET', '/api/v1/reports/statements', { token: t.token });
    expect(all.body.statements.map((x: { month: string }) => x.month)).toEqual(['2025-07', month]);
  });

  it('CSV: totals reconcile and match /fills, /trades and /state', async () => {
    const res = await raw(`/api/v1/reports/statements/${t.accountId}/${month}?format=csv`);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename=statement-${t.accountId}-${month}.csv`);
    const rows = await csvOf(month);
    const total = (section: string) => new Decimal(rows.find((r) => r.section === section)!.amountUsd);
    const opening = total('opening_balance');
    const closing = total('closing_balance');
    expect(opening.eq(0)).toBe(true);
    expect(total('deposits_total').eq(100000)).toBe(true);
    expect(
      opening
        .plus(total('deposits_total'))
        .minus(total('withdrawals_total'))
        .plus(total('realized_pnl_total'))
        .minus(total('fees_total'))
        .plus(total('funding_total'))
        .eq(closing),
    ).toBe(true);
    expect(rows.find((r) => r.reference === 'reconciles')!.detail).toBe('true');

    const fills = (await s.call('GET', `/api/v1/accounts/${t.accountId}/fills`, { token: t.token })).body.fills;
    const fillRows = rows.filter((r) => r.section === 'fill');
    expect(fillRows.map((r) => r.reference).sort()).toEqual(fills.map((f: { fillId: string }) => f.fillId).sort());
    const sum = (xs: Row[], k: string) => xs.reduce((a, x) => a.plus(x[k]), new Decimal(0));
    expect(total('fees_total').eq(sum(fills, 'feeUsd'))).toBe(true);
    expect(total('realized_pnl_total').eq(sum(fills, 'realizedPnlUsd'))).toBe(true);
    expect(sum(fillRows, 'amountUsd').eq(total('realized_pnl_total').minus(total('fees_total')))).toBe(true);

    const trades = (
      await s.call('GET', `/api/v1/accounts/${t.accountId}/trades`, { token: t.token })
    ).body.trades.filter((x: { source: string }) => x.source === 'platform');
    const tripRows = rows.filter((r) => r.section === 'round_trip');
    expect(tripRows.map((r) => r.reference).sort()).toEqual(trades.map((x: { tradeId: string }) => x.tradeId).sort());
    expect(tripRows.length).toBeGreaterThanOrEqual(3);
    expect(total('round_trip_pnl_total').eq(sum(trades, 'realizedPnlUsd'))).toBe(true);
    expect(total('round_trip_pnl_total').eq(total('realized_pnl_total'))).toBe(true);

    const state = await s.call('GET', `/api/v1/accounts/${t.accountId}/state`, { token: t.token });
    expect(closing.eq(state.body.perVenue.find((v: { venue: string }) => v.venue === 'paper').balanceUsd)).toBe(true);
  });

  it('CSV of a month with only an imported trade: no cash moved, the trade listed apart', async () => {
    const rows = await csvOf('2025-07');
    const total = (section: string) => rows.find((r) => r.section === section)!.amountUsd;
    expect(rows.filter((r) => r.section === 'round_trip')).toEqual([
      expect.objectContaining({ side: 'short', realizedPnlUsd: '105.75', feeUsd: '2.5' }),
    ]);
    expect(total('manual_round_trip_pnl_total')).toBe('105.75');
    expect([total('opening_balance'), total('closing_balance'), total('realized_pnl_total')]).toEqual(['0', '0', '0']);
  });

  it('PDF is an attachment, a real PDF and over 1 KB', async () => {
    const res = await raw(`/api/v1/reports/statements/${t.accountId}/${month}?format=pdf`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename=statement-${t.accountId}-${month}.pdf`);
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(body.length).toBeGreaterThan(1024);
  });

  it('404 for a month without activity or another tenant, 400 for a bad month or format, 403 for another trader', async () => {
    expect(await s.call('GET', `/api/v1/reports/statements/${t.accountId}/1999-01`, { token: t.token })).toMatchObject({
      status: 404,
      body: { error: 'statement_not_found' },
    });
    expect((await s.call('GET', `/api/v1/reports/statements/${t.accountId}/2025-13`, { token: t.token })).status).toBe(
      400,
    );
    expect(
      (await s.call('GET', `/api/v1/reports/statements/${t.accountId}/${month}?format=xls`, { token: t.token })).status,
    ).toBe(400);
    expect(await s.call('GET', `/api/v1/reports/statements/acc_nope/${month}`, { token: t.token })).toMatchObject({
      status: 404,
      body: { error: 'account_not_found' },
    });
    const other = await s.trader();
    expect(
      await s.call('GET', `/api/v1/reports/statements/${t.accountId}/${month}`, { token: other.token }),
    ).toMatchObject({ status: 403, body: { error: 'forbidden' } });
    expect((await s.call('GET', '/api/v1/reports/statements', { token: other.token })).body.statements).toEqual([
      expect.objectContaining({ accountId: other.accountId, month }),
    ]);
    const slug = `st-${randomBytes(3).toString('hex')}`;
    const tenant = await ensureTenant(s.orm, { slug, displayName: 'Other', origins: [] });
    const cred = await issueCredential(s.orm, { tenantId: tenant.id, audience: 'trader', tier: 'fullTrading' });
    const minted = await s.call('POST', '/api/auth/api-token', {
      body: { apiKey: cred.apiKey, apiSecret: cred.apiSecret },
      headers: { 'x-tenant-slug': slug },
    });
    expect(
      await s.call('GET', `/api/v1/reports/statements/${t.accountId}/${month}`, {
        token: minted.body.token,
        headers: { 'x-tenant-slug': slug },
      }),
    ).toMatchObject({ status: 404, body: { error: 'account_not_found' } });
  });
});

describe('statement arithmetic (pure)', () => {
  it('reconciles withdrawals and signed funding payments, with opening from earlier months', async () => {
    const { buildStatement } = await import('../../domain/statements/statement.js');
    const { replayPoints } = await import('../../domain/statements/replay.js');
    const at = (iso: string) => new Date(iso);
    const events = [
      {
        seq: 1,
        kind: 'funding.deposit',
        venue: 'paper',
        data: { amountUsd: '1000' },
        createdAt: at('2025-06-30T23:59:59.999Z'),
      },
      { seq: 2, kind: 'intent.composed', venue: 'paper', data: {}, createdAt: at('2025-07-01T00:00:00Z') },
      {
        seq: 3,
        kind: 'fill.executed',
        venue: 'paper',
        data: {
          fillId: 'f1',
          symbol: 'SOL.PAPER',
          side: 'buy',
          qty: '2',
          price: '100',
          feeUsd: '0.09',
          realizedPnlUsd: '0',
        },
        createdAt: at('2025-07-02T00:00:00Z'),
      },
      {
        seq: 4,
        kind: 'funding.payment',
        venue: 'paper',
        data: { amountUsd: '-0.125', symbol: 'SOL.PAPER', hour: '2025-07-02T01:00:00.000Z' },
        createdAt: at('2025-07-02T01:00:01Z'),
      },
      {
        seq: 5,
        kind: 'fill.executed',
        venue: 'paper',
        data: {
          fillId: 'f2',
          symbol: 'SOL.PAPER',
          side: 'sell',
          qty: '1',
          price: '110.5',
          feeUsd: '0.05',
          realizedPnlUsd: '10.5',
        },
        createdAt: at('2025-07-03T00:00:00Z'),
      },
      {
        seq: 6,
        kind: 'funding.withdrawal',
        venue: 'paper',
        data: { amountUsd: '100' },
        createdAt: at('2025-07-04T00:00:00Z'),
      },
      {
        seq: 7,
        kind: 'funding.deposit',
        venue: 'paper',
        data: { amountUsd: '5' },
        createdAt: at('2025-08-01T00:00:00Z'),
      },
    ];
    const st = buildStatement({
      account: { id: 'a', accountNumber: 'PA-1', name: 'x' },
      month: '2025-07',
      events,
      roundTrips: [],
    });
    expect(st.totals).toMatchObject({
      openingBalanceUsd: '1000',
      depositsUsd: '0',
      withdrawalsUsd: '100',
      realizedPnlUsd: '10.5',
      feesUsd: '0.14',
      fundingUsd: '-0.125',
      closingBalanceUsd: '910.235',
    });
    expect(st.reconciles).toBe(true);
    const points = replayPoints(events);
    expect(points.map((p) => p.seq)).toEqual([1, 3, 4, 5, 6, 7]);
    // after the partial close: 1 long at 100 marked at its last fill 110.5
    expect(points[3]).toMatchObject({
      positions: 1,
      notionalUsd: '110.5',
      balanceUsd: '1010.235',
      equityUsd: '1020.735',
      fundingUsd: '-0.125',
    });
  });
});

/** Account histories (docs/api.md §4.3, §8): cursor pagination with opaque cursors, `nextCursor: null` at the end, no `hasMore`. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack.js';
import { MANUAL_SHORT, stackWithRoundTrips } from '../support/trading.js';

describe('account histories', () => {
  let s: Stack;
  let t: Awaited<ReturnType<Stack['trader']>>;
  beforeAll(async () => {
    ({ s, t } = await stackWithRoundTrips()); // buy 3, sell 1, sell 2: three fills, two round trips
  });
  afterAll(async () => s?.stop());

  it('pages fills newest first with opaque cursors until nextCursor is null', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = cursor ? `?limit=1&cursor=${encodeURIComponent(cursor)}` : '?limit=1';
      const res = await s.call('GET', `/api/v1/accounts/${t.accountId}/fills${q}`, { token: t.token });
      expect(res.status).toBe(200);
      expect(res.body).not.toHaveProperty('hasMore');
      seen.push(...res.body.fills.map((f: { side: string; qty: string }) => `${f.side} ${f.qty}`));
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    expect(seen).toEqual(['sell 2', 'sell 1', 'buy 3']);
    expect(pages).toBe(3);
    expect(cursor).toBeNull();
  });

  it('pairs entries with exits into round trips with realised PnL', async () => {
    const res = await s.call('GET', `/api/v1/accounts/${t.accountId}/trades`, { token: t.token });
    expect(res.body.trades).toHaveLength(2);
    expect(res.body.trades.map((x: { side: string; qty: string }) => `${x.side} ${x.qty}`)).toEqual([
      'long 2',
      'long 1',
    ]);
    expect(res.body.nextCursor).toBeNull();
    const positions = await s.call('GET', `/api/v1/accounts/${t.accountId}/positions`, { token: t.token });
    expect(positions.body.positions).toEqual([]);
  });

  it("a flat account's round trips carry every fee its fills paid (exit fee plus the pro-rata entry fees)", async () => {
    const { Decimal } = await import('../../domain/decimal.js');
    const fills = (await s.call('GET', `/api/v1/accounts/${t.accountId}/fills`, { token: t.token })).body.fills;
    const trades = (await s.call('GET', `/api/v1/accounts/${t.accountId}/trades`, { token: t.token })).body.trades;
    const sum = (rows: { feeUsd?: string; feesUsd?: string }[]) =>
      rows.reduce((acc, r) => acc.plus(r.feeUsd ?? r.feesUsd ?? '0'), new Decimal(0));
    expect(sum(fills).gt(0)).toBe(true);
    expect(sum(trades).toFixed()).toBe(sum(fills).toFixed());
  });

  it('refuses a limit above the cap and a cursor it did not issue', async () => {
    expect((await s.call('GET', `/api/v1/accounts/${t.accountId}/fills?limit=1001`, { token: t.token })).status).toBe(
      400,
    );
    const bad = await s.call('GET', `/api/v1/accounts/${t.accountId}/fills?cursor=abc`, { token: t.token });
    expect(bad).toMatchObject({ status: 400, body: { error: 'invalid_cursor' } });
    expect((await s.call('GET', `/api/v1/accounts/${t.accountId}/events?limit=501`, { token: t.token })).status).toBe(
      400,
    );
  });

  it('the event log holds the deposit and every order step, newest first, filterable by kind', async () => {
    const res = await s.call('GET', `/api/v1/accounts/${t.accountId}/events?kind=fill.executed`, { token: t.token });
    expect(res.body.events).toHaveLength(3);
    expect(res.body.events.map((e: { seq: number }) => e.seq)).toEqual(
      [...res.body.events.map((e: { seq: number }) => e.seq)].sort((a, b) => b - a),
    );
    const all = await s.call('GET', `/api/v1/accounts/${t.accountId}/events?limit=500`, { token: t.token });
    expect(all.body.events.at(-1)).toMatchObject({ seq: 1, kind: 'funding.deposit', data: { amountUsd: '100000' } });
  });
});

describe('manual trades and the funding ledger', () => {
  let s: Stack;
  let t: Awaited<ReturnType<Stack['trader']>>;
  beforeAll(async () => {
    s = await startStack({ worker: false });
    t = await s.trader();
  });
  afterAll(async () => s?.stop());

  it('imports an off-platform round trip that counts in PnL and not in volume (no fill)', async () => {
    const body = MANUAL_SHORT;
    const res = await s.call('POST', `/api/v1/accounts/${t.accountId}/manual-trades`, { token: t.token, body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      side: 'short',
      qty: '0.5',
      entryPrice: '118712',
      exitPrice: '118500.5',
      realizedPnlUsd: '105.75',
      feesUsd: '2.5',
      source: 'manual',
      venue: 'paper',
    });
    const trades = await s.call('GET', `/api/v1/accounts/${t.accountId}/trades`, { token: t.token });
    expect(trades.body.trades.map((x: { tradeId: string }) => x.tradeId)).toEqual([res.body.tradeId]);
    expect((await s.call('GET', `/api/v1/accounts/${t.accountId}/fills`, { token: t.token })).body.fills).toEqual([]);
    const buy = await s.call('POST', `/api/v1/accounts/${t.accountId}/manual-trades`, {
      token: t.token,
      body: { ...body, side: 'buy' },
    });
    expect(buy.body.detail.map((d: { path: string }) => d.path)).toEqual(['body.side']);
    const backwards = await s.call('POST', `/api/v1/accounts/${t.accountId}/manual-trades`, {
      token: t.token,
      body: { ...body, exitTime: '2025-07-21T11:00:00Z' },
    });
    expect(backwards.body.detail.map((d: { path: string }) => d.path)).toEqual(['body.exitTime']);
  });

  it('reports daily realised PnL from round trips, and closed positions in a window', async () => {
    const body = {
      symbol: 'ETH.PAPER',
      side: 'long',
      qty: 2,
      entryTime: '2025-07-22T01:00:00Z',
      exitTime: '2025-07-22T02:00:00Z',
      entryPrice: 3700,
      exitPrice: 3650.25,
    };
    expect(
      (await s.call('POST', `/api/v1/accounts/${t.accountId}/manual-trades`, { token: t.token, body })).status,
    ).toBe(201);
    const daily = await s.call('GET', '/api/v1/reports/daily-pnl', { token: t.token });
    expect(daily.body.days).toEqual([
      { date: '2025-07-21', realizedPnlUsd: '105.75', feesUsd: '2.5', netPnlUsd: '103.25', trades: 1 },
      { date: '2025-07-22', realizedPnlUsd: '-99.5', feesUsd: '0', netPnlUsd: '-99.5', trades: 1 },
    ]);
    const closed = await s.call('GET', '/api/v1/reports/positions/closed?from=2025-07-22T00:00:00Z', {
      token: t.token,
    });
    expect(closed.body.positionsClosed.map((x: { symbol: string }) => x.symbol)).toEqual(['ETH.PAPER']);
    expect((await s.call('GET', '/api/v1/reports/fills', { token: t.token })).body.fills).toEqual([]);
  });

  it('lists the opening deposit in the funding ledger', async () => {
    const res = await s.call('GET', `/api/v1/accounts/${t.accountId}/funding`, { token: t.token });
    expect(res.body.events).toEqual([
      expect.objectContaining({ type: 'deposit', venue: 'paper', amountUsd: '100000' }),
    ]);
    expect(res.body.nextCursor).toBeNull();
  });
});

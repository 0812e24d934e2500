/**
 * `GET /accounts/{id}/state/history` (docs/api.md §4.3, §8): stored state snapshots — one with the opening
 * deposit, one per filled execution, one per funding payment, the funding run's hourly sample (once
 * per hour) — window-based with `truncated`, no cursor.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { Decimal } from '../../domain/decimal.js';
import { publishMark } from '../../modules/market/feeds/marks.js';
import { ensureTenant, issueCredential } from '../../db/seed.js';
import { fundingWorkflow } from '../../modules/accounts/workflows/funding.js';
import { startStack, type Stack } from '../support/stack.js';
import { fillMarketOrders } from '../support/trading.js';
import { publish, recordedTick } from '../support/marks.js';

type Point = {
  ts: string;
  venue: string;
  reason: string;
  hour: string | null;
  equityUsd: string;
  balanceUsd: string;
  unrealizedPnlUsd: string;
  marginUsedUsd: string;
  marginAvailableUsd: string;
  openPositions: number;
};

const d = (v: string) => new Decimal(v);

describe('state history', () => {
  let s: Stack;
  let t: Awaited<ReturnType<Stack['trader']>>;
  const history = async (q = '') =>
    s.call('GET', `/api/v1/accounts/${t.accountId}/state/history${q}`, { token: t.token });
  const points = async (q = ''): Promise<Point[]> => (await history(q)).body.points;
  const fund = (hourIso: string) =>
    s.temporal.workflow.execute(fundingWorkflow, {
      taskQueue: s.config.temporal.taskQueue,
      workflowId: `funding-state-history-${randomBytes(4).toString('hex')}`,
      args: [{ venue: 'paper', hourIso, tenantId: s.tenant.id }],
    });
  let initial: Point[];

  beforeAll(async () => {
    s = await startStack();
    await publish(s.orm, await recordedTick('SOL.PAPER', 0.5));
    t = await s.trader();
    initial = await points();
    // buy 3, sell 1, sell 2 (flat again), then buy 1 left open
    await fillMarketOrders(s, t.token, 'SOL.PAPER', [
      ['buy', '3'],
      ['sell', '1'],
      ['sell', '2'],
      ['buy', '1'],
    ]);
  });
  afterAll(async () => s?.stop());

  it('has a point for the deposit and one per filled execution; the last one equals /state', async () => {
    expect(initial).toEqual([
      {
        ts: expect.any(String),
        venue: 'paper',
        reason: 'deposit',
        hour: null,
        equityUsd: '100000',
        balanceUsd: '100000',
        unrealizedPnlUsd: '0',
        marginUsedUsd: '0',
        marginAvailableUsd: '100000',
        openPositions: 0,
      },
    ]);
    const res = await history();
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('nextCursor');
    expect(res.body.truncated).toBe(false);
    const all: Point[] = res.body.points;
    expect(all.map((p) => p.reason)).toEqual(['deposit', 'fill', 'fill', 'fill', 'fill']);
    expect(all.map((p) => p.openPositions)).toEqual([0, 1, 1, 0, 1]);
    expect(all.map((p) => p.ts)).toEqual([...all.map((p) => p.ts)].sort());
    for (const p of all) {
      expect(d(p.equityUsd).eq(d(p.balanceUsd).plus(p.unrealizedPnlUsd))).toBe(true);
      expect(d(p.marginAvailableUsd).eq(Decimal.max(0, d(p.equityUsd).minus(p.marginUsedUsd)))).toBe(true);
    }
    // margin follows the open size at the same mark: 3 contracts, then 2, then none, then 1
    const [, three, two, flat, one] = all;
    expect(d(three.marginUsedUsd).gt(0)).toBe(true);
    expect(d(two.marginUsedUsd).times(3).eq(d(three.marginUsedUsd).times(2))).toBe(true);
    expect(flat.marginUsedUsd).toBe('0');
    expect(d(one.marginUsedUsd).times(3).eq(three.marginUsedUsd)).toBe(true);
    // cash moved by realised PnL − fees of the fills
    const fills = (await s.call('GET', `/api/v1/accounts/${t.accountId}/fills`, { token: t.token })).body.fills;
    const net = fills.reduce(
      (a: Decimal, f: Record<string, string>) => a.plus(f.realizedPnlUsd).minus(f.feeUsd),
      new Decimal(0),
    );
    expect(d(one.balanceUsd).eq(d('100000').plus(net))).toBe(true);

    const state = await s.call('GET', `/api/v1/accounts/${t.accountId}/state`, { token: t.token });
    const paper = state.body.perVenue.find((v: { venue: string }) => v.venue === 'paper');
    expect(one).toMatchObject({
      balanceUsd: paper.balanceUsd,
      equityUsd: paper.equityUsd,
      unrealizedPnlUsd: paper.unrealizedPnlUsd,
      marginUsedUsd: paper.marginUsedUsd,
      marginAvailableUsd: paper.marginAvailableUsd,
    });
  });

  it('keeps the newest `limit` points and says so with truncated', async () => {
    const all = await points();
    const res = await history('?limit=2');
    expect(res.body.truncated).toBe(true);
    expect(res.body.points).toEqual(all.slice(-2));
    expect((await history(`?limit=${all.length}`)).body).toEqual({ points: all, truncated: false });
  });

  it('windows by from (inclusive), to (exclusive) and venue', async () => {
    const all = await points();
    const pivot = all[2].ts;
    const from = await points(`?from=${encodeURIComponent(pivot)}`);
    expect(from).toEqual(all.filter((p) => Date.parse(p.ts) >= Date.parse(pivot)));
    expect(from.length).toBeGreaterThan(0);
    const to = await points(`?to=${encodeURIComponent(pivot)}`);
    expect(to).toEqual(all.filter((p) => Date.parse(p.ts) < Date.parse(pivot)));
    expect(to.length + from.length).toBe(all.length);
    expect(await points('?venue=paper')).toEqual(all);
    expect((await history('?venue=hyperliquid')).body).toEqual({ points: [], truncated: false });
  });

  it('rejects limit 5001, limit 0 and a bad time with 400 validation_failed', async () => {
    expect(await history('?limit=5001')).toMatchObject({
      status: 400,
      body: { error: 'validation_failed', detail: expect.anything() },
    });
    expect(await history('?limit=0')).toMatchObject({ status: 400, body: { error: 'validation_failed' } });
    expect((await history('?limit=5000')).status).toBe(200);
    expect(await history('?from=yesterday')).toMatchObject({ status: 400, body: { error: 'validation_failed' } });
  });

  it('the funding run adds a funding point per paid hour and one hourly sample when it pays nothing, never twice', async () => {
    const count = (await points()).length;
    const paid = await fund('2026-11-22T04:00:00.000Z');
    expect(paid).toMatchObject({ accounts: 1, payments: 1 });
    const afterPaid = await points();
    expect(afterPaid).toHaveLength(count + 1);
    const last = afterPaid.at(-1)!;
    expect(last).toMatchObject({ reason: 'funding', hour: '2026-11-22T04:00:00.000Z', openPositions: 1 });
    expect(d(last.balanceUsd).eq(d(afterPaid.at(-2)!.balanceUsd).plus(paid.amountUsd))).toBe(true);
    expect((await fund('2026-11-22T04:00:00.000Z')).payments).toBe(0);
    expect(await points()).toHaveLength(count + 1); // rerun of the hour: no second point

    // a stale mark: the hour pays nothing, but equity is still sampled once for the hour
    const tick = await recordedTick('SOL.PAPER', 0.5);
    await publishMark(s.orm, { ...tick, ts: Date.now() - 10 * 60_000 });
    try {
      const skipped = await fund('2026-11-22T05:00:00.000Z');
      expect(skipped).toMatchObject({ payments: 0, skipped: [{ accountId: t.accountId, symbols: ['SOL.PAPER'] }] });
      await fund('2026-11-22T05:00:00.000Z');
      const after = await points();
      expect(after).toHaveLength(count + 2);
      expect(after.at(-1)).toMatchObject({
        reason: 'hourly',
        hour: '2026-11-22T05:00:00.000Z',
        balanceUsd: last.balanceUsd,
        openPositions: 1,
      });
    } finally {
      await publish(s.orm, tick);
    }
  });

  it('is not readable by another owner or another tenant', async () => {
    const other = await s.trader();
    expect(await s.call('GET', `/api/v1/accounts/${t.accountId}/state/history`, { token: other.token })).toMatchObject({
      status: 403,
      body: { error: 'forbidden' },
    });
    const slug = `sh-${randomBytes(3).toString('hex')}`;
    const tenant = await ensureTenant(s.orm, { slug, displayName: 'Other', origins: [] });
    const cred = await issueCredential(s.orm, { tenantId: tenant.id, audience: 'trader', tier: 'fullTrading' });
    const minted = await s.call('POST', '/api/auth/api-token', {
      body: { apiKey: cred.apiKey, apiSecret: cred.apiSecret },
      headers: { 'x-tenant-slug': slug },
    });
    const res = await s.call('GET', `/api/v1/accounts/${t.accountId}/state/history`, {
      token: minted.body.token,
      headers: { 'x-tenant-slug': slug },
    });
    expect(res).toMatchObject({ status: 404, body: { error: 'account_not_found' } });
  });
});

/** `GET /accounts/{id}/state/history` (spec §4.3, §8): replayed from the event log, window-based with `truncated`, no cursor. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { Decimal } from '../../domain/decimal.js';
import { ensureTenant, issueCredential } from '../../db/seed.js';
import { startStack, type Stack } from '../support/stack.js';
import { publish, recordedTick } from '../support/marks.js';
import { waitFor } from '../support/wait.js';

type Point = { seq: number; kind: string; ts: string; venue: string; balanceUsd: string; realizedPnlUsd: string; feesUsd: string; fundingUsd: string; positions: number; notionalUsd: string; equityUsd: string };

describe('state history', () => {
  let s: Stack;
  let t: Awaited<ReturnType<Stack['trader']>>;
  const history = async (q = '') => s.call('GET', `/api/v1/accounts/${t.accountId}/state/history${q}`, { token: t.token });
  let initial: Point[];
  beforeAll(async () => {
    s = await startStack();
    await publish(s.orm, await recordedTick('SOL.PAPER', 0.5));
    t = await s.trader();
    initial = (await history()).body.points;
    // buy 3, sell 1, sell 2 (two round trips), then buy 1 left open
    for (const [side, qty] of [['buy', '3'], ['sell', '1'], ['sell', '2'], ['buy', '1']]) {
      const r = await s.call('POST', '/api/v1/oms/intents', { token: t.token, body: { venue: 'paper', symbol: 'SOL.PAPER', side, type: 'market', qty } });
      await waitFor(() => s.call('GET', `/api/v1/oms/intents/${r.body.intentId}`, { token: t.token }), (x) => x.body.state === 'filled');
    }
  });
  afterAll(async () => s?.stop());

  it('has one point per cash or position event, and the last one matches /state', async () => {
    expect(initial).toEqual([expect.objectContaining({ kind: 'funding.deposit', venue: 'paper', balanceUsd: '100000', equityUsd: '100000', positions: 0, notionalUsd: '0' })]);
    const res = await history();
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('nextCursor');
    const points: Point[] = res.body.points;
    const fills = (await s.call('GET', `/api/v1/accounts/${t.accountId}/fills`, { token: t.token })).body.fills;
    expect(points).toHaveLength(1 + fills.length);
    expect(res.body.truncated).toBe(false);
    expect(points.map((p) => p.seq)).toEqual([...points.map((p) => p.seq)].sort((a, b) => a - b));
    const state = await s.call('GET', `/api/v1/accounts/${t.accountId}/state`, { token: t.token });
    const paper = state.body.perVenue.find((v: { venue: string }) => v.venue === 'paper');
    const last = points.at(-1)!;
    expect(last.balanceUsd).toBe(paper.balanceUsd);
    expect(last.positions).toBe(1);
    const lastFill = fills[0];
    expect(new Decimal(last.notionalUsd).eq(new Decimal(lastFill.price).times(1))).toBe(true);
    // fees and realised PnL reconcile with the fills; cash = deposit + realised − fees
    const sum = (k: string) => fills.reduce((a: Decimal, f: Record<string, string>) => a.plus(f[k]), new Decimal(0));
    expect(new Decimal(last.feesUsd).eq(sum('feeUsd'))).toBe(true);
    expect(new Decimal(last.realizedPnlUsd).eq(sum('realizedPnlUsd'))).toBe(true);
    expect(new Decimal(last.balanceUsd).eq(new Decimal(100000).plus(last.realizedPnlUsd).minus(last.feesUsd))).toBe(true);
    // marked at its own (last) fill price, the open position has no unrealised PnL yet
    expect(last.equityUsd).toBe(last.balanceUsd);
    // after buy 3 the position is open
    expect(points[1]).toMatchObject({ kind: 'fill.executed', positions: 1 });
    expect(points[3]).toMatchObject({ positions: 0 });
  });

  it('keeps the newest `limit` points and says so with truncated', async () => {
    const all: Point[] = (await history()).body.points;
    const res = await history('?limit=2');
    expect(res.body.truncated).toBe(true);
    expect(res.body.points).toEqual(all.slice(-2));
    expect((await history(`?limit=${all.length}`)).body.truncated).toBe(false);
  });

  it('windows by from (inclusive), to (exclusive) and venue', async () => {
    const all: Point[] = (await history()).body.points;
    const pivot = all[2].ts;
    const from: Point[] = (await history(`?from=${encodeURIComponent(pivot)}`)).body.points;
    expect(from).toEqual(all.filter((p) => Date.parse(p.ts) >= Date.parse(pivot)));
    expect(from.length).toBeGreaterThan(0);
    const to: Point[] = (await history(`?to=${encodeURIComponent(pivot)}`)).body.points;
    expect(to).toEqual(all.filter((p) => Date.parse(p.ts) < Date.parse(pivot)));
    expect(to.length + from.length).toBe(all.length);
    expect((await history('?venue=paper')).body.points).toEqual(all);
    expect((await history('?venue=hyperliquid')).body).toEqual({ points: [], truncated: false });
  });

  it('caps limit at 5000 and checks times', async () => {
    expect(await history('?limit=5001')).toMatchObject({ status: 400, body: { error: 'validation_failed' } });
    expect((await history('?limit=5000')).status).toBe(200);
    expect((await history('?from=yesterday')).status).toBe(400);
  });

  it('is not readable by another owner', async () => {
    const other = await s.trader();
    expect(await s.call('GET', `/api/v1/accounts/${t.accountId}/state/history`, { token: other.token })).toMatchObject({ status: 403, body: { error: 'forbidden' } });
    const slug = `sh-${randomBytes(3).toString('hex')}`;
    const tenant = await ensureTenant(s.orm, { slug, displayName: 'Other', origins: [] });
    const cred = await issueCredential(s.orm, { tenantId: tenant.id, audience: 'trader', tier: 'fullTrading' });
    const minted = await s.call('POST', '/api/auth/api-token', { body: { apiKey: cred.apiKey, apiSecret: cred.apiSecret }, headers: { 'x-tenant-slug': slug } });
    const res = await s.call('GET', `/api/v1/accounts/${t.accountId}/state/history`, { token: minted.body.token, headers: { 'x-tenant-slug': slug } });
    expect(res).toMatchObject({ status: 404, body: { error: 'account_not_found' } });
  });
});

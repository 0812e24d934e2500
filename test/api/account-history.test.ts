/** Account histories (spec §4.3, §8): cursor pagination with opaque cursors, `nextCursor: null` at the end, no `hasMore`. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack.js';
import { publish, recordedTick } from '../support/marks.js';
import { waitFor } from '../support/wait.js';

describe('account histories', () => {
  let s: Stack;
  let t: Awaited<ReturnType<Stack['trader']>>;
  beforeAll(async () => {
    s = await startStack();
    await publish(s.orm, await recordedTick('SOL.PAPER', 0.5));
    t = await s.trader();
    // buy 3, sell 1, sell 2: three fills, two round trips (long closed in two parts)
    for (const [side, qty] of [['buy', '3'], ['sell', '1'], ['sell', '2']]) {
      const r = await s.call('POST', '/api/v1/oms/intents', { token: t.token, body: { venue: 'paper', symbol: 'SOL.PAPER', side, type: 'market', qty } });
      await waitFor(() => s.call('GET', `/api/v1/oms/intents/${r.body.intentId}`, { token: t.token }), (x) => x.body.state === 'filled');
    }
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
    expect(res.body.trades.map((x: { side: string; qty: string }) => `${x.side} ${x.qty}`)).toEqual(['long 2', 'long 1']);
    expect(res.body.nextCursor).toBeNull();
    const positions = await s.call('GET', `/api/v1/accounts/${t.accountId}/positions`, { token: t.token });
    expect(positions.body.positions).toEqual([]);
  });

  it('refuses a limit above the cap and a cursor it did not issue', async () => {
    expect((await s.call('GET', `/api/v1/accounts/${t.accountId}/fills?limit=1001`, { token: t.token })).status).toBe(400);
    const bad = await s.call('GET', `/api/v1/accounts/${t.accountId}/fills?cursor=abc`, { token: t.token });
    expect(bad).toMatchObject({ status: 400, body: { error: 'invalid_cursor' } });
    expect((await s.call('GET', `/api/v1/accounts/${t.accountId}/events?limit=501`, { token: t.token })).status).toBe(400);
  });

  it('the event log holds the deposit and every order step, newest first, filterable by kind', async () => {
    const res = await s.call('GET', `/api/v1/accounts/${t.accountId}/events?kind=fill.executed`, { token: t.token });
    expect(res.body.events).toHaveLength(3);
    expect(res.body.events.map((e: { seq: number }) => e.seq)).toEqual([...res.body.events.map((e: { seq: number }) => e.seq)].sort((a, b) => b - a));
    const all = await s.call('GET', `/api/v1/accounts/${t.accountId}/events?limit=500`, { token: t.token });
    expect(all.body.events.at(-1)).toMatchObject({ seq: 1, kind: 'funding.deposit', data: { amountUsd: '100000' } });
  });
});

/** Chase (docs/api.md §4.4): cancel-replace toward the touch until filled, with a bound on attempts. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Stack } from '../support/stack.js';
import type { MarkTick } from '../../domain/market/types.js';
import { publish } from '../support/marks.js';
import { fillMarketOrder, startStackAtHigh } from '../support/trading.js';
import { waitFor } from '../support/wait.js';
import { chaseWorkflowId } from '../../modules/oms/workflows/chase.definitions.js';
import { maybeSaveHistory } from '../support/histories.js';

describe('chase', () => {
  let s: Stack;
  let ticks: { low: MarkTick; high: MarkTick };
  beforeAll(async () => ({ s, ticks } = await startStackAtHigh('BTC.PAPER')));
  afterAll(async () => s?.stop());

  it('moves a resting buy to the best bid, and it fills when the market comes to it', async () => {
    const t = await s.trader();
    const below = ticks.high.bid.minus(40).toFixed();
    const c = await s.call('POST', '/api/v1/oms/intents', {
      token: t.token,
      body: { venue: 'paper', symbol: 'BTC.PAPER', side: 'buy', type: 'limit', price: below, qty: '0.003' },
    });
    await waitFor(
      () => s.call('GET', `/api/v1/oms/intents/${c.body.intentId}`, { token: t.token }),
      (x) => x.body.orderStatus === 'open',
    );

    const res = await s.call('POST', '/api/v1/oms/chase', {
      token: t.token,
      body: { intentId: c.body.intentId, maxAttempts: 5, intervalMs: 100 },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ chaseId: `chs_${c.body.intentId.slice(4)}`, maxAttempts: 5, state: 'chasing' });

    const handle = s.temporal.workflow.getHandle(chaseWorkflowId(c.body.intentId));
    const moved = await waitFor(
      () => handle.query('chaseState'),
      (v: any) => v.currentIntentId !== c.body.intentId,
      15_000,
    );
    const current = await waitFor(
      () => s.call('GET', `/api/v1/oms/intents/${(moved as any).currentIntentId}`, { token: t.token }),
      (x) => x.body.orderStatus === 'open',
    );
    expect(current.body.price).toBe(ticks.high.bid.toFixed());
    expect((await s.call('GET', `/api/v1/oms/intents/${c.body.intentId}`, { token: t.token })).body.state).toBe(
      'canceled',
    );

    await publish(s.orm, ticks.low); // the market falls through the bid: the chased order fills
    const done = await handle.result();
    expect(done).toMatchObject({ state: 'filled', attempts: 1, currentIntentId: current.body.intentId });
    expect(
      (await s.call('GET', `/api/v1/oms/intents/${current.body.intentId}`, { token: t.token })).body,
    ).toMatchObject({ state: 'filled', filledQty: '0.003' });
    await maybeSaveHistory(handle, 'chase-filled');
    await publish(s.orm, ticks.high);
  });

  it('refuses what is not a working limit order', async () => {
    const t = await s.trader();
    const m = await fillMarketOrder(s, t.token, 'BTC.PAPER', ['buy', '0.001']);
    expect(
      await s.call('POST', '/api/v1/oms/chase', { token: t.token, body: { intentId: m.body.intentId } }),
    ).toMatchObject({ status: 409, body: { error: 'invalid_state' } });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal, ZERO } from '../../domain/decimal.js';
import { startStack, type Stack } from '../support/stack.js';
import { publish, recordedTick } from '../support/marks.js';
import { waitFor } from '../support/wait.js';
import { maybeSaveHistory } from '../support/histories.js';
import { intentWorkflowId } from '../../modules/oms/workflows/intent.definitions.js';

describe('paper market order, end to end', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack();
  });
  afterAll(async () => s?.stop());

  it('fills a market buy of BTC by walking the recorded book, and books the position and fee', async () => {
    const tick = await recordedTick('BTC.PAPER', 0);
    await publish(s.orm, tick);
    const t = await s.trader();
    const res = await s.call('POST', '/api/v1/oms/intents', {
      token: t.token,
      body: { venue: 'paper', symbol: 'BTC.PAPER', side: 'buy', type: 'market', qty: '0.01', clientOrderId: 'smoke-1' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.clientOrderId).toBe('smoke-1');
    const got = await waitFor(
      () => s.call('GET', `/api/v1/oms/intents/${res.body.intentId}`, { token: t.token }),
      (r) => r.body.state === 'filled',
    );
    // Expected: walk the asks of the re-centred recorded book for 0.01 BTC.
    let left = new Decimal('0.01');
    let cost = ZERO;
    for (const l of tick.book.asks) {
      const take = Decimal.min(left, l.size);
      cost = cost.plus(take.times(l.price));
      left = left.minus(take);
      if (left.isZero()) break;
    }
    expect(got.body.avgFillPrice).toBe(cost.div('0.01').toFixed());
    expect(got.body.orderStatus).toBe('filled');
    const positions = await s.call('GET', `/api/v1/accounts/${t.accountId}/positions`, { token: t.token });
    expect(positions.body.positions).toHaveLength(1);
    expect(positions.body.positions[0]).toMatchObject({
      symbol: 'BTC.PAPER',
      side: 'long',
      qty: '0.01',
      avgEntryPrice: cost.div('0.01').toFixed(),
    });
    const state = await s.call('GET', `/api/v1/accounts/${t.accountId}/state`, { token: t.token });
    // 4.5 bps taker fee on the notional comes off the 100 000 USD deposit.
    expect(state.body.perVenue[0].balanceUsd).toBe(new Decimal(100000).minus(cost.times('4.5').div(10000)).toFixed());
    expect(state.body).not.toHaveProperty('equityUsd');
    const handle = s.temporal.workflow.getHandle(intentWorkflowId(res.body.intentId));
    expect(await handle.result()).toEqual({ intentId: res.body.intentId, state: 'filled' });
    await maybeSaveHistory(handle, 'intent-market-filled');
  });
});

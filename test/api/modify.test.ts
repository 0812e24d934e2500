/** Modify (docs/api.md §4.4): cancel-replace with numbers only, resolving a new intent id. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Stack } from '../support/stack.js';
import type { MarkTick } from '../../domain/market/types.js';
import { publish } from '../support/marks.js';
import { startStackAtHigh } from '../support/trading.js';
import { waitFor } from '../support/wait.js';
import { intentWorkflowId } from '../../modules/oms/workflows/intent.definitions.js';
import { maybeSaveHistory } from '../support/histories.js';

describe('modify', () => {
  let s: Stack;
  let ticks: { low: MarkTick; high: MarkTick };
  beforeAll(async () => ({ s, ticks } = await startStackAtHigh('SOL.PAPER')));
  afterAll(async () => s?.stop());

  it('replaces a resting limit with a new price and size; the replacement rests, then fills at its new price', async () => {
    const t = await s.trader();
    const price = ticks.low.mark.minus(5).toDecimalPlaces(2).toFixed();
    const c = await s.call('POST', '/api/v1/oms/intents', {
      token: t.token,
      body: {
        venue: 'paper',
        symbol: 'SOL.PAPER',
        side: 'buy',
        type: 'limit',
        price,
        qty: '2',
        clientOrderId: 'mod-1',
      },
    });
    await waitFor(
      () => s.call('GET', `/api/v1/oms/intents/${c.body.intentId}`, { token: t.token }),
      (x) => x.body.orderStatus === 'open',
    );

    expect(
      await s.call('POST', '/api/v1/oms/modify', {
        token: t.token,
        body: { intentId: c.body.intentId, newPrice: '200.5' },
      }),
    ).toMatchObject({ status: 400, body: { error: 'validation_failed' } });
    expect(
      (await s.call('POST', '/api/v1/oms/modify', { token: t.token, body: { intentId: c.body.intentId } })).status,
    ).toBe(400);

    const newPrice = Number(ticks.low.mark.ceil().toFixed()); // reached by the low mark
    const res = await s.call('POST', '/api/v1/oms/modify', {
      token: t.token,
      body: { intentId: c.body.intentId, newPrice, newQty: 3 },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.replacedIntentId).toBe(c.body.intentId);
    expect(res.body.intentId).not.toBe(c.body.intentId);
    expect(res.body.intent).toMatchObject({
      price: String(newPrice),
      qty: '3',
      clientOrderId: 'mod-1',
      state: 'signed_pending_dispatch',
    });
    expect((await s.call('GET', `/api/v1/oms/intents/${c.body.intentId}`, { token: t.token })).body).toMatchObject({
      state: 'canceled',
    });
    const old = s.temporal.workflow.getHandle(intentWorkflowId(c.body.intentId));
    expect(await old.result()).toMatchObject({ state: 'canceled' });
    await maybeSaveHistory(old, 'intent-modified');

    await waitFor(
      () => s.call('GET', `/api/v1/oms/intents/${res.body.intentId}`, { token: t.token }),
      (x) => x.body.orderStatus === 'open',
    );
    await publish(s.orm, ticks.low);
    const filled = await waitFor(
      () => s.call('GET', `/api/v1/oms/intents/${res.body.intentId}`, { token: t.token }),
      (x) => x.body.state === 'filled',
    );
    expect(filled.body).toMatchObject({ filledQty: '3', avgFillPrice: String(newPrice) });
    await publish(s.orm, ticks.high);
    expect(
      await s.call('POST', '/api/v1/oms/modify', { token: t.token, body: { intentId: res.body.intentId, newPrice } }),
    ).toMatchObject({ status: 409, body: { error: 'invalid_state' } });
  });
});

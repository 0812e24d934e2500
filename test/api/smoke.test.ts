import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack.js';
import { publish, recordedTick } from '../support/marks.js';

describe('paper market order, end to end', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack();
  });
  afterAll(async () => s?.stop());

  it('fills a market buy of BTC at the recorded book', async () => {
    const tick = await recordedTick('BTC.PAPER', 0);
    await publish(s.orm, tick);
    const t = await s.trader();
    const res = await s.call('POST', '/api/v1/oms/intents', { token: t.token, body: { venue: 'paper', symbol: 'BTC.PAPER', side: 'buy', type: 'market', qty: '0.01', clientOrderId: 'smoke-1' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.clientOrderId).toBe('smoke-1');
    let got;
    for (let i = 0; i < 100; i++) {
      got = await s.call('GET', `/api/v1/oms/intents/${res.body.intentId}`, { token: t.token });
      if (got.body.state === 'filled') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(got!.body.state).toBe('filled');
    expect(got!.body.avgFillPrice).toBe(tick.book.asks[0].price.toFixed());
  });
});

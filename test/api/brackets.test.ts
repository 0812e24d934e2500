/** Brackets (docs/api.md §3.3, §4.4): staged until the parent fills, legs arm on fill, one leg filling cancels the other. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MarkTick } from '../../domain/market/types.js';
import type { Stack } from '../support/stack.js';
import { publish } from '../support/marks.js';
import { fillMarketOrder, startStackAtHigh } from '../support/trading.js';
import { waitFor } from '../support/wait.js';
import { bracketWorkflowId } from '../../modules/oms/workflows/bracket.definitions.js';
import { maybeSaveHistory } from '../support/histories.js';

describe('brackets', () => {
  let s: Stack;
  let ticks: { low: MarkTick; high: MarkTick };
  beforeAll(async () => ({ s, ticks } = await startStackAtHigh('ETH.PAPER')));
  afterAll(async () => s?.stop());

  const bracket = (token: string, id: string) => s.call('GET', `/api/v1/oms/brackets/${id}`, { token });
  const positions = async (token: string, accountId: string) =>
    (await s.call('GET', `/api/v1/accounts/${accountId}/positions`, { token })).body.positions;

  it('stages on an unfilled parent, arms on its fill, and take-profit filling cancels the stop (OCO)', async () => {
    const t = await s.trader();
    const entry = ticks.low.mark.toDecimalPlaces(1, 2); // a buy limit the low mark reaches (rounded up)
    const parent = await s.call('POST', '/api/v1/oms/intents', {
      token: t.token,
      body: { venue: 'paper', symbol: 'ETH.PAPER', side: 'buy', type: 'limit', price: entry.toFixed(), qty: '0.5' },
    });
    await waitFor(
      () => s.call('GET', `/api/v1/oms/intents/${parent.body.intentId}`, { token: t.token }),
      (x) => x.body.orderStatus === 'open',
    );
    const tpPrice = Number(ticks.high.mark.toDecimalPlaces(1, 1).minus('0.1').toFixed()); // the high mark reaches it
    const slPrice = Number(entry.minus(50).toFixed());

    const wrong = await s.call('POST', '/api/v1/oms/brackets/attach', {
      token: t.token,
      body: { parentIntentId: parent.body.intentId, tpPrice: slPrice, slPrice: tpPrice },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.detail.map((d: { code: string }) => d.code)).toEqual(['bracket_side', 'bracket_side']);

    const att = await s.call('POST', '/api/v1/oms/brackets/attach', {
      token: t.token,
      body: { parentIntentId: parent.body.intentId, tpPrice, slPrice },
    });
    expect(att.status, JSON.stringify(att.body)).toBe(200);
    expect(att.body).toMatchObject({
      bracketId: parent.body.intentId,
      staged: true,
      state: 'staged',
      legs: { tp: null, sl: null },
    });
    expect(
      (
        await s.call('POST', '/api/v1/oms/brackets/attach', {
          token: t.token,
          body: { parentIntentId: parent.body.intentId, tpPrice },
        })
      ).body.error,
    ).toBe('invalid_state');

    await publish(s.orm, ticks.low); // the parent fills; the legs arm
    const armed = await waitFor(
      () => bracket(t.token, att.body.bracketId),
      (x) => x.body.state === 'armed' && x.body.legs.sl !== null,
    );
    const legs = armed.body.legs;
    expect((await s.call('GET', `/api/v1/oms/intents/${legs.tp}`, { token: t.token })).body).toMatchObject({
      type: 'take_profit',
      side: 'sell',
      reduceOnly: true,
      qty: '0.5',
    });
    await waitFor(
      () => s.call('GET', `/api/v1/oms/intents/${legs.sl}`, { token: t.token }),
      (x) => x.body.orderStatus === 'open',
    );

    await publish(s.orm, ticks.high); // take-profit triggers
    const closed = await waitFor(
      () => bracket(t.token, att.body.bracketId),
      (x) => x.body.state === 'closed',
    );
    expect(closed.body.filledLeg).toBe('tp');
    expect((await s.call('GET', `/api/v1/oms/intents/${legs.sl}`, { token: t.token })).body.state).toBe('canceled');
    expect(await positions(t.token, t.accountId!)).toEqual([]);
    await maybeSaveHistory(s.temporal.workflow.getHandle(bracketWorkflowId(att.body.bracketId)), 'bracket-tp-filled');
  });

  it('attach-to-position arms at once; modify moves the stop, which then fills', async () => {
    await publish(s.orm, ticks.high);
    const t = await s.trader();
    const filled = await fillMarketOrder(s, t.token, 'ETH.PAPER', ['buy', '0.2']);
    const entry = filled.body.avgFillPrice;
    const att = await s.call('POST', '/api/v1/oms/brackets/attach-to-position', {
      token: t.token,
      body: { symbol: 'ETH.PAPER', slPrice: Math.floor(Number(entry) - 500) },
    });
    expect(att.status, JSON.stringify(att.body)).toBe(200);
    const armed = await waitFor(
      () => bracket(t.token, att.body.bracketId),
      (x) => x.body.legs.sl !== null,
    );
    expect(armed.body).toMatchObject({ state: 'armed', staged: false, parentIntentId: null, legs: { tp: null } });

    const newSl = Number(ticks.high.mark.toDecimalPlaces(1, 1).minus(1).toFixed()); // the low mark reaches it
    const moved = await s.call('POST', '/api/v1/oms/brackets/modify', {
      token: t.token,
      body: { bracketId: att.body.bracketId, slPrice: newSl },
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.slPrice).toBe(String(newSl));
    expect(moved.body.legs.sl).not.toBe(armed.body.legs.sl);
    expect((await s.call('GET', `/api/v1/oms/intents/${armed.body.legs.sl}`, { token: t.token })).body.state).toBe(
      'canceled',
    );
    await waitFor(
      () => s.call('GET', `/api/v1/oms/intents/${moved.body.legs.sl}`, { token: t.token }),
      (x) => x.body.orderStatus === 'open',
    );

    await publish(s.orm, ticks.low);
    const closed = await waitFor(
      () => bracket(t.token, att.body.bracketId),
      (x) => x.body.state === 'closed',
    );
    expect(closed.body.filledLeg).toBe('sl');
    expect(await positions(t.token, t.accountId!)).toEqual([]);
    expect(
      (
        await s.call('POST', '/api/v1/oms/brackets/modify', {
          token: t.token,
          body: { bracketId: att.body.bracketId, slPrice: newSl },
        })
      ).body.error,
    ).toBe('invalid_state');
    await publish(s.orm, ticks.high);
  });

  it('a staged bracket ends canceled when its parent is canceled unfilled', async () => {
    const t = await s.trader();
    const parent = await s.call('POST', '/api/v1/oms/intents', {
      token: t.token,
      body: { venue: 'paper', symbol: 'ETH.PAPER', side: 'buy', type: 'limit', price: '1000', qty: '0.5' },
    });
    const rest = await waitFor(
      () => s.call('GET', `/api/v1/oms/intents/${parent.body.intentId}`, { token: t.token }),
      (x) => x.body.orderStatus === 'open',
    );
    const att = await s.call('POST', '/api/v1/oms/brackets/attach', {
      token: t.token,
      body: { parentIntentId: parent.body.intentId, slPrice: 900 },
    });
    expect(att.body.staged).toBe(true);
    await s.call('POST', '/api/v1/oms/cancel', { token: t.token, body: { venueOrderId: rest.body.venueOrderId } });
    expect(await s.temporal.workflow.getHandle(bracketWorkflowId(att.body.bracketId)).result()).toMatchObject({
      state: 'canceled',
      legs: { tp: null, sl: null },
    });
    // What the trader reads afterwards says so too (not `staged` forever).
    expect((await bracket(t.token, att.body.bracketId)).body).toMatchObject({ state: 'canceled', staged: false });
  });

  it('a leg canceled by hand cancels the other leg: the bracket ends and no order stays open', async () => {
    await publish(s.orm, ticks.high);
    const t = await s.trader();
    await fillMarketOrder(s, t.token, 'ETH.PAPER', ['buy', '0.2']);
    const mark = ticks.high.mark;
    const att = await s.call('POST', '/api/v1/oms/brackets/attach-to-position', {
      token: t.token,
      body: {
        symbol: 'ETH.PAPER',
        tpPrice: Number(mark.times(2).toDecimalPlaces(1).toFixed()),
        slPrice: Number(mark.div(2).toDecimalPlaces(1).toFixed()),
      },
    });
    expect(att.status, JSON.stringify(att.body)).toBe(200);
    const { legs } = (
      await waitFor(
        () => bracket(t.token, att.body.bracketId),
        (x) => x.body.legs.tp !== null && x.body.legs.sl !== null,
      )
    ).body;
    await waitFor(
      () => s.call('GET', `/api/v1/oms/intents/${legs.sl}`, { token: t.token }),
      (x) => x.body.orderStatus === 'open',
    );
    const canceled = await s.call('POST', '/api/v1/oms/cancel', { token: t.token, body: { intentId: legs.tp } });
    expect(canceled.status, JSON.stringify(canceled.body)).toBe(200);

    const handle = s.temporal.workflow.getHandle(bracketWorkflowId(att.body.bracketId));
    expect(await handle.result()).toMatchObject({ state: 'canceled', filledLeg: null });
    expect((await s.call('GET', `/api/v1/oms/intents/${legs.sl}`, { token: t.token })).body).toMatchObject({
      state: 'canceled',
      orderStatus: 'canceled',
    });
    const open = await s.call('GET', `/api/v1/accounts/${t.accountId}/open-orders`, { token: t.token });
    expect(open.status).toBe(200);
    expect(open.body.orders).toEqual([]);
    await maybeSaveHistory(handle, 'bracket-leg-canceled');
  });
});

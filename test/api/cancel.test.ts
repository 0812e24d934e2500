/** Cancel (by venue order id or intent id) and cancel-all (docs/api.md §4.4) through the intent workflow's `cancel` Update. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { issueCredential } from '../../db/seed.js';
import type { MarkTick } from '../../domain/market/types.js';
import { bearerOf, type Stack } from '../support/stack.js';
import { publish } from '../support/marks.js';
import { fillMarketOrder, startStackAtHigh } from '../support/trading.js';
import { riskSocket } from '../support/ws.js';
import { waitFor } from '../support/wait.js';
import { intentWorkflowId } from '../../modules/oms/workflows/intent.definitions.js';
import { maybeSaveHistory } from '../support/histories.js';

describe('cancel', () => {
  let s: Stack;
  let ticks: { low: MarkTick; high: MarkTick };
  beforeAll(async () => ({ s, ticks } = await startStackAtHigh('ETH.PAPER')));
  afterAll(async () => s?.stop());

  /** A buy limit below the market: it rests. */
  const rest = async (token: string, clientOrderId: string) => {
    const price = ticks.low.mark.minus(50).toDecimalPlaces(1).toFixed();
    const r = await s.call('POST', '/api/v1/oms/intents', {
      token,
      body: { venue: 'paper', symbol: 'ETH.PAPER', side: 'buy', type: 'limit', price, qty: '0.1', clientOrderId },
    });
    expect(r.status).toBe(201);
    return waitFor(
      () => s.call('GET', `/api/v1/oms/intents/${r.body.intentId}`, { token }),
      (x) => x.body.orderStatus === 'open',
    );
  };

  /** The answer of a successful cancel of the resting `order` (what {@link rest} returned). */
  const canceledAnswer = (order: Awaited<ReturnType<typeof rest>>) => ({
    ok: true,
    intentId: order.body.intentId,
    venueOrderId: order.body.venueOrderId,
    state: 'canceled',
  });

  it("support reads a resting order's stack trace (the Temporal UI's): the intent workflow's own source lines where it waits", async () => {
    const full = await s.trader();
    const order = await rest(full.token, 'stack-trace');
    const handle = s.temporal.workflow.getHandle(intentWorkflowId(order.body.intentId));
    const text = await handle.query<string>('__stack_trace');
    expect(text).toMatch(/^\s+at followPaper \(\S*modules\/oms\/workflows\/intent\.ts:\d+:\d+\)$/m);
    const { stacks } = await handle.query<{
      stacks: { locations: { file_path?: string; function_name?: string; line?: number }[] }[];
    }>('__enhanced_stack_trace');
    const frames = stacks.flatMap((st) => st.locations);
    expect(frames).toContainEqual(
      expect.objectContaining({
        function_name: 'followPaper',
        file_path: expect.stringMatching(/modules\/oms\/workflows\/intent\.ts$/),
        line: expect.any(Number),
      }),
    );
    // The structured stacks (the UI's) and the text say the same: each stack's first frame is a line of the text.
    for (const st of stacks) {
      const [top] = st.locations;
      expect(text).toContain(`at ${top.function_name} (${top.file_path}:${top.line}:`);
    }
    await s.call('POST', '/api/v1/oms/cancel', { token: full.token, body: { intentId: order.body.intentId } });
  });

  it('cancels a working order by venueOrderId; the socket sees it leave the open orders', async () => {
    const t = await s.trader('liquidation');
    const full = await s.trader();
    // A liquidation credential cancels orders of its owner's account: issue a sibling credential.
    const order = await rest(full.token, 'to-cancel');
    const ws = await riskSocket(s, full.token, { topics: ['Order-Intent-Changed'] });

    const other = await s.call('POST', '/api/v1/oms/cancel', {
      token: t.token,
      body: { venueOrderId: order.body.venueOrderId },
    });
    // Another trader's order is answered as an unknown one: the id does not tell that it exists.
    expect(other).toMatchObject({ status: 404, body: { error: 'order_not_found' } });

    const res = await s.call('POST', '/api/v1/oms/cancel', {
      token: full.token,
      body: { venueOrderId: order.body.venueOrderId },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual(canceledAnswer(order));
    const openOrders = await ws.next((f) => f.type === 'Open-Orders-Update');
    expect(openOrders.data.orders.map((o: { intentId: string }) => o.intentId)).not.toContain(order.body.intentId);
    expect(await ws.next((f) => f.type === 'Order-Intent-Update' && f.data.state === 'canceled')).toMatchObject({
      data: { intentId: order.body.intentId, lastEvent: 'canceled' },
    });
    ws.close();

    const again = await s.call('POST', '/api/v1/oms/cancel', {
      token: full.token,
      body: { venueOrderId: order.body.venueOrderId },
    });
    expect(again).toMatchObject({ status: 409, body: { error: 'invalid_state' } });
    const handle = s.temporal.workflow.getHandle(intentWorkflowId(order.body.intentId));
    expect(await handle.result()).toMatchObject({ state: 'canceled' });
    await maybeSaveHistory(handle, 'intent-resting-limit-canceled');

    // A canceled order does not fill when the mark later crosses.
    await publish(s.orm, ticks.low);
    await new Promise((r) => setTimeout(r, 500));
    expect(
      (await s.call('GET', `/api/v1/oms/intents/${order.body.intentId}`, { token: full.token })).body,
    ).toMatchObject({ state: 'canceled', filledQty: '0' });
    await publish(s.orm, ticks.high);
  });

  it('refuses to cancel a filled order and an unknown order id', async () => {
    const t = await s.trader();
    const filled = await fillMarketOrder(s, t.token, 'ETH.PAPER', ['buy', '0.1']);
    expect(
      await s.call('POST', '/api/v1/oms/cancel', { token: t.token, body: { venueOrderId: filled.body.venueOrderId } }),
    ).toMatchObject({ status: 409, body: { error: 'invalid_state' } });
    expect(
      await s.call('POST', '/api/v1/oms/cancel', { token: t.token, body: { venueOrderId: 'paper-nope' } }),
    ).toMatchObject({ status: 404, body: { error: 'order_not_found' } });
  });

  it('cancels by intent id: a never-signed intent is 409 agent_not_dispatchable, another trader’s is 404 intent_not_found', async () => {
    const self = await issueCredential(s.orm, {
      tenantId: s.tenant.id,
      audience: 'trader',
      signerAddress: privateKeyToAccount(generatePrivateKey()).address,
    });
    const token = await bearerOf(s, self);
    const pending = await s.call('POST', '/api/v1/oms/intents', {
      token,
      body: { venue: 'paper', symbol: 'ETH.PAPER', side: 'buy', type: 'limit', price: '1000', qty: '0.1' },
    });
    expect(pending.body.state).toBe('intent_pending');
    const never = await s.call('POST', '/api/v1/oms/cancel', { token, body: { intentId: pending.body.intentId } });
    expect(never).toMatchObject({ status: 409, body: { error: 'agent_not_dispatchable' } });
    expect((await s.call('GET', `/api/v1/oms/intents/${pending.body.intentId}`, { token })).body.state).toBe(
      'intent_pending',
    );

    const t = await s.trader();
    const order = await rest(t.token, 'by-intent');
    const other = await s.call('POST', '/api/v1/oms/cancel', {
      token: token,
      body: { intentId: order.body.intentId },
    });
    expect(other).toMatchObject({ status: 404, body: { error: 'intent_not_found' } });
    const both = await s.call('POST', '/api/v1/oms/cancel', {
      token: t.token,
      body: { intentId: order.body.intentId, venueOrderId: order.body.venueOrderId },
    });
    expect(both).toMatchObject({ status: 400, body: { error: 'validation_failed' } });
    const res = await s.call('POST', '/api/v1/oms/cancel', { token: t.token, body: { intentId: order.body.intentId } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual(canceledAnswer(order));
  });

  it('cancel-all cancels every working order of the account', async () => {
    const t = await s.trader();
    const a = await rest(t.token, 'all-1');
    const b = await rest(t.token, 'all-2');
    const res = await s.call('POST', '/api/v1/oms/cancel-all', { token: t.token, body: {} });
    expect(res.status).toBe(200);
    expect(res.body.failed).toEqual([]);
    expect(res.body.canceled.map((c: { intentId: string }) => c.intentId).sort()).toEqual(
      [a.body.intentId, b.body.intentId].sort(),
    );
    const orders = await s.call('GET', `/api/v1/accounts/${t.accountId}/orders`, { token: t.token });
    expect(orders.body.orders.map((o: { orderStatus: string }) => o.orderStatus)).toEqual(['canceled', 'canceled']);
  });

  it('a cancel whose Update was lost after the row was written is applied when retried: the workflow ends', async () => {
    // What a Temporal server restart can leave (npm run chaos found it): the workflow's cancel wrote the row, the
    // Update was never accepted, and the workflow still rests. The trader's retry must reach the workflow.
    const t = await s.trader();
    const order = await rest(t.token, 'lost-cancel');
    await s.orm.em
      .fork()
      .getConnection()
      .execute(`update order_intents set state = 'canceled', order_status = 'canceled' where id = ?`, [
        order.body.intentId,
      ]);
    const handle = s.temporal.workflow.getHandle(intentWorkflowId(order.body.intentId));
    expect((await handle.describe()).status.name).toBe('RUNNING');

    const res = await s.call('POST', '/api/v1/oms/cancel', { token: t.token, body: { intentId: order.body.intentId } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual(canceledAnswer(order));
    expect(await handle.result()).toMatchObject({ state: 'canceled' });
    // Once the workflow has ended, a cancel is refused as before.
    const again = await s.call('POST', '/api/v1/oms/cancel', {
      token: t.token,
      body: { intentId: order.body.intentId },
    });
    expect(again).toMatchObject({ status: 409, body: { error: 'invalid_state' } });
  });
});

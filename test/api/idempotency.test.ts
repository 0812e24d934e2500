/** `Idempotency-Key` on /oms writes (docs/api.md §8): replay, conflict, key length, concurrency. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrderIntent } from '../../db/entities.js';
import { scoped } from '../../db/orm.js';
import type { Stack } from '../support/stack.js';
import { startStackWithMark } from '../support/trading.js';

describe('idempotency keys', () => {
  let s: Stack;
  let token: string;
  let credentialId: string;
  const order = { venue: 'paper', symbol: 'SOL.PAPER', side: 'buy', type: 'market', qty: '1.5', clientOrderId: 'idem' };
  beforeAll(async () => {
    s = await startStackWithMark('SOL.PAPER', 0.25);
    ({ token, credentialId } = await s.trader());
  });
  afterAll(async () => s?.stop());
  const compose = (key: string, body: unknown = order) =>
    s.call('POST', '/api/v1/oms/intents', { token, body, headers: { 'idempotency-key': key } });
  const intents = () => scoped(s.orm, s.tenant.id).count(OrderIntent, { credentialId });

  it('replays the stored response for the same key and payload', async () => {
    const first = await compose('replay-key-0001');
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotency-replay')).toBeNull();
    const second = await compose('replay-key-0001');
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotency-replay')).toBe('true');
    expect(second.body).toEqual(first.body);
  });

  it('treats key order in the JSON body as the same payload', async () => {
    const first = await compose('reorder-key-01');
    const reordered = Object.fromEntries(Object.entries(order).reverse());
    const again = await compose('reorder-key-01', reordered);
    expect(again.headers.get('idempotency-replay')).toBe('true');
    expect(again.body.intentId).toBe(first.body.intentId);
  });

  it('refuses the same key with a different payload', async () => {
    await compose('conflict-key-01');
    const res = await compose('conflict-key-01', { ...order, qty: '2' });
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('idempotency_key_conflict');
  });

  it.each([
    ['short', 'a'.repeat(7)],
    ['long', 'a'.repeat(201)],
  ])('refuses a %s key', async (_n, key) => {
    const before = await intents();
    const res = await compose(key);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_idempotency_key');
    expect(await intents()).toBe(before);
  });

  it('a payload refused by validation does not consume the key: the corrected payload goes through', async () => {
    const before = await intents();
    const bad = { ...order, type: 'stop_limit', triggerPrice: '200' };
    const first = await compose('bad-payload-01', bad);
    expect(first.status).toBe(400);
    expect(first.body.error).toBe('stopLimitPrice_required');
    expect(first.body.detail).toEqual([
      {
        path: 'body.stopLimitPrice',
        message: 'stopLimitPrice is required for stop_limit orders',
        code: 'stopLimitPrice_required',
      },
    ]);
    const fixed = await compose('bad-payload-01', { ...bad, stopLimitPrice: '201' });
    expect(fixed.status).toBe(201);
    expect(fixed.headers.get('idempotency-replay')).toBeNull();
    expect(await intents()).toBe(before + 1);
  });

  it('32 concurrent identical requests produce one intent', async () => {
    const before = await intents();
    const results = await Promise.all(Array.from({ length: 32 }, () => compose('concurrent-key-32')));
    expect(results.map((r) => r.status)).toEqual(Array(32).fill(201));
    expect(new Set(results.map((r) => r.body.intentId)).size).toBe(1);
    expect(results.filter((r) => r.headers.get('idempotency-replay') === 'true')).toHaveLength(31);
    expect(await intents()).toBe(before + 1);
  });
});

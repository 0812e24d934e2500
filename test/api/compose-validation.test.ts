/**
 * Compose validation (docs/api.md §2.6, §2.13, §7): every refusal is `{ error, detail }` with the right
 * status, and a refused compose leaves nothing behind (no intent row, no workflow).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrderIntent } from '../../db/entities.js';
import { scoped } from '../../db/orm.js';
import { createTradingGroup, issueCredential } from '../../db/seed.js';
import { bearerOf, type Stack } from '../support/stack.js';
import { startStackWithMark } from '../support/trading.js';
import { waitFor } from '../support/wait.js';

describe('compose validation', () => {
  let s: Stack;
  let token: string;
  let credentialId: string;
  beforeAll(async () => {
    s = await startStackWithMark('BTC.PAPER', 0.3);
    ({ token, credentialId } = await s.trader());
  });
  afterAll(async () => s?.stop());

  const base = { venue: 'paper', symbol: 'BTC.PAPER', side: 'buy', type: 'market', qty: '0.01' };
  const compose = (body: unknown, tk = token) => s.call('POST', '/api/v1/oms/intents', { token: tk, body });

  const table: [string, Record<string, unknown>, number, string, string?][] = [
    ['b3 is refused at compose', { venue: 'b3' }, 400, 'validation_failed', 'body.venue'],
    ['trailing_stop is not accepted', { type: 'trailing_stop' }, 400, 'validation_failed', 'body.type'],
    [
      'stop_limit without stopLimitPrice',
      { type: 'stop_limit', triggerPrice: '120000' },
      400,
      'stopLimitPrice_required',
      'body.stopLimitPrice',
    ],
    ['limit without price', { type: 'limit' }, 400, 'validation_failed', 'body.price'],
    ['stop without triggerPrice', { type: 'stop' }, 400, 'validation_failed', 'body.triggerPrice'],
    ['a negative size', { qty: '-1' }, 400, 'validation_failed', 'body.qty'],
    ['a size that is not a decimal', { qty: '1e-3' }, 400, 'validation_failed', 'body.qty'],
    ['more size decimals than the symbol allows', { qty: '0.000001' }, 400, 'validation_failed', 'body.qty'],
    ['a price off the tick', { type: 'limit', price: '100000.5' }, 400, 'validation_failed', 'body.price'],
    ['an unknown symbol', { symbol: 'DOGE.PAPER' }, 400, 'symbol_unknown', 'body.symbol'],
    [
      'a prediction market on an internalised account (no paper twin)',
      { venue: 'polymarket', symbol: 'TRUMP-INAUGURATED-YES.PM' },
      400,
      'venue_not_internalised',
    ],
    ['leverage above the symbol cap', { leverage: 41 }, 400, 'leverage_above_cap'],
    ['a missing side', { side: undefined }, 400, 'validation_failed', 'body.side'],
  ];

  it.each(table)('%s', async (_n, patch, status, error, path) => {
    const before = await scoped(s.orm, s.tenant.id).count(OrderIntent, { credentialId });
    const res = await compose({ ...base, ...patch });
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body.error).toBe(error);
    if (path) {
      expect(Array.isArray(res.body.detail)).toBe(true);
      expect(res.body.detail.map((d: { path: string }) => d.path)).toContain(path);
    }
    expect(await scoped(s.orm, s.tenant.id).count(OrderIntent, { credentialId })).toBe(before);
  });

  it('coerces numbers exactly: 0.1 + 0.2 style values stay decimal', async () => {
    const res = await compose({ ...base, type: 'limit', price: 50000, qty: 0.003 });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ qty: '0.003', price: '50000', leverage: '1' });
  });

  it("enforces the trading group's per-venue leverage cap", async () => {
    const group = await createTradingGroup(s.orm, s.tenant.id, 'conservative', { paper: 5 });
    const t = await issueCredential(s.orm, {
      tenantId: s.tenant.id,
      audience: 'trader',
      account: { tradingGroupId: group.id },
    });
    const tk = await bearerOf(s, t);
    const refused = await compose({ ...base, leverage: 6 }, tk);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: 'leverage_above_cap', cap: 5, requested: 6 });
    expect((await compose({ ...base, leverage: 5 }, tk)).status).toBe(201);
  });

  it('malformed JSON is a 400 invalid_json', async () => {
    const res = await s.call('POST', '/api/v1/oms/intents', { token, raw: '{"venue": "paper",' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_json');
  });

  it("another credential's intent is 404, the list holds only the caller's own, newest first", async () => {
    const mine = await compose({ ...base, clientOrderId: 'mine-1' });
    const mine2 = await compose({ ...base, clientOrderId: 'mine-2' });
    const other = await s.trader();
    const res = await s.call('GET', `/api/v1/oms/intents/${mine.body.intentId}`, { token: other.token });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('intent_not_found');
    const list = await s.call('GET', '/api/v1/oms/intents', { token });
    expect(list.body.intents.slice(0, 2).map((i: { intentId: string }) => i.intentId)).toEqual([
      mine2.body.intentId,
      mine.body.intentId,
    ]);
    expect((await s.call('GET', '/api/v1/oms/intents', { token: other.token })).body.intents).toEqual([]);
  });

  it('an order that needs more margin than the account has is rejected by the risk check', async () => {
    const res = await compose({ ...base, qty: '5' }); // ~555k USD notional at 1x on a 100k account
    expect(res.status).toBe(201);
    const got = await waitFor(
      () => s.call('GET', `/api/v1/oms/intents/${res.body.intentId}`, { token }),
      (r) => r.body.state !== 'signed_pending_dispatch',
    );
    expect(got.body).toMatchObject({ state: 'rejected', rejectReason: 'insufficient_margin', filledQty: '0' });
  });
});

/** Flatten and reverse (docs/api.md §3.1, §4.4): one batch workflow, legs in order: cancels, closes, opens. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueCredential } from '../../db/seed.js';
import { batchWorkflowId } from '../../modules/oms/workflows/batch.definitions.js';
import { startStack, bearerOf, type Stack } from '../support/stack.js';
import { extremeTicks, publish, recordedTick } from '../support/marks.js';
import { waitFor } from '../support/wait.js';
import { maybeSaveHistory } from '../support/histories.js';

describe('flatten and reverse batches', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack();
    await publish(s.orm, await recordedTick('BTC.PAPER', 0.4));
    await publish(s.orm, await recordedTick('ETH.PAPER', 0.4));
  });
  afterAll(async () => s?.stop());

  const fill = async (token: string, body: Record<string, unknown>) => {
    const r = await s.call('POST', '/api/v1/oms/intents', { token, body: { venue: 'paper', type: 'market', ...body } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return waitFor(
      () => s.call('GET', `/api/v1/oms/intents/${r.body.intentId}`, { token }),
      (x) => ['filled', 'dispatched', 'rejected'].includes(x.body.state) && x.body.state !== 'signed_pending_dispatch',
    );
  };
  const positions = async (token: string, accountId: string) =>
    (await s.call('GET', `/api/v1/accounts/${accountId}/positions`, { token })).body.positions.map(
      (p: { symbol: string; qty: string }) => `${p.symbol} ${p.qty}`,
    );

  it('flatten cancels working orders, then closes every position with reduce-only market orders; a liquidation credential may do it', async () => {
    const t = await s.trader();
    await fill(t.token, { symbol: 'BTC.PAPER', side: 'buy', qty: '0.02' });
    await fill(t.token, { symbol: 'ETH.PAPER', side: 'sell', qty: '0.3' });
    const { low } = await extremeTicks('BTC.PAPER');
    const resting = await fill(t.token, {
      symbol: 'BTC.PAPER',
      side: 'buy',
      type: 'limit',
      price: low.mark.minus(500).floor().toFixed(),
      qty: '0.01',
    });
    expect(resting.body.orderStatus).toBe('open');
    expect(await positions(t.token, t.accountId!)).toEqual(['BTC.PAPER 0.02', 'ETH.PAPER -0.3']);

    // A liquidation credential of the same trader.
    const liq = await issueCredential(s.orm, {
      tenantId: s.tenant.id,
      audience: 'trader',
      tier: 'liquidation',
      ownerId: t.ownerId,
      accountId: t.accountId!,
    });
    const liqToken = await bearerOf(s, liq);
    const res = await s.call('POST', '/api/v1/oms/flatten', {
      token: liqToken,
      body: {},
      headers: { 'idempotency-key': 'flatten-once-1' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(
      res.body.legs.map((l: { action: string; symbol: string; side?: string; qty?: string }) => [
        l.action,
        l.symbol,
        l.side ?? null,
        l.qty ?? null,
      ]),
    ).toEqual([
      ['cancel', 'BTC.PAPER', null, null],
      ['close', 'BTC.PAPER', 'sell', '0.02'],
      ['close', 'ETH.PAPER', 'buy', '0.3'],
    ]);
    const replay = await s.call('POST', '/api/v1/oms/flatten', {
      token: liqToken,
      body: {},
      headers: { 'idempotency-key': 'flatten-once-1' },
    });
    expect(replay.body.batchId).toBe(res.body.batchId);

    const handle = s.temporal.workflow.getHandle(batchWorkflowId(res.body.batchId));
    const outcome = await handle.result();
    expect(outcome.legs.map((l: { action: string; state: string }) => `${l.action} ${l.state}`)).toEqual([
      'cancel canceled',
      'close filled',
      'close filled',
    ]);
    await maybeSaveHistory(handle, 'batch-flatten');
    expect(await positions(t.token, t.accountId!)).toEqual([]);
    const closeLeg = await s.call('GET', `/api/v1/oms/intents/${res.body.legs[1].intentId}`, { token: liqToken });
    expect(closeLeg.body).toMatchObject({ reduceOnly: true, type: 'market', state: 'filled' });
    expect((await s.call('GET', `/api/v1/oms/intents/${resting.body.intentId}`, { token: t.token })).body.state).toBe(
      'canceled',
    );
    // liquidation may flatten but never reverse
    expect(
      (await s.call('POST', '/api/v1/oms/reverse', { token: liqToken, body: { symbol: 'BTC.PAPER' } })).body.error,
    ).toBe('tier_insufficient');
  });

  it('reverse closes the long and opens the same size short, in that order', async () => {
    const t = await s.trader();
    await fill(t.token, { symbol: 'BTC.PAPER', side: 'buy', qty: '0.015' });
    const res = await s.call('POST', '/api/v1/oms/reverse', { token: t.token, body: { symbol: 'BTC.PAPER' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(
      res.body.legs.map((l: { action: string; side: string; qty: string }) => `${l.action} ${l.side} ${l.qty}`),
    ).toEqual(['close sell 0.015', 'open sell 0.015']);
    await s.temporal.workflow.getHandle(batchWorkflowId(res.body.batchId)).result();
    expect(await positions(t.token, t.accountId!)).toEqual(['BTC.PAPER -0.015']);
    const trades = await s.call('GET', `/api/v1/accounts/${t.accountId}/trades`, { token: t.token });
    expect(trades.body.trades).toHaveLength(1);
    expect(trades.body.trades[0]).toMatchObject({ side: 'long', qty: '0.015' });
  });

  it('reverse without a position is 409 and starts nothing', async () => {
    const t = await s.trader();
    const res = await s.call('POST', '/api/v1/oms/reverse', { token: t.token, body: { symbol: 'SOL.PAPER' } });
    expect(res).toMatchObject({ status: 409, body: { error: 'invalid_state' } });
  });
});

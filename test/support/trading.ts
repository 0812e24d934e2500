/**
 * Trading steps the api tests share: paper market orders filled one after another, and one imported
 * round trip (docs/api.md §4.3 manual trades). Sizes in contracts as decimal strings, prices in USD.
 */
import { expect } from 'vitest';
import { startStack, type Stack } from './stack.js';
import { publish, recordedTick } from './marks.js';
import { waitFor } from './wait.js';

/** One market order: side and size (contracts, decimal string). */
export type MarketLeg = readonly ['buy' | 'sell', string];

/**
 * Places each leg as a paper market order on `symbol` for the trader holding `token`, waiting for each
 * to be `filled` before the next (so fills, positions and round trips come in this order).
 */
export async function fillMarketOrders(s: Stack, token: string, symbol: string, legs: readonly MarketLeg[]) {
  for (const [side, qty] of legs) {
    const r = await s.call('POST', '/api/v1/oms/intents', {
      token,
      body: { venue: 'paper', symbol, side, type: 'market', qty },
    });
    await waitFor(
      () => s.call('GET', `/api/v1/oms/intents/${r.body.intentId}`, { token }),
      (x) => x.body.state === 'filled',
    );
  }
}

/** A closed BTC.PAPER short of 0.5 on 2025-07-21 (118,712 → 118,500.5 USD, 2.5 USD fees), as a manual trade body. */
export const MANUAL_SHORT = {
  symbol: 'BTC.PAPER',
  side: 'short',
  qty: 0.5,
  entryTime: '2025-07-21T12:00:00Z',
  exitTime: '2025-07-21T15:30:00Z',
  entryPrice: 118712,
  exitPrice: 118500.5,
  fees: 2.5,
};

/** Imports {@link MANUAL_SHORT} into the trader's account; expects `201`. */
export async function importManualShort(s: Stack, t: Awaited<ReturnType<Stack['trader']>>) {
  const res = await s.call('POST', `/api/v1/accounts/${t.accountId}/manual-trades`, {
    token: t.token,
    body: MANUAL_SHORT,
  });
  expect(res.status).toBe(201);
}

/**
 * A stack whose trader holds the round trips the history tests read: a SOL.PAPER mark published, then
 * buy 3, sell 1, sell 2 filled in turn (three fills, a long closed in two parts).
 */
export async function stackWithRoundTrips() {
  const s = await startStack();
  await publish(s.orm, await recordedTick('SOL.PAPER', 0.5));
  const t = await s.trader();
  await fillMarketOrders(s, t.token, 'SOL.PAPER', [
    ['buy', '3'],
    ['sell', '1'],
    ['sell', '2'],
  ]);
  return { s, t };
}

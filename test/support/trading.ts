/**
 * Trading steps the api tests share: paper market orders filled one after another, and one imported
 * round trip (docs/api.md §4.3 manual trades). Sizes in contracts as decimal strings, prices in USD.
 */
import { expect } from 'vitest';
import { startStack, type Stack } from './stack.js';
import { extremeTicks, publish, recordedTick } from './marks.js';
import { waitFor } from './wait.js';

/** One market order: side and size (contracts, decimal string). */
export type MarketLeg = readonly ['buy' | 'sell', string];

/**
 * Places each leg as a paper market order on `symbol` for the trader holding `token`, waiting for each
 * to be `filled` before the next (so fills, positions and round trips come in this order).
 */
export async function fillMarketOrders(s: Stack, token: string, symbol: string, legs: readonly MarketLeg[]) {
  for (const leg of legs) await fillMarketOrder(s, token, symbol, leg);
}

/**
 * Places one paper market order (`[side, qty]`, qty in contracts as a decimal string) on `symbol` for the trader
 * holding `token` and waits until it is `filled` (10 s); returns the intent as `GET /api/v1/oms/intents/{id}`
 * answers then (`body.intentId`, `body.venueOrderId`, `body.avgFillPrice`…).
 */
export async function fillMarketOrder(s: Stack, token: string, symbol: string, [side, qty]: MarketLeg) {
  const r = await s.call('POST', '/api/v1/oms/intents', {
    token,
    body: { venue: 'paper', symbol, side, type: 'market', qty },
  });
  return waitFor(
    () => s.call('GET', `/api/v1/oms/intents/${r.body.intentId}`, { token }),
    (x) => x.body.state === 'filled',
  );
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

/**
 * A stack whose `symbol` (a paper symbol) stands at the highest mark of its recording, with both extreme
 * ticks ({@link extremeTicks}): a buy limit at or above `ticks.low.mark` rests until the test publishes
 * `ticks.low`.
 */
export async function startStackAtHigh(symbol: string) {
  const s = await startStack();
  const ticks = await extremeTicks(symbol);
  await publish(s.orm, ticks.high);
  return { s, ticks };
}

/**
 * The body of a paper market buy of `qty` BTC.PAPER (BTC, decimal string) on the account `accountId`, at
 * `leverage` (a multiple of the margin) when given: what `POST /api/v1/oms/intents` takes.
 */
export const btcMarketBuy = (accountId: string, qty: string, leverage?: number) => ({
  accountId,
  venue: 'paper',
  symbol: 'BTC.PAPER',
  side: 'buy',
  type: 'market',
  qty,
  ...(leverage === undefined ? {} : { leverage }),
});

/**
 * Places {@link btcMarketBuy} for the trader holding `token`, expects `201` and waits until the intent is
 * `filled` (10 s). Returns the answer of the compose call.
 */
export async function buyBtcFilled(s: Stack, token: string, accountId: string, qty: string, leverage?: number) {
  const buy = await s.call('POST', '/api/v1/oms/intents', { token, body: btcMarketBuy(accountId, qty, leverage) });
  expect(buy.status, JSON.stringify(buy.body)).toBe(201);
  await waitFor(
    () => s.call('GET', `/api/v1/oms/intents/${buy.body.intentId}`, { token }),
    (r) => r.body.state === 'filled',
  );
  return buy.body;
}

/**
 * The body of a paper buy limit of `qty` BTC.PAPER (BTC, decimal string) at `price` (USD, decimal string) under
 * the caller's `clientOrderId`: what `POST /api/v1/oms/intents` takes.
 */
export const btcLimitBuy = (price: string, qty: string, clientOrderId: string) => ({
  venue: 'paper',
  symbol: 'BTC.PAPER',
  side: 'buy',
  type: 'limit',
  price,
  qty,
  clientOrderId,
});

/**
 * Starts a stack (options as for {@link startStack}) and publishes the recorded tick of the paper `symbol` at
 * `fraction` (0..1) of its recording as the current mark.
 */
export async function startStackWithMark(
  symbol: string,
  fraction: number,
  opts: Parameters<typeof startStack>[0] = {},
) {
  const s = await startStack(opts);
  await publish(s.orm, await recordedTick(symbol, fraction));
  return s;
}

/**
 * Shared pieces of the prediction-market adapter ↔ simulator tests (test/venues/kalshi.test.ts and
 * test/venues/polymarket.test.ts): the outcome marks, the holdings `account()` lists and the orders a
 * member placed on the venue's own web interface.
 */
import { expect } from 'vitest';

/** A prediction market's two outcome symbols both marked at 0.5 (USD a share): `symbol → mark`. */
export const evenMarks = (yes: { symbol: string }, no: { symbol: string }) =>
  new Map<string, string>([
    [yes.symbol, '0.5'],
    [no.symbol, '0.5'],
  ]);

/**
 * A prediction market holding as `account()` lists it: `qty` shares of `symbol` bought at `avgEntryPrice`
 * (USD a share), with no per-position mark, PnL or leverage.
 */
export const predictionHolding = (symbol: string, qty: string, avgEntryPrice: string) => ({
  symbol,
  qty,
  avgEntryPrice,
  markPrice: null,
  unrealizedPnlUsd: null,
  leverage: null,
});

/**
 * Matches the open order that `sim.injectOrder(owner, placed)` put on the venue's book as an adapter's
 * `orders()` lists it: the same symbol, side, size and limit price, with some client order id of the venue's.
 */
export const injectedOpenOrder = (
  venueOrderId: string,
  placed: { symbol: string; side: 'buy' | 'sell'; qty: string; price: string },
) => expect.objectContaining({ venueOrderId, ...placed, status: 'open', clientOrderId: expect.any(String) });

/** Smart-order-routing cost model and decision (docs/api.md §4.4 route-intents): hand-computed, exact decimals. */
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../domain/decimal.js';
import { VENUE_SYMBOLS } from '../../domain/market/symbols.js';
import type { BookSnapshot } from '../../domain/market/types.js';
import { TAKER_FEE_BPS, estimateCost, walkBook, type CostEstimate, type SorVenue } from '../../domain/sor/cost.js';
import { decide, listAsset, realisedSavings, type Quote, type VenueInput } from '../../domain/sor/decide.js';

const d = (v: string | number) => new Decimal(v);
const levels = (rows: [string, string][]) => rows.map(([price, size]) => ({ price: d(price), size: d(size) }));
/** mark 100, touch 99.5 / 100.5, three levels a side holding 8 contracts. */
const BOOK: BookSnapshot = {
  asks: levels([
    ['100.5', '1'],
    ['101', '2'],
    ['102', '5'],
  ]),
  bids: levels([
    ['99.5', '1'],
    ['99', '2'],
    ['98', '5'],
  ]),
};
const QUOTE: Quote = { mark: d(100), bid: d('99.5'), ask: d('100.5'), book: BOOK };
const shifted = (by: string): Quote => ({
  ...QUOTE,
  ask: QUOTE.ask.plus(by),
  book: { bids: BOOK.bids, asks: BOOK.asks.map((l) => ({ price: l.price.plus(by), size: l.size })) },
});
const str = (e: CostEstimate) => Object.fromEntries(Object.entries(e).map(([k, v]) => [k, (v as Decimal).toFixed()]));

describe('cost estimate', () => {
  it('walks the book for the VWAP, and says when it cannot fill', () => {
    expect(walkBook(BOOK.asks, d(2))!.toFixed()).toBe('100.75');
    expect(walkBook(BOOK.asks, d(8))!.toFixed()).toBe('101.5625');
    expect(walkBook(BOOK.asks, d('8.01'))).toBeNull();
  });

  it('a buy pays the taker fee on the VWAP notional, the half-spread and the depth walked past the best ask', () => {
    const e = estimateCost({ side: 'buy', qty: d(2), ...QUOTE, takerFeeBps: d(TAKER_FEE_BPS.hyperliquid) });
    expect(str(e as CostEstimate)).toEqual({
      vwap: '100.75',
      feeUsd: '0.090675', // 100.75 × 2 × 4.5 / 10 000
      spreadUsd: '1', // (100.5 − 99.5) / 2 × 2
      impactUsd: '0.5', // (100.75 − 100.5) × 2
      totalCostUsd: '1.590675',
      totalCostBps: '79.53375', // 1.590675 / 200 × 10 000
      allInPrice: '100.7953375', // 100.75 + 0.090675 / 2
    });
  });

  it('a sell is the mirror image: it walks the bids and its all-in price is below the VWAP', () => {
    const e = estimateCost({
      side: 'sell',
      qty: d(2),
      ...QUOTE,
      takerFeeBps: d(TAKER_FEE_BPS.hyperliquid),
    }) as CostEstimate;
    expect(str(e)).toMatchObject({
      vwap: '99.25',
      feeUsd: '0.089325',
      spreadUsd: '1',
      impactUsd: '0.5',
      totalCostUsd: '1.589325',
      allInPrice: '99.2053375',
    });
  });

  it('an order larger than the book is insufficient_depth', () => {
    expect(estimateCost({ side: 'buy', qty: d(9), ...QUOTE, takerFeeBps: d(0) })).toEqual({
      reason: 'insufficient_depth',
    });
  });
});

describe('asset listing', () => {
  it('maps a bare asset to the venue symbol, case-insensitively', () => {
    expect(listAsset('btc', VENUE_SYMBOLS.hyperliquid)).toMatchObject({ spec: { symbol: 'BTC.HL' } });
    expect(listAsset('BTC', VENUE_SYMBOLS.aster)).toMatchObject({ spec: { symbol: 'BTC.ASTER' } });
    expect(listAsset('BTC', VENUE_SYMBOLS.polymarket)).toEqual({ reason: 'asset_not_listed' });
  });
  it('a prediction market needs its outcome: the bare market has two symbols', () => {
    expect(listAsset('TRUMP-INAUGURATED', VENUE_SYMBOLS.polymarket)).toEqual({ reason: 'asset_ambiguous' });
    expect(listAsset('trump-inaugurated-yes', VENUE_SYMBOLS.polymarket)).toMatchObject({
      spec: { symbol: 'TRUMP-INAUGURATED-YES.PM' },
    });
  });
});

describe('decision', () => {
  const venue = (v: SorVenue, asset: string, agentActive: boolean, quote: Quote | null): VenueInput => ({
    venue: v,
    listing: listAsset(asset, VENUE_SYMBOLS[v]),
    agentActive,
    quote,
  });
  const btc = (hl: [boolean, Quote | null], aster: [boolean, Quote | null]) => [
    venue('hyperliquid', 'BTC', ...hl),
    venue('aster', 'BTC', ...aster),
    venue('polymarket', 'BTC', true, QUOTE),
  ];
  const buy2 = { side: 'buy' as const, qty: d(2), leverage: 1 };

  it('with equal books the lower taker fee wins, and the savings are the all-in price gap × qty', () => {
    const r = decide(buy2, btc([true, QUOTE], [true, QUOTE]));
    if (!r.ok) throw new Error(r.error);
    expect(r.selected.venue).toBe('aster');
    expect(r.nextBest?.venue).toBe('hyperliquid');
    // aster all-in 100.75 + 100.75 × 2 × 3.5e-4 / 2 = 100.7852625; hyperliquid 100.7953375
    expect(r.selected.estimate.allInPrice.toFixed()).toBe('100.7852625');
    expect(r.savingsUsd!.toFixed()).toBe('0.02015');
    expect(r.eligibleCount).toBe(2);
    expect(r.candidates.map((c) => [c.venue, c.eligible, c.reason ?? null])).toEqual([
      ['hyperliquid', true, null],
      ['aster', true, null],
      ['polymarket', false, 'asset_not_listed'],
    ]);
    expect(r.candidates[1]).toMatchObject({
      symbol: 'BTC.ASTER',
      mark: '100',
      feeUsd: '0.070525',
      spreadUsd: '1',
      impactUsd: '0.5',
      totalCostUsd: '1.570525',
      totalCostBps: '78.5262',
      takerFeeBps: '3.5',
    });
  });

  it('a wider book loses despite a lower fee; for a sell the highest all-in price wins', () => {
    const buy = decide(buy2, btc([true, QUOTE], [true, shifted('1')]));
    expect(buy.ok && buy.selected.venue).toBe('hyperliquid');
    const sell = decide(
      { ...buy2, side: 'sell' },
      btc(
        [true, QUOTE],
        [
          true,
          {
            ...QUOTE,
            bid: d('98.5'),
            book: { asks: BOOK.asks, bids: BOOK.bids.map((l) => ({ price: l.price.minus(1), size: l.size })) },
          },
        ],
      ),
    );
    expect(sell.ok && sell.selected.venue).toBe('hyperliquid');
    expect(sell.ok && sell.savingsUsd!.isPos()).toBe(true);
  });

  it('skips venues with a reason each: no agent, no quote, thin book, lot size, leverage', () => {
    const r = decide(
      { ...buy2, qty: d(4) },
      btc([false, QUOTE], [true, { ...QUOTE, book: { bids: BOOK.bids, asks: levels([['100.5', '1']]) } }]),
    );
    expect(r).toMatchObject({ ok: false, error: 'no_eligible_venue' });
    expect(r.candidates.map((c) => c.reason)).toEqual(['no_agent', 'insufficient_depth', 'asset_not_listed']);
    const lot = decide({ ...buy2, qty: d('0.0001') }, btc([true, QUOTE], [true, QUOTE]));
    expect(lot.ok && lot.selected.venue).toBe('hyperliquid');
    expect(lot.candidates[1]).toMatchObject({ venue: 'aster', eligible: false, reason: 'lot_size' });
    const lev = decide({ ...buy2, leverage: 50 }, btc([true, QUOTE], [true, QUOTE]));
    expect(lev.candidates[0]).toMatchObject({ venue: 'hyperliquid', reason: 'leverage_above_cap' });
    expect(lev.ok && lev.selected.venue).toBe('aster');
  });

  it('names why nothing could be picked: asset_unknown, no_quotes, no_eligible_venue', () => {
    const doge = (['hyperliquid', 'aster', 'polymarket'] as const).map((v) => venue(v, 'DOGE', true, QUOTE));
    expect(decide(buy2, doge)).toMatchObject({ ok: false, error: 'asset_unknown' });
    expect(decide(buy2, btc([true, null], [true, null]))).toMatchObject({ ok: false, error: 'no_quotes' });
    expect(decide(buy2, btc([false, null], [true, null]))).toMatchObject({ ok: false, error: 'no_eligible_venue' });
  });
});

describe('realised savings', () => {
  it('buy: next-best all-in price minus the realised price with fees, times the filled size', () => {
    // realised all-in 100.6 + 0.2 / 2 = 100.7; next best 100.8 → 0.1 × 2
    expect(
      realisedSavings({
        side: 'buy',
        nextBestAllInPrice: d('100.8'),
        avgFillPrice: d('100.6'),
        filledQty: d(2),
        feesUsd: d('0.2'),
      }).toFixed(),
    ).toBe('0.2');
  });
  it('sell: the sign flips; filling worse than the next best is a negative saving', () => {
    // realised all-in 99.3 − 0.1 = 99.2; next best 99.25 → (99.25 − 99.2) × −1 × 2
    expect(
      realisedSavings({
        side: 'sell',
        nextBestAllInPrice: d('99.25'),
        avgFillPrice: d('99.3'),
        filledQty: d(2),
        feesUsd: d('0.2'),
      }).toFixed(),
    ).toBe('-0.1');
  });
});

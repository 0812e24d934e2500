/**
 * The paper engine's arithmetic on real recorded depth: the first Hyperliquid BTC L2 snapshot of
 * the recording (2025-09-03 12:55:12Z): bids 111038 × 8.84885, 111037 × 0.38041, 111036 × 0.22402;
 * asks 111039 × 0.0036, 111040 × 0.00011, 111041 × 0.00011, ...
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Decimal, ZERO } from '../../domain/decimal.js';
import { crosses, matchOnArrival, matchOnMark, type PaperOrder } from '../../domain/paper/engine.js';
import type { MarkTick } from '../../domain/market/types.js';

const file = path.resolve(import.meta.dirname, '../../data/recorded/hyperliquid_ticks/orderbooks_BTC.csv');
const row = readFileSync(file, 'utf8').split(/\r?\n/)[1].split(',');
const level = (i: number, side: 'bid' | 'ask') => {
  const o = 3 + i * 4 + (side === 'bid' ? 0 : 2);
  return { price: new Decimal(row[o]), size: new Decimal(row[o + 1]) };
};
const book = {
  bids: Array.from({ length: 20 }, (_, i) => level(i, 'bid')),
  asks: Array.from({ length: 20 }, (_, i) => level(i, 'ask')),
};
/** The recorded book, optionally shifted by `delta` USD (a moved market), as a tick. */
const tick = (delta = '0'): MarkTick => {
  const move = (l: { price: Decimal; size: Decimal }) => ({ price: l.price.plus(delta), size: l.size });
  const bids = book.bids.map(move);
  const asks = book.asks.map(move);
  return {
    venue: 'paper',
    symbol: 'BTC.PAPER',
    ts: 0,
    bid: bids[0].price,
    ask: asks[0].price,
    mark: bids[0].price.plus(asks[0].price).div(2),
    book: { bids, asks },
  };
};
const order = (o: Partial<PaperOrder> & Pick<PaperOrder, 'side' | 'type'>): PaperOrder => ({
  reduceOnly: false,
  timeInForce: 'Gtc',
  ...o,
  qty: o.qty ?? new Decimal('0.01'),
});
const fills = (r: ReturnType<typeof matchOnArrival>) =>
  'fills' in r ? r.fills.map((f) => `${f.qty.toFixed()}@${f.price.toFixed()}/${f.liquidity}`) : [];
const FLAT = ZERO;
/** How the engine answers `o` (see `order`) arriving on the recorded book of `tick()` with no position. */
const arrive = (o: Parameters<typeof order>[0]) => matchOnArrival(order(o), tick(), FLAT);

describe('paper engine on recorded BTC depth', () => {
  it('reads the recorded snapshot it is tested on', () => {
    expect([
      book.bids[0].price.toFixed(),
      book.bids[0].size.toFixed(),
      book.asks[0].price.toFixed(),
      book.asks[0].size.toFixed(),
    ]).toEqual(['111038', '8.84885', '111039', '0.0036']);
    expect(tick().mark.toFixed()).toBe('111038.5');
  });

  it('a market buy larger than the top ask walks to the next level at the exact size-weighted price', () => {
    const r = arrive({ side: 'buy', type: 'market', qty: new Decimal('0.0037') });
    expect(r.kind).toBe('filled');
    expect(fills(r)).toEqual(['0.0036@111039/taker', '0.0001@111040/taker']);
    if (r.kind !== 'filled') return;
    // 0.0036 × 111039 + 0.0001 × 111040 = 399.7404 + 11.104 = 410.8444 USD
    expect(r.fills.reduce((s, f) => s.plus(f.price.times(f.qty)), ZERO).toFixed()).toBe('410.8444');
    expect(r.avgPrice.toSignificantDigits(12).toFixed()).toBe('111039.027027');
  });

  it('a market sell of exactly the best bid size fills at one level', () => {
    const r = arrive({ side: 'sell', type: 'market', qty: new Decimal('8.84885') });
    expect(r).toMatchObject({ kind: 'filled' });
    expect(fills(r)).toEqual(['8.84885@111038/taker']);
  });

  it('a market order beyond all 20 recorded levels fills them all and cancels the exact remainder', () => {
    const depth = book.asks.reduce((s, l) => s.plus(l.size), ZERO);
    const r = arrive({ side: 'buy', type: 'market', qty: depth.plus('1') });
    expect(r.kind).toBe('partial_canceled');
    if (r.kind !== 'partial_canceled') return;
    expect(r.fills).toHaveLength(20);
    expect(r.filledQty.toFixed()).toBe(depth.toFixed());
    expect(r.canceledQty.toFixed()).toBe('1');
    expect(r.reason).toBe('book_exhausted');
  });

  it('Alo that would cross is rejected; Alo below the ask rests', () => {
    expect(arrive({ side: 'buy', type: 'limit', price: new Decimal('111039'), timeInForce: 'Alo' })).toEqual({
      kind: 'rejected',
      reason: 'alo_would_cross',
    });
    expect(arrive({ side: 'buy', type: 'limit', price: new Decimal('111038'), timeInForce: 'Alo' }).kind).toBe(
      'resting',
    );
  });

  it('Ioc: no cross cancels; a partial cross cancels the remainder', () => {
    expect(arrive({ side: 'buy', type: 'limit', price: new Decimal('111038'), timeInForce: 'Ioc' })).toEqual({
      kind: 'canceled',
      reason: 'ioc_no_cross',
    });
    const r = arrive({
      side: 'buy',
      type: 'limit',
      price: new Decimal('111040'),
      timeInForce: 'Ioc',
      qty: new Decimal('0.005'),
    });
    expect(r).toMatchObject({ kind: 'partial_canceled', reason: 'ioc_remainder' });
    expect(fills(r)).toEqual(['0.0036@111039/taker', '0.00011@111040/taker']);
    if (r.kind === 'partial_canceled') expect(r.canceledQty.toFixed()).toBe('0.00129');
  });

  it('a Gtc limit takes the levels at or better than its price and rests the remainder', () => {
    const r = arrive({ side: 'buy', type: 'limit', price: new Decimal('111040'), qty: new Decimal('0.005') });
    expect(r.kind).toBe('resting');
    expect(fills(r)).toEqual(['0.0036@111039/taker', '0.00011@111040/taker']);
    if (r.kind !== 'resting') return;
    expect(r.order.qty.toFixed()).toBe('0.00129');
    // The market falls 10 USD: mark 111028.5 ≤ 111040, the rest fills at the limit as maker.
    const later = matchOnMark(r.order, tick('-10'), FLAT);
    expect(fills(later)).toEqual(['0.00129@111040/maker']);
  });

  it('a resting sell limit fills only once the mark reaches it', () => {
    const sell = order({ side: 'sell', type: 'limit', price: new Decimal('111050') });
    expect(matchOnArrival(sell, tick(), FLAT).kind).toBe('resting');
    expect(matchOnMark(sell, tick('11'), FLAT)).toMatchObject({ kind: 'resting', fills: [] }); // mark 111049.5
    expect(fills(matchOnMark(sell, tick('12'), FLAT))).toEqual(['0.01@111050/maker']); // mark 111050.5
  });

  it('a buy stop rests until the mark rises to its trigger, then walks the book as market', () => {
    const stop = order({ side: 'buy', type: 'stop', triggerPrice: new Decimal('111100'), qty: new Decimal('0.0037') });
    expect(matchOnArrival(stop, tick(), FLAT).kind).toBe('resting');
    expect(crosses(stop, new Decimal('111099.5'))).toBe(false);
    expect(crosses(stop, new Decimal('111100'))).toBe(true);
    const r = matchOnMark(stop, tick('62'), FLAT); // mark 111100.5
    expect(fills(r)).toEqual(['0.0036@111101/taker', '0.0001@111102/taker']);
  });

  it('a sell take-profit triggers when the mark rises to it; a buy take-profit when it falls', () => {
    expect(
      matchOnArrival(
        order({ side: 'sell', type: 'take_profit', triggerPrice: new Decimal('111200') }),
        tick(),
        new Decimal('0.01'),
      ).kind,
    ).toBe('resting');
    expect(
      fills(
        matchOnArrival(
          order({ side: 'sell', type: 'take_profit', triggerPrice: new Decimal('111000') }),
          tick(),
          new Decimal('0.01'),
        ),
      ),
    ).toEqual(['0.01@111038/taker']);
    expect(
      crosses(order({ side: 'buy', type: 'take_profit', triggerPrice: new Decimal('111000') }), new Decimal('110999')),
    ).toBe(true);
  });

  it('a stop-limit triggers as a stop, then rests as a limit until the mark reaches its limit', () => {
    const sl = order({
      side: 'buy',
      type: 'stop_limit',
      triggerPrice: new Decimal('111100'),
      stopLimitPrice: new Decimal('111090'),
    });
    const triggered = matchOnMark(sl, tick('62'), FLAT); // mark 111100.5, asks from 111101: no cross at 111090
    expect(triggered).toMatchObject({ kind: 'resting', fills: [] });
    if (triggered.kind !== 'resting') return;
    expect(triggered.order.triggered).toBe(true);
    expect(matchOnMark(triggered.order, tick('55'), FLAT)).toMatchObject({ kind: 'resting', fills: [] }); // mark 111093.5
    expect(fills(matchOnMark(triggered.order, tick('51'), FLAT))).toEqual(['0.01@111090/maker']); // mark 111089.5
  });

  it('reduce-only never increases exposure: clipped to the position, refused when flat or same side', () => {
    const r = matchOnArrival(order({ side: 'sell', type: 'market', reduceOnly: true }), tick(), new Decimal('0.002'));
    expect(fills(r)).toEqual(['0.002@111038/taker']);
    expect(
      matchOnArrival(order({ side: 'buy', type: 'market', reduceOnly: true }), tick(), new Decimal('0.002')),
    ).toEqual({ kind: 'rejected', reason: 'reduce_only_would_increase' });
    expect(arrive({ side: 'sell', type: 'market', reduceOnly: true })).toEqual({
      kind: 'rejected',
      reason: 'reduce_only_would_increase',
    });
    // A resting reduce-only whose position was closed meanwhile is canceled, not filled.
    const tp = order({ side: 'sell', type: 'take_profit', triggerPrice: new Decimal('111200'), reduceOnly: true });
    expect(matchOnMark(tp, tick('200'), FLAT)).toEqual({ kind: 'canceled', reason: 'reduce_only_would_increase' });
  });
});

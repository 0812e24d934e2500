/**
 * The credential envelope's rules (domain/auth/envelope.ts, docs/api.md §2.6): which price values an
 * order, when an order adds exposure (a flip does, a reduction never), and which limit refuses first.
 */
import { describe, expect, it } from 'vitest';
import { exposureBreach, orderBreach, valuationPrice, type RiskEnvelope } from '../../domain/auth/envelope.js';

const ENVELOPE: RiskEnvelope = { maxOrderNotionalUsd: '1000', maxPositionNotionalUsd: '1500', dailyLossLimitUsd: '50' };
const order = (o: Partial<Parameters<typeof exposureBreach>[1]>) =>
  exposureBreach(ENVELOPE, {
    side: 'buy',
    qty: '1',
    reduceOnly: false,
    priceUsd: '100',
    positionQty: '0',
    pnlTodayUsd: '0',
    ...o,
  });

describe('credential envelope', () => {
  it.each([
    ['market', {}, 'mark'],
    ['limit', { price: '10' }, '10'],
    ['stop', { triggerPrice: '20' }, '20'],
    ['take_profit', { triggerPrice: '30' }, '30'],
    ['stop_limit', { triggerPrice: '20', stopLimitPrice: '19' }, '19'],
  ])('a %s order is valued at its price, else the mark', (type, prices, expected) => {
    expect(valuationPrice({ type, ...prices }, () => 'mark')).toBe(expected);
  });

  it.each([
    ['within every limit', {}, null],
    ['order notional 11 × 100 above 1000', { qty: '11' }, 'envelope_order_notional'],
    ['position after the fill 16 × 100 above 1500', { qty: '6', positionQty: '10' }, 'envelope_position_notional'],
    [
      'a flip from long 5 to short 16 adds exposure',
      { side: 'sell', qty: '21', positionQty: '5', priceUsd: '50' },
      'envelope_order_notional',
    ],
    ['loss today 50 reaches the limit', { pnlTodayUsd: '-50' }, 'daily_loss_limit'],
    ['a profit today is no loss', { pnlTodayUsd: '500' }, null],
    ['a reduction past every limit passes', { side: 'sell', qty: '30', positionQty: '40', pnlTodayUsd: '-900' }, null],
    ['reduce-only passes', { qty: '50', reduceOnly: true, pnlTodayUsd: '-900' }, null],
    ['no price: the notional limits cannot be judged', { qty: '50', priceUsd: null }, null],
  ] as const)('%s', (_, o, code) => {
    expect(order(o)?.code ?? null).toBe(code);
  });

  it('allowlists name what was refused and what is allowed; leverage names limit and request', () => {
    const limits = { envelope: { maxLeverage: 3 }, allowedVenues: ['paper'], allowedSymbols: null };
    expect(orderBreach(limits, { venue: 'aster', symbol: 'BTC.ASTER', leverage: 1 })).toMatchObject({
      code: 'venue_not_allowed',
      status: 403,
      extra: { venue: 'aster', allowed: ['paper'] },
    });
    expect(orderBreach(limits, { venue: 'paper', symbol: 'BTC.PAPER', leverage: 4 })).toMatchObject({
      code: 'envelope_leverage',
      extra: { limit: 3, requested: 4 },
    });
    expect(orderBreach(limits, { venue: 'paper', symbol: 'SOL.PAPER', leverage: 3 })).toBeNull();
  });
});

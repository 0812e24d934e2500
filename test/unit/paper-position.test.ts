/** Position, round-trip and account arithmetic (docs/api.md §2.5, §2.8), exact decimals. */
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../domain/decimal.js';
import { FLAT, applyFill, fee, unrealizedPnl } from '../../domain/paper/position.js';
import { initialMargin, venueState } from '../../domain/paper/account.js';

const d = (v: string) => new Decimal(v);
const buy = (qty: string, price: string) => ({ side: 'buy' as const, qty: d(qty), price: d(price) });
const sell = (qty: string, price: string) => ({ side: 'sell' as const, qty: d(qty), price: d(price) });

describe('positions and round trips', () => {
  it('averages the entry of an increasing position', () => {
    const a = applyFill(FLAT, buy('0.01', '111039'), 1).position;
    const b = applyFill(a, buy('0.03', '111043'), 2).position;
    expect(b.qty.toFixed()).toBe('0.04');
    expect(b.avgEntryPrice.toFixed()).toBe('111042'); // (1110.39 + 3331.29) / 0.04
    expect(b.openedAt).toBe(1);
  });

  it('realises PnL on a partial close and records the round trip', () => {
    const p = applyFill(FLAT, buy('0.04', '111000'), 1).position;
    const { position, closed } = applyFill(p, sell('0.01', '111250'), 5);
    expect(position.qty.toFixed()).toBe('0.03');
    expect(position.avgEntryPrice.toFixed()).toBe('111000');
    expect(position.realizedPnl.toFixed()).toBe('2.5');
    expect(closed).toMatchObject({ side: 'long', openedAt: 1, closedAt: 5 });
    expect(closed!.realizedPnl.toFixed()).toBe('2.5');
  });

  it('a short profits when price falls', () => {
    const p = applyFill(FLAT, sell('2', '4344.1'), 1).position;
    expect(unrealizedPnl(p, d('4300')).toFixed()).toBe('88.2');
    const { closed } = applyFill(p, buy('2', '4300'), 2);
    expect(closed).toMatchObject({ side: 'short' });
    expect(closed!.realizedPnl.toFixed()).toBe('88.2');
  });

  it('flips through zero: closes the whole position and opens the rest at the fill price', () => {
    const p = applyFill(FLAT, buy('1', '208.98'), 1).position;
    const { position, closed } = applyFill(p, sell('3', '209.5'), 7);
    expect(closed!.qty.toFixed()).toBe('1');
    expect(closed!.realizedPnl.toFixed()).toBe('0.52');
    expect(position.qty.toFixed()).toBe('-2');
    expect(position.avgEntryPrice.toFixed()).toBe('209.5');
    expect(position.openedAt).toBe(7);
  });

  it('fees are notional × bps / 10 000', () => {
    expect(fee(d('111039'), d('0.01'), d('4.5')).toFixed()).toBe('0.4996755'); // 1110.39 × 0.00045
    expect(fee(d('111040'), d('0.00129'), d('1.5')).toFixed()).toBe('0.02148624'); // 143.2416 × 0.00015
  });
});

describe('account state per venue', () => {
  it('values positions at the mark: equity, margin used and available', () => {
    const s = venueState(d('100000'), [
      { qty: d('0.5'), avgEntryPrice: d('111000'), mark: d('111200'), leverage: d('10') },
    ]);
    expect(s.unrealizedPnlUsd.toFixed()).toBe('100');
    expect(s.equityUsd.toFixed()).toBe('100100');
    expect(s.marginUsedUsd.toFixed()).toBe('5560');
    expect(s.marginAvailableUsd.toFixed()).toBe('94540');
  });

  it('initial margin is notional / leverage, zero for reduce-only', () => {
    expect(initialMargin(d('0.01'), d('111039'), d('20'), false).toFixed()).toBe('55.5195');
    expect(initialMargin(d('0.01'), d('111039'), d('20'), true).toFixed()).toBe('0');
  });
});

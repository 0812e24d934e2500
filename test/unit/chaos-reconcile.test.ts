/**
 * The chaos reconciliation's check that a batch's legs ended in plan order (scripts/lib/chaos/reconcile.ts
 * `legsEndedInOrder`; README "Breaking it on purpose"): close and open legs strictly in order after every cancel leg;
 * cancel legs in any order among themselves, as a bracket cancels a leg's sibling itself.
 */
import { describe, expect, it } from 'vitest';
import { legsEndedInOrder } from '../../scripts/lib/chaos/reconcile.js';

const legs = (...xs: [string, number][]) => xs.map(([action, seq]) => ({ action, seq }));

describe('legsEndedInOrder', () => {
  it('accepts cancel legs a bracket ended first (its OCO), then the close and opens in order', () => {
    expect(
      legsEndedInOrder(
        legs(
          ['cancel', 120],
          ['cancel', 124],
          ['cancel', 128],
          ['cancel', 122],
          ['cancel', 126],
          ['close', 141],
          ['open', 145],
          ['open', 149],
        ),
      ),
    ).toBe(true);
  });

  it('refuses close or open legs that ended out of plan order', () => {
    expect(legsEndedInOrder(legs(['cancel', 3], ['close', 9], ['close', 7], ['open', 12]))).toBe(false);
    expect(legsEndedInOrder(legs(['close', 5], ['open', 5]))).toBe(false);
  });

  it('refuses a cancel leg that ended after a close or open leg, and a leg that never ended', () => {
    expect(legsEndedInOrder(legs(['cancel', 3], ['cancel', 11], ['close', 9], ['open', 12]))).toBe(false);
    expect(legsEndedInOrder(legs(['cancel', -1], ['close', 9]))).toBe(false);
    expect(legsEndedInOrder(legs(['close', 4], ['open', -1]))).toBe(false);
  });
});

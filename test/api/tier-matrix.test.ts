/**
 * The §5.5 tier matrix over every OMS write route, as one table: a refused tier gets 403 with
 * `tier_readonly` or `tier_insufficient` and `detail` naming held and needed tier; an allowed tier
 * passes the gate (it may then fail validation with an empty body, which is not a 403).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OMS_WRITE_TIER, TIERS, type Tier } from '../../domain/gates.js';
import { startStack, type Stack } from '../support/stack.js';

const ROUTES = Object.keys(OMS_WRITE_TIER) as (keyof typeof OMS_WRITE_TIER)[];
const RANK: Record<Tier, number> = { readonly: 0, liquidation: 1, fullTrading: 2 };

describe('OMS tier matrix (docs/api.md §5.5)', () => {
  let s: Stack;
  const tokens = {} as Record<Tier, string>;
  beforeAll(async () => {
    s = await startStack();
    for (const tier of TIERS) tokens[tier] = (await s.trader(tier)).token;
  });
  afterAll(async () => s?.stop());

  const cases = ROUTES.flatMap((route) => TIERS.map((tier) => [route, tier] as const));
  it.each(cases)('/oms/%s as %s', async (route, tier) => {
    const res = await s.call('POST', `/api/v1/oms/${route}`, { token: tokens[tier], body: {} });
    const needed = OMS_WRITE_TIER[route];
    if (RANK[tier] >= RANK[needed]) {
      expect(res.status, JSON.stringify(res.body)).not.toBe(403);
    } else {
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({
        error: tier === 'readonly' ? 'tier_readonly' : 'tier_insufficient',
        held: tier,
        needed,
      });
      expect(res.body.detail).toContain(tier);
      expect(res.body.detail).toContain(needed);
    }
  });
});

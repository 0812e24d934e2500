/**
 * Audience and tier gates (docs/api.md §5.3, §5.5) as one table over real requests, plus the tier table
 * of every OMS write route against every tier.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OMS_WRITE_TIER, TIERS, checkTier, type Tier } from '../../domain/gates.js';
import { issueCredential } from '../../db/seed.js';
import { startStack, type Stack } from '../support/stack.js';
import { publish, recordedTick } from '../support/marks.js';

describe('audience and tier gates', () => {
  let s: Stack;
  const tokens: Record<string, string> = {};
  const accounts: Record<string, string> = {};
  beforeAll(async () => {
    s = await startStack();
    await publish(s.orm, await recordedTick('ETH.PAPER', 0.5));
    for (const tier of TIERS) {
      const t = await s.trader(tier);
      tokens[tier] = t.token;
      accounts[tier] = t.accountId!;
    }
    tokens.operator = (await s.operator(['firm:operate'])).token;
  });
  afterAll(async () => s?.stop());

  const order = { venue: 'paper', symbol: 'ETH.PAPER', side: 'buy', type: 'market', qty: '0.01' };
  const table: [string, string, string, (who: string) => string, unknown, number, Record<string, unknown>][] = [
    [
      'readonly composes',
      'readonly',
      'POST',
      () => '/api/v1/oms/intents',
      order,
      403,
      { error: 'tier_readonly', held: 'readonly', needed: 'fullTrading' },
    ],
    [
      'liquidation composes',
      'liquidation',
      'POST',
      () => '/api/v1/oms/intents',
      order,
      403,
      { error: 'tier_insufficient', held: 'liquidation', needed: 'fullTrading' },
    ],
    [
      'fullTrading composes',
      'fullTrading',
      'POST',
      () => '/api/v1/oms/intents',
      order,
      201,
      { state: 'signed_pending_dispatch' },
    ],
    [
      'operator composes',
      'operator',
      'POST',
      () => '/api/v1/oms/intents',
      order,
      403,
      { error: 'wrong_credential_audience', expected: 'trader', actual: 'operator' },
    ],
    [
      'operator reads accounts',
      'operator',
      'GET',
      () => '/api/v1/accounts',
      undefined,
      403,
      { error: 'wrong_credential_audience', expected: 'trader', actual: 'operator' },
    ],
    ['readonly reads its state', 'readonly', 'GET', (w) => `/api/v1/accounts/${accounts[w]}/state`, undefined, 200, {}],
    [
      'liquidation reads its intents',
      'liquidation',
      'GET',
      () => '/api/v1/oms/intents',
      undefined,
      200,
      { intents: [] },
    ],
    [
      'readonly provisions a paper account',
      'readonly',
      'POST',
      () => '/api/v1/sandbox/paper-account',
      {},
      403,
      { error: 'tier_insufficient' },
    ],
    [
      'liquidation provisions a paper account',
      'liquidation',
      'POST',
      () => '/api/v1/sandbox/paper-account',
      {},
      403,
      { error: 'tier_insufficient' },
    ],
    [
      'fullTrading provisions a paper account',
      'fullTrading',
      'POST',
      () => '/api/v1/sandbox/paper-account',
      {},
      201,
      { executionMode: 'internalised' },
    ],
    [
      "readonly reads another trader's account",
      'readonly',
      'GET',
      () => `/api/v1/accounts/${accounts.fullTrading}`,
      undefined,
      403,
      { error: 'forbidden' },
    ],
    ['no bearer', 'none', 'GET', () => '/api/v1/accounts', undefined, 401, { error: 'unauthorized' }],
  ];

  it.each(table)('%s', async (_n, who, method, path, body, status, expected) => {
    const res = await s.call(method, path(who), { token: tokens[who], body });
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body).toMatchObject(expected);
  });

  it('every OMS write route against every tier (docs/api.md §5.5 matrix)', () => {
    const allowed: Record<Tier, string[]> = {
      readonly: [],
      liquidation: ['cancel', 'cancel-all', 'flatten'],
      fullTrading: Object.keys(OMS_WRITE_TIER),
    };
    for (const tier of TIERS) {
      for (const [route, needed] of Object.entries(OMS_WRITE_TIER)) {
        const refusal = checkTier(tier, needed);
        expect(refusal === null, `${tier} on /oms/${route}`).toBe(allowed[tier].includes(route));
        if (refusal) expect(refusal.code).toBe(tier === 'readonly' ? 'tier_readonly' : 'tier_insufficient');
      }
    }
  });

  it('operator scopes are refused at mint for a trader credential', async () => {
    await expect(
      issueCredential(s.orm, { tenantId: s.tenant.id, audience: 'trader', scopes: ['prop:manage'] }),
    ).rejects.toMatchObject({ code: 'validation_failed' });
  });
});

/**
 * One agent key, 1,000 orders at once (issue 4 proof; docs/venues.md §5 "allocate nonces
 * serially per signing key"): every order is signed with a nonce from the platform's allocator
 * (db/agent-nonces.ts, PostgreSQL) and sent to the Hyperliquid simulator, which enforces
 * Hyperliquid's nonce rules per signer (unused, above the smallest of the 100 highest kept, within
 * a day). Dispatch runs each agent's signed writes in its signing lane
 * (modules/oms/activities/agent-lane.ts), as routed dispatch does. None may be refused.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { MikroORM } from '@mikro-orm/postgresql';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { openOrm, platformEm } from '../../db/orm.js';
import { nextAgentNonce } from '../../db/agent-nonces.js';
import { hyperliquidAdapter as hl } from '../../venues/hyperliquid/adapter.js';
import type { VenueContext } from '../../venues/types.js';
import { orderRequest } from '../support/adapters.js';
import { inAgentLane } from '../../modules/oms/activities/agent-lane.js';
import { startHyperliquidSimulator, type HyperliquidSimulator } from '../../simulators/hyperliquid.js';

describe('1,000 concurrent orders through one agent key', () => {
  let orm: MikroORM;
  let sim: HyperliquidSimulator;
  beforeAll(async () => {
    orm = await openOrm(inject('databaseUrl'));
    sim = await startHyperliquidSimulator({ markOf: async (symbol) => (symbol === 'ETH.HL' ? '4300' : null) });
  });
  afterAll(async () => {
    await sim?.close();
    await orm?.close();
  });

  it('all 1,000 are accepted: zero nonce rejections', async () => {
    const ownerKey = generatePrivateKey();
    const owner = privateKeyToAccount(ownerKey).address;
    const agentKey = generatePrivateKey();
    const agent = privateKeyToAccount(agentKey);
    const agentId = `agt_conc_${Date.now()}`;
    const base = { baseUrl: sim.url, network: 'mainnet' as const, owner, fetch };
    const request = hl.authorizationRequest({
      owner,
      agentAddress: agent.address,
      agentName: 'conc',
      expiresAt: Date.now() + 86_400_000,
      nonce: Date.now(),
      network: 'mainnet',
    });
    if (request.kind !== 'eip712') throw new Error('expected typed data');
    const signature = await privateKeyToAccount(ownerKey).signTypedData(request.typedData);
    const ctx: VenueContext = {
      ...base,
      agent: { kind: 'evm', privateKey: agentKey, address: agent.address },
      nextNonce: (unit) => nextAgentNonce(platformEm(orm), agentId, unit),
    };
    await hl.submitAuthorization(ctx, { request, signature });

    /** The `i`-th order: a Gtc buy limit of 0.01 ETH.HL at 2150, half the 4300 mark (it rests). */
    const limitBuy = (i: number) =>
      orderRequest(
        {
          clientOrderId: hl.clientOrderId(`int_conc_${i}`),
          symbol: 'ETH.HL',
          qty: '0.01',
          markPrice: '4300',
          leverage: '1',
        },
        { type: 'limit', price: '2150' },
      );
    const results = await Promise.allSettled(
      Array.from({ length: 1000 }, (_, i) => inAgentLane(agentId, () => hl.place(ctx, limitBuy(i)))),
    );
    const refused = results.filter((r) => r.status === 'rejected').map((r) => String(r.reason));
    expect(refused.slice(0, 3)).toEqual([]);
    expect(sim.orderCount(owner)).toBe(1000);
  });
});

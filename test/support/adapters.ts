/**
 * Shared pieces of the adapter ↔ simulator tests (test/venues/*.test.ts): the order request an adapter is
 * given, the nonce source of a venue context, the owner's EIP-712 approval of an agent, the empty account
 * view and a refused call (prediction-market pieces are in prediction-venues.ts).
 */
import { expect } from 'vitest';
import type { Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { VenueRejected, type VenueAdapter, type VenueContext, type VenueOrderRequest } from '../../venues/types.js';

/**
 * A venue order request: a Gtc market buy, not reduce-only, with no limit, trigger or stop-limit price; its
 * client order id, symbol, size (`qty`, contracts or coins as a decimal string), mark (`markPrice`, USD) and
 * leverage (a decimal string) from `given`, then anything in `o` on top.
 */
export function orderRequest(
  given: Pick<VenueOrderRequest, 'clientOrderId' | 'symbol' | 'qty' | 'markPrice' | 'leverage'>,
  o: Partial<VenueOrderRequest> = {},
): VenueOrderRequest {
  return {
    side: 'buy',
    type: 'market',
    price: null,
    triggerPrice: null,
    stopLimitPrice: null,
    reduceOnly: false,
    timeInForce: 'Gtc',
    ...given,
    ...o,
  };
}

/**
 * The perpetual venues' test order ({@link orderRequest}): a market buy of 0.01 `symbol` at 3× leverage with
 * the mark `markPrice` (USD), under a fresh client order id of `adapter`'s, then anything in `o` on top.
 */
export const perpOrderRequest = (
  adapter: VenueAdapter,
  symbol: string,
  markPrice: string,
  o: Partial<VenueOrderRequest> = {},
): VenueOrderRequest =>
  orderRequest(
    { clientOrderId: adapter.clientOrderId(`int_${Math.random()}`), symbol, qty: '0.01', markPrice, leverage: '3' },
    o,
  );

/** A `nextNonce` for venue contexts: strictly increasing bigints starting at the current time in ms. */
export function nonceSource(): () => Promise<bigint> {
  let nonce = BigInt(Date.now());
  return async () => ++nonce;
}

/** The account view of a wallet funded with `balanceUsd` (decimal string) that holds nothing yet. */
export const emptyAccount = (balanceUsd: string) => ({
  balanceUsd,
  unrealizedPnlUsd: '0',
  equityUsd: balanceUsd,
  marginUsedUsd: '0',
  marginAvailableUsd: balanceUsd,
  positions: [],
});

/**
 * The fields of request `r` that the adapter's order view and fills repeat as they were sent: client order
 * id, symbol, side and size.
 */
export const orderEcho = (r: VenueOrderRequest) => ({
  clientOrderId: r.clientOrderId,
  symbol: r.symbol,
  side: r.side,
  qty: r.qty,
});

/**
 * On a venue whose agents the owner approves with an EIP-712 signature (Hyperliquid, Aster): a user with their
 * own wallet (or `ownerKey`) who authorises a fresh agent key (or `agentKey`) named `name` (default 'mv-test')
 * until `expiresAt` (ms since the epoch; default a week from now), submitted through `adapter` with the
 * context `ctxOf(agentKey, owner)`. Returns both keys, the owner's address, the context, the request and the
 * owner's signature.
 */
export async function authoriseEvmAgent(
  adapter: VenueAdapter,
  ctxOf: (agentKey: Hex, owner: string) => VenueContext,
  opts: { ownerKey?: Hex; agentKey?: Hex; expiresAt?: number; name?: string } = {},
) {
  const ownerKey = opts.ownerKey ?? generatePrivateKey();
  const agentKey = opts.agentKey ?? generatePrivateKey();
  const owner = privateKeyToAccount(ownerKey).address;
  const request = adapter.authorizationRequest({
    owner,
    agentAddress: privateKeyToAccount(agentKey).address,
    agentName: opts.name ?? 'mv-test',
    expiresAt: opts.expiresAt ?? Date.now() + 7 * 86_400_000,
    nonce: Date.now(),
    network: 'mainnet',
  });
  if (request.kind !== 'eip712') throw new Error('expected eip712');
  const signature = await privateKeyToAccount(ownerKey).signTypedData(request.typedData);
  const ctx = ctxOf(agentKey, owner);
  await adapter.submitAuthorization(ctx, { request, signature });
  return { ownerKey, agentKey, owner, ctx, request, signature };
}

/** Expects `call` (an adapter call) to fail with a {@link VenueRejected} whose reason is exactly `reason`. */
export async function expectRejected(call: Promise<unknown>, reason: string): Promise<void> {
  const err = (await call.catch((e: unknown) => e)) as VenueRejected;
  expect(err).toBeInstanceOf(VenueRejected);
  expect(err.reason).toBe(reason);
}

/**
 * Places `r` through `adapter` for `user` while the simulator drops the acknowledgement: expects the place
 * to fail and the venue to hold exactly one order of `user` all the same. Answers what
 * `findByClientOrderId` then finds for `r`.
 */
export async function placeWithLostAck(
  adapter: VenueAdapter,
  sim: { dropNextAck(): void; orderCount(user: string): number },
  ctx: VenueContext,
  user: string,
  r: VenueOrderRequest,
) {
  sim.dropNextAck();
  await expect(adapter.place(ctx, r)).rejects.toThrow();
  expect(sim.orderCount(user)).toBe(1);
  return adapter.findByClientOrderId(ctx, r.symbol, r.clientOrderId);
}

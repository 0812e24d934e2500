/**
 * Shared pieces of the prediction-market adapter ↔ simulator tests (test/venues/kalshi.test.ts and
 * test/venues/polymarket.test.ts): the outcome marks, the holdings `account()` lists and the orders a
 * member placed on the venue's own web interface; and what the tests driving the Polymarket simulator with
 * Polymarket's official client share (test/venues/polymarket-v2-conformance.test.ts, polymarket-v3.test.ts):
 * a wallet to sign with, a signed order in the platform's shape, a resting buy and its cancel, the simulator's
 * condition id of a market.
 */
import { expect } from 'vitest';
import { createWalletClient, encodePacked, http, keccak256, type Chain, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { polygon } from 'viem/chains';
import { ClobClient, OrderType, Side, isV2Order, type SignedOrder } from '@polymarket/clob-client-v2';
import type { PolymarketOrder } from '../../venues/polymarket/signing.js';

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

// ---------------------------------------------------------------------------------------------
// Polymarket's official client (@polymarket/clob-client-v2)

/**
 * The condition id the Polymarket simulator gives the market of outcome tokens `yes` and `no` (decimal uint256
 * text), as docs/venues.md §3.4 defines it: `0x` + keccak256(abi.encodePacked(uint256 yes, uint256 no)). The
 * `market` of its books, orders and trades, and the id of `GET /clob-markets/<condition>`.
 */
export const simConditionIdOf = (yes: string, no: string): Hex =>
  keccak256(encodePacked(['uint256', 'uint256'], [BigInt(yes), BigInt(no)]));

/** A viem wallet client of `key` on `chain` (default Polygon) for the official client; signing is local, the transport never used. */
export const clobWallet = (key: Hex, chain: Chain = polygon) =>
  createWalletClient({ account: privateKeyToAccount(key), chain, transport: http('http://127.0.0.1:9') });

/**
 * An order the official client signed for the V2 or the V3 exchange (the same fields), in the platform's shape
 * (what venues/polymarket/signing.ts `signOrder` and `orderHash` take). @throws Error on a V1 order.
 */
export const asPlatformOrder = (signed: SignedOrder): PolymarketOrder => {
  if (!isV2Order(signed)) throw new Error('the client built a V1 order');
  return {
    salt: signed.salt,
    maker: signed.maker as Hex,
    signer: signed.signer as Hex,
    tokenId: signed.tokenId,
    makerAmount: signed.makerAmount,
    takerAmount: signed.takerAmount,
    side: signed.side,
    signatureType: signed.signatureType,
    timestamp: signed.timestamp,
    metadata: signed.metadata as Hex,
    builder: signed.builder as Hex,
  };
};

/** `client` buys 10 shares of `tokenID` with a GTC limit order at `price` (`createAndPostOrder`, tick 0.01): the venue's answer. */
export const clobBuy = (client: ClobClient, tokenID: string, price: number) =>
  client.createAndPostOrder({ tokenID, price, size: 10, side: Side.BUY }, { tickSize: '0.01' }, OrderType.GTC);

/** `client` cancels the resting order `orderID`, and the venue answers that it did. */
export async function expectClobCanceled(client: ClobClient, orderID: string): Promise<void> {
  expect(await client.cancelOrder({ orderID })).toEqual({ canceled: [orderID], not_canceled: {} });
}

/**
 * Conformance of the Polymarket simulator with Polymarket's own published client,
 * `@polymarket/clob-client` (its L1 `ClobAuth` and L2 HMAC headers, its request shapes and
 * parsing), given a viem wallet client: derive the API key, read the book, tick size, neg-risk flag
 * and fee rate, post an order, list it, read it, cancel it, post one that fills, read the trades and
 * the collateral and share balances. Nothing is set up by hand beyond the marks and a deposit.
 *
 * The installed client (5.x) builds CLOB V1 orders (`taker`, `nonce`, `feeRateBps`, exchange
 * domain version "1"), which the V2 exchange no longer takes; the test shows the simulator refusing
 * it as the real CLOB does. V2 orders are signed with the platform's signer
 * (venues/polymarket/signing.ts) and posted with the client's own L2 headers (`createL2Headers`);
 * every read after that goes through the client. What the simulator deliberately does not imitate
 * is listed in docs/venues.md §3.4.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWalletClient, http } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { polygon } from 'viem/chains';
import {
  AssetType,
  ClobClient,
  OrderType,
  Side,
  SignatureType,
  createL2Headers,
  type ApiKeyCreds,
} from '@polymarket/clob-client';
import { POLYMARKET_SYMBOLS } from '../../domain/market/venues/polymarket.js';
import {
  BYTES32_ZERO,
  orderAmounts,
  orderHash,
  signOrder,
  type PolymarketOrder,
} from '../../venues/polymarket/signing.js';
import { startPolymarketSimulator, type PolymarketSimulator } from '../../simulators/polymarket.js';

const YES = POLYMARKET_SYMBOLS[0];
const TOKEN = YES.venueSymbol!;

describe('@polymarket/clob-client against the Polymarket simulator', () => {
  const marks = new Map([[YES.symbol, '0.5']]);
  const key = generatePrivateKey();
  const address = privateKeyToAccount(key).address;
  // Signing is local (the account's key); the transport is never used.
  const wallet = createWalletClient({
    account: privateKeyToAccount(key),
    chain: polygon,
    transport: http('http://127.0.0.1:9'),
  });
  let sim: PolymarketSimulator;
  let creds: ApiKeyCreds;
  let trader: ClobClient;
  let seq = 0;

  beforeAll(async () => {
    sim = await startPolymarketSimulator({ markOf: async (s) => marks.get(s) ?? null });
    sim.fund(address, '100');
  });
  afterAll(async () => sim?.close());

  /** A V2 order of `size` YES shares at `price` (decimal strings), signature type 0, signed by the wallet's key. */
  async function v2Order(side: 'BUY' | 'SELL', size: string, price: string) {
    const amounts = orderAmounts(side, size, price, '0.01');
    const order: PolymarketOrder = {
      salt: String(1_000 + ++seq),
      maker: address,
      signer: address,
      tokenId: TOKEN,
      makerAmount: amounts.makerAmount,
      takerAmount: amounts.takerAmount,
      side,
      signatureType: SignatureType.EOA,
      timestamp: String(Date.now() + seq),
      metadata: BYTES32_ZERO,
      builder: BYTES32_ZERO,
    };
    return {
      order,
      signature: await signOrder(key, order, 'mainnet', false),
      hash: orderHash(order, 'mainnet', false),
    };
  }

  /** POSTs a V2 order with the client's own L2 headers; the parsed answer. */
  async function postV2(o: Awaited<ReturnType<typeof v2Order>>, orderType: OrderType) {
    const body = JSON.stringify({
      order: { ...o.order, salt: Number(o.order.salt), expiration: '0', signature: o.signature },
      owner: creds.key,
      orderType,
      postOnly: false,
      deferExec: false,
    });
    const headers = await createL2Headers(wallet, creds, { method: 'POST', requestPath: '/order', body });
    const res = await fetch(`${sim.url}/order`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body,
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  it('derives the API key by L1 ClobAuth: created once, then derived', async () => {
    const l1 = new ClobClient(sim.url, 137, wallet);
    creds = await l1.createOrDeriveApiKey();
    expect(creds).toEqual({ key: expect.any(String), secret: expect.any(String), passphrase: expect.any(String) });
    expect(await l1.createOrDeriveApiKey()).toEqual(creds);
    trader = new ClobClient(sim.url, 137, wallet, creds, SignatureType.EOA);
  });

  it('serves market data without authentication: book, tick size, neg risk, fee rate', async () => {
    expect(await trader.getTickSize(TOKEN)).toBe('0.01');
    expect(await trader.getNegRisk(TOKEN)).toBe(false);
    expect(await trader.getFeeRateBps(TOKEN)).toBe(0);
    expect(await trader.getOrderBook(TOKEN)).toMatchObject({
      asset_id: TOKEN,
      bids: [],
      asks: [],
      tick_size: '0.01',
      neg_risk: false,
      last_trade_price: '0.5',
      hash: expect.any(String),
    });
  });

  it('refuses the client’s own V1 order, as the V2 exchange does', async () => {
    const v1 = await trader.createOrder({ tokenID: TOKEN, price: 0.3, size: 10, side: Side.BUY });
    expect(await trader.postOrder(v1, OrderType.GTC)).toMatchObject({
      status: 400,
      error: expect.stringMatching(/invalid order version/),
    });
  });

  it('places a V2 order, lists it, reads it, shows it on the book, cancels it', async () => {
    const o = await v2Order('BUY', '10', '0.3');
    expect(await postV2(o, OrderType.GTC)).toEqual({
      status: 200,
      body: expect.objectContaining({ success: true, orderID: o.hash, status: 'live' }),
    });
    const open = await trader.getOpenOrders({ asset_id: TOKEN });
    expect(open).toEqual([
      expect.objectContaining({ id: o.hash, status: 'LIVE', side: 'BUY', original_size: '10', price: '0.3' }),
    ]);
    expect(await trader.getOrder(o.hash)).toMatchObject({ id: o.hash, status: 'LIVE', size_matched: '0' });
    expect((await trader.getOrderBook(TOKEN)).bids).toEqual([{ price: '0.3', size: '10' }]);
    expect(await trader.cancelOrder({ orderID: o.hash })).toEqual({ canceled: [o.hash], not_canceled: {} });
    expect(await trader.getOpenOrders({ asset_id: TOKEN })).toEqual([]); // finished orders are not listed
    expect(await trader.getOrder(o.hash)).toMatchObject({ status: 'CANCELED' });
  });

  it('fills a marketable order; trades and balances (collateral and shares) follow', async () => {
    const o = await v2Order('BUY', '10', '0.6');
    expect((await postV2(o, OrderType.FAK)).body).toMatchObject({ success: true, status: 'matched' });
    expect(await trader.getOrder(o.hash)).toMatchObject({ status: 'MATCHED', size_matched: '10' });
    expect(await trader.getTrades({ asset_id: TOKEN, maker_address: address })).toEqual([
      expect.objectContaining({
        taker_order_id: o.hash,
        side: 'BUY',
        size: '10',
        price: '0.5',
        trader_side: 'TAKER',
      }),
    ]);
    // 100 USDC funded, 10 shares bought at the mark 0.5 (fee 0): 95 USDC and 10 shares, 6-decimal base units.
    expect(await trader.getBalanceAllowance({ asset_type: AssetType.COLLATERAL })).toMatchObject({
      balance: '95000000',
    });
    expect(await trader.getBalanceAllowance({ asset_type: AssetType.CONDITIONAL, token_id: TOKEN })).toMatchObject({
      balance: '10000000',
    });
  });
});

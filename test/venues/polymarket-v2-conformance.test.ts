/**
 * Conformance of the Polymarket simulator with Polymarket's current official client,
 * `@polymarket/clob-client-v2` (V2 orders, signature types 0-3), given a viem wallet client: what a
 * trader does with it, every call through the client. L1 `createOrDeriveApiKey`; public market data
 * (order version, book, tick size, neg-risk flag, fee rate); a resting limit order of signature type 0
 * (the client's default) placed with `createAndPostOrder`, listed, read and canceled; an order that
 * fills, its trades and the collateral and share balances; a Safe (type 2) order of a registered
 * Safe; and deposit-wallet (type 3, POLY_1271) orders, whose ERC-7739 signature the simulator verifies
 * as the deposit wallet's ERC-1271 `isValidSignature` does. The client's V2 signatures are also
 * compared byte for byte with the platform's signer (venues/polymarket/signing.ts) on Polygon and
 * Amoy, for both exchanges. Nothing is set up by hand beyond the marks, deposits and the on-chain
 * wallet ownership the exchange would read (`registerWallet`). docs/venues.md §3.4. The client's market orders
 * and the market metadata they read are test/venues/polymarket-market-orders.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { polygon, polygonAmoy } from 'viem/chains';
import { AssetType, ClobClient, OrderType, Side, SignatureTypeV2, type ApiKeyCreds } from '@polymarket/clob-client-v2';
import { POLYMARKET_SYMBOLS } from '../../domain/market/venues/polymarket.js';
import { orderHash, signOrder } from '../../venues/polymarket/signing.js';
import { startPolymarketSimulator, type PolymarketSimulator } from '../../simulators/polymarket.js';
import {
  asPlatformOrder,
  clobBuy,
  clobWallet as walletOf,
  expectClobCanceled as expectCanceled,
  simConditionIdOf,
} from '../support/prediction-venues.js';

const YES = POLYMARKET_SYMBOLS[0];
const TOKEN = YES.venueSymbol!;
/** The market's condition id on the simulator (docs/venues.md §3.4): the `market` of its book, orders and trades. */
const MARKET = simConditionIdOf(TOKEN, POLYMARKET_SYMBOLS[1].venueSymbol!);
const HASH = /^0x[0-9a-f]{64}$/;
/** What every accepted `POST /order` answers besides its status, amounts and trades. */
const ACCEPTED = { success: true, errorMsg: '', orderID: expect.stringMatching(HASH) };

/** An address, compared in any letter case. */
const sameAddress = (address: string) => expect.stringMatching(new RegExp(`^${address}$`, 'i'));

/** `client` buys 10 YES shares with a GTC limit order at `price` (test/support/prediction-venues.ts `clobBuy`): the venue's answer. */
const buy = (client: ClobClient, price: number) => clobBuy(client, TOKEN, price);

describe('@polymarket/clob-client-v2 against the Polymarket simulator', () => {
  const marks = new Map([[YES.symbol, '0.5']]);
  const markOf = async (s: string) => marks.get(s) ?? null;
  const key = generatePrivateKey();
  const address = privateKeyToAccount(key).address;
  const wallet = walletOf(key);
  let sim: PolymarketSimulator;
  let amoy: PolymarketSimulator;
  let creds: ApiKeyCreds;
  let trader: ClobClient;

  beforeAll(async () => {
    sim = await startPolymarketSimulator({ markOf });
    amoy = await startPolymarketSimulator({ markOf, network: 'testnet' });
    sim.fund(address, '100');
  });
  afterAll(async () => {
    await sim?.close();
    await amoy?.close();
  });

  /** The L2 credentials `signer`'s key gets by L1 `createOrDeriveApiKey`. */
  const apiKeyOf = (signer: ReturnType<typeof walletOf>) =>
    new ClobClient({ host: sim.url, chain: 137, signer }).createOrDeriveApiKey();

  it('derives the API key by L1 ClobAuth: created once, then derived', async () => {
    creds = await apiKeyOf(wallet);
    expect(creds).toEqual({ key: expect.any(String), secret: expect.any(String), passphrase: expect.any(String) });
    expect(await apiKeyOf(wallet)).toEqual(creds);
    trader = new ClobClient({ host: sim.url, chain: 137, signer: wallet, creds });
  });

  it('serves the market data the client reads without authentication: order version, book, tick size, neg risk, fee rate', async () => {
    expect(await trader.getVersion()).toBe(2);
    expect(await trader.getTickSize(TOKEN)).toBe('0.01');
    expect(await trader.getNegRisk(TOKEN)).toBe(false);
    expect(await trader.getFeeRateBps(TOKEN)).toBe(0);
    expect(await trader.getOrderBook(TOKEN)).toEqual({
      market: MARKET,
      asset_id: TOKEN,
      timestamp: expect.any(String),
      bids: [],
      asks: [],
      min_order_size: '1',
      tick_size: '0.01',
      neg_risk: false,
      last_trade_price: '0.5',
      hash: expect.any(String),
    });
  });

  it('signs V2 orders byte for byte as the platform does: Polygon and Amoy, standard and neg-risk exchange', async () => {
    const networks = [
      { network: 'mainnet', host: () => sim.url, chain: 137, viemChain: polygon },
      { network: 'testnet', host: () => amoy.url, chain: 80002, viemChain: polygonAmoy },
    ] as const;
    for (const n of networks) {
      const client = new ClobClient({ host: n.host(), chain: n.chain, signer: walletOf(key, n.viemChain) });
      for (const negRisk of [false, true]) {
        const signed = await client.createOrder(
          { tokenID: TOKEN, price: 0.3, size: 10, side: Side.BUY },
          { tickSize: '0.01', negRisk },
        );
        const ours = asPlatformOrder(signed);
        expect({ network: n.network, negRisk, signature: await signOrder(key, ours, n.network, negRisk) }).toEqual({
          network: n.network,
          negRisk,
          signature: signed.signature,
        });
      }
    }
    // The venue's order id is the platform's order hash of what the client signed.
    const signed = await trader.createOrder({ tokenID: TOKEN, price: 0.2, size: 5, side: Side.BUY });
    const posted = await trader.postOrder(signed, OrderType.GTC);
    expect(posted.orderID).toBe(orderHash(asPlatformOrder(signed), 'mainnet', false));
    await expectCanceled(trader, posted.orderID);
  });

  it('places a resting limit order (type 0), lists it, reads it, shows it on the book, cancels it', async () => {
    const placed = await buy(trader, 0.3);
    expect(placed).toEqual({
      ...ACCEPTED,
      status: 'live',
      makingAmount: '',
      takingAmount: '',
      transactionsHashes: [],
      tradeIDs: [],
    });
    const open = {
      id: placed.orderID,
      status: 'LIVE',
      owner: creds.key,
      maker_address: sameAddress(address),
      market: MARKET,
      asset_id: TOKEN,
      side: 'BUY',
      original_size: '10',
      size_matched: '0',
      price: '0.3',
      associate_trades: [],
      outcome: 'YES',
      created_at: expect.any(Number),
      expiration: '0',
      order_type: 'GTC',
    };
    expect(await trader.getOpenOrders({ asset_id: TOKEN })).toEqual([open]);
    expect(await trader.getOrder(placed.orderID)).toEqual(open);
    expect((await trader.getOrderBook(TOKEN)).bids).toEqual([{ price: '0.3', size: '10' }]);
    await expectCanceled(trader, placed.orderID);
    expect(await trader.getOpenOrders({ asset_id: TOKEN })).toEqual([]); // finished orders are not listed
    expect(await trader.getOrder(placed.orderID)).toEqual({ ...open, status: 'CANCELED' });
    expect(await trader.cancelOrder({ orderID: placed.orderID })).toEqual({
      canceled: [],
      not_canceled: { [placed.orderID]: "order can't be found - already canceled or matched" },
    });
  });

  it('fills a marketable limit order at once; its settlement, trades and balances (collateral and shares) follow', async () => {
    const filled = await buy(trader, 0.6);
    expect(filled).toEqual({
      ...ACCEPTED,
      status: 'matched',
      makingAmount: expect.any(String),
      takingAmount: expect.any(String),
      transactionsHashes: [expect.stringMatching(HASH)],
      tradeIDs: [expect.any(String)],
    });
    expect(await trader.getOrder(filled.orderID)).toMatchObject({
      status: 'MATCHED',
      size_matched: '10',
      associate_trades: filled.tradeIDs,
    });
    const trade = {
      id: filled.tradeIDs![0],
      taker_order_id: filled.orderID,
      market: MARKET,
      asset_id: TOKEN,
      side: 'BUY',
      size: '10',
      fee_rate_bps: '0',
      price: '0.5',
      status: 'CONFIRMED',
      match_time: expect.any(String),
      last_update: expect.any(String),
      outcome: '',
      bucket_index: 0,
      owner: creds.key,
      maker_address: sameAddress(address),
      transaction_hash: filled.transactionsHashes![0],
      trader_side: 'TAKER',
      maker_orders: [expect.objectContaining({ side: 'SELL', matched_amount: '10', price: '0.5', asset_id: TOKEN })],
    };
    expect(await trader.getTrades({ asset_id: TOKEN })).toEqual([trade]);
    expect(await trader.getTrades({ id: filled.tradeIDs![0] })).toEqual([trade]);
    expect(await trader.getTrades({ maker_address: address, market: MARKET })).toEqual([trade]);
    // 100 USDC funded, 10 shares bought at the mark 0.5 (fee 0): 95 USDC and 10 shares, 6-decimal base units.
    expect(await trader.getBalanceAllowance({ asset_type: AssetType.COLLATERAL })).toEqual({
      balance: '95000000',
      allowances: {},
    });
    expect(await trader.getBalanceAllowance({ asset_type: AssetType.CONDITIONAL, token_id: TOKEN })).toEqual({
      balance: '10000000',
      allowances: {},
    });
  });

  it('a fill-and-kill order that cannot fill is killed with the venue’s error', async () => {
    const signed = await trader.createOrder({ tokenID: TOKEN, price: 0.4, size: 10, side: Side.BUY });
    expect(await trader.postOrder(signed, OrderType.FAK)).toEqual({
      status: 400,
      error: 'no orders found to match with FAK order. FAK orders are partially filled or killed if no match is found.',
    });
  });

  it('type 2 (POLY_GNOSIS_SAFE): the owner signs for its Safe, which is the maker and the funder', async () => {
    const ownerKey = generatePrivateKey();
    const owner = walletOf(ownerKey);
    const safe = privateKeyToAccount(generatePrivateKey()).address;
    sim.registerWallet(safe, owner.account.address, 2);
    sim.fund(safe, '20');
    const client = new ClobClient({
      host: sim.url,
      chain: 137,
      signer: owner,
      creds: await apiKeyOf(owner),
      signatureType: SignatureTypeV2.POLY_GNOSIS_SAFE,
      funderAddress: safe,
    });
    const filled = await buy(client, 0.6);
    expect(filled).toMatchObject({ success: true, status: 'matched' });
    expect(await client.getOrder(filled.orderID)).toMatchObject({
      maker_address: sameAddress(safe),
      status: 'MATCHED',
    });
    expect(await client.getBalanceAllowance({ asset_type: AssetType.COLLATERAL })).toEqual({
      balance: '15000000',
      allowances: {},
    });
  });

  describe('type 3 (POLY_1271): a deposit wallet whose owner signs through ERC-7739', () => {
    const ownerKey = generatePrivateKey();
    const owner = walletOf(ownerKey);
    const depositWallet = privateKeyToAccount(generatePrivateKey()).address;
    let ownerCreds: ApiKeyCreds;
    let client: ClobClient;
    /** A client of `signer` trading for `funder` with signature type 3, under the owner's API key. */
    const type3 = (signer: ReturnType<typeof walletOf>, funder: string) =>
      new ClobClient({
        host: sim.url,
        chain: 137,
        signer,
        creds: ownerCreds,
        signatureType: SignatureTypeV2.POLY_1271,
        funderAddress: funder,
      });

    beforeAll(async () => {
      sim.registerWallet(depositWallet, owner.account.address, 3);
      sim.fund(depositWallet, '50');
      ownerCreds = await apiKeyOf(owner);
      client = type3(owner, depositWallet);
    });

    it('places, lists and cancels a resting order of the deposit wallet', async () => {
      const placed = await buy(client, 0.3);
      expect(placed).toMatchObject({ success: true, status: 'live', orderID: expect.stringMatching(HASH) });
      expect(await client.getOpenOrders({ asset_id: TOKEN })).toEqual([
        expect.objectContaining({ id: placed.orderID, maker_address: sameAddress(depositWallet), status: 'LIVE' }),
      ]);
      await expectCanceled(client, placed.orderID);
    });

    it('fills an order of the deposit wallet: the wallet pays, the owner’s own address does not', async () => {
      const filled = await buy(client, 0.6);
      expect(filled).toMatchObject({ success: true, status: 'matched' });
      expect(await client.getTrades({ id: filled.tradeIDs![0] })).toEqual([
        expect.objectContaining({ taker_order_id: filled.orderID, maker_address: sameAddress(depositWallet) }),
      ]);
      expect(await client.getBalanceAllowance({ asset_type: AssetType.COLLATERAL })).toEqual({
        balance: '45000000',
        allowances: {},
      });
      const asEoa = new ClobClient({ host: sim.url, chain: 137, signer: owner, creds: ownerCreds });
      expect(await asEoa.getBalanceAllowance({ asset_type: AssetType.COLLATERAL })).toEqual({
        balance: '0',
        allowances: {},
      });
    });

    it('refuses what the deposit wallet or the CLOB would refuse: another key’s signature, an envelope of another order, a wallet the API key does not own', async () => {
      const order = { tokenID: TOKEN, price: 0.3, size: 10, side: Side.BUY };
      // Signed by a key that does not own the wallet: ERC-1271 says no.
      const stranger = type3(walletOf(generatePrivateKey()), depositWallet);
      const forged = await stranger.createOrder(order, { tickSize: '0.01' });
      expect(await client.postOrder(forged, OrderType.GTC)).toEqual({ status: 400, error: 'invalid signature' });
      // The owner's envelope of one order moved onto another: its contents hash is not this order's.
      const a = await client.createOrder(order, { tickSize: '0.01' });
      const b = await client.createOrder({ ...order, price: 0.31 }, { tickSize: '0.01' });
      expect(await client.postOrder({ ...b, signature: a.signature }, OrderType.GTC)).toEqual({
        status: 400,
        error: 'invalid signature',
      });
      // A deposit wallet of another owner, and one nobody registered: not the API key's.
      const others = privateKeyToAccount(generatePrivateKey()).address;
      sim.registerWallet(others, privateKeyToAccount(generatePrivateKey()).address, 3);
      for (const funder of [others, privateKeyToAccount(generatePrivateKey()).address]) {
        expect(await buy(type3(owner, funder), 0.3)).toEqual({
          status: 400,
          error: 'the order signer address has to be the address of the API KEY',
        });
      }
    });
  });
});

/**
 * Conformance of the Aster simulator with a published client other than our own: ccxt's `aster` exchange
 * class (ccxt 4.5.84), its `urls.api` pointed at the simulator, signing every private request itself
 * (EIP-712 `Message(string msg)` in the `AsterSignTransaction` domain, its own parameter order and
 * encoding, its own µs nonces). It drives what a trader does: load the markets (futures and spot
 * `exchangeInfo`; ccxt's sign-in approves ccxt's builder code with the main wallet), read the book and
 * the ticker, place a resting limit order, list it, read it, cancel it, let a market order and a resting
 * sell fill, and read the trades, the balance and the positions. Nothing is set up by hand beyond the
 * marks and a deposit (`fund`). ccxt's unified answers are compared whole (`toStrictEqual`, the venue's
 * raw answer under `info` included).
 *
 * How ccxt signs: `user` is the address of `privateKey` and `signer` is `options.signerAddress`, which
 * defaults to that same address, and the signature is always by `privateKey`. So ccxt trades only as
 * the main wallet signing for itself (signer = user): an API wallet as `signerAddress` is refused
 * (`-1022`, the signature recovers the main wallet), and an API wallet as `privateKey` would make the
 * API wallet the `user`. What the simulator deliberately does not imitate: docs/venues.md §2.3.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ccxt, { type Order } from 'ccxt';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startAsterSimulator, type AsterSimulator } from '../../simulators/aster.js';
import { linearSwapMarket, refusal } from './ccxt-support.js';

/** ccxt's builder code (its `options.builder`), which its sign-in approves with a 0.1 % fee cap. */
const CCXT_BUILDER = '0x1F5877C19e3777Cfd15F9d57253eA4aA5254Ec39';
const BTC = 'BTC/USDT:USDT';

describe('ccxt aster against the Aster simulator', () => {
  // BTC halfway between two ticks (0.1); ETH and SOL on a tick.
  const marks = new Map([
    ['BTC.ASTER', '100000.05'],
    ['ETH.ASTER', '2500'],
    ['SOL.ASTER', '150'],
  ]);
  const key = generatePrivateKey();
  const user = privateKeyToAccount(key).address.toLowerCase();
  let sim: AsterSimulator;
  let ex: InstanceType<typeof ccxt.aster>;

  /** A trader's ccxt `aster`: its main wallet's private key, perpetuals by default, the simulator as every host. */
  const trader = (privateKey: string, options: Record<string, unknown> = {}) => {
    // ccxt spaces Aster requests 333 ms apart by default; 5 ms keeps its µs nonces (ms × 1000) strictly increasing.
    const client = new ccxt.aster({ privateKey, rateLimit: 5, options: { defaultType: 'swap', ...options } });
    client.urls.api = {
      fapiPublic: `${sim.url}/fapi`,
      fapiPrivate: `${sim.url}/fapi`,
      sapiPublic: `${sim.url}/api`,
      sapiPrivate: `${sim.url}/api`,
    };
    return client;
  };

  /** The venue's order JSON as the simulator writes it (under ccxt's `info`). */
  const rawOrder = (o: Record<string, unknown>) => ({
    orderId: expect.any(Number),
    clientOrderId: expect.any(String),
    symbol: 'BTCUSDT',
    side: 'BUY',
    positionSide: 'BOTH',
    type: 'LIMIT',
    origType: 'LIMIT',
    price: '0.0',
    origQty: '0.001',
    executedQty: '0.000',
    cumQty: '0.000',
    cumQuote: '0',
    avgPrice: '0.0000',
    status: 'NEW',
    timeInForce: 'GTC',
    stopPrice: '0.0',
    reduceOnly: false,
    closePosition: false,
    workingType: 'CONTRACT_PRICE',
    priceProtect: false,
    time: expect.any(Number),
    updateTime: expect.any(Number),
    ...o,
  });

  /** ccxt's unified order over `info` (the raw order), with the fields a test states. */
  const unified = (info: Record<string, unknown>, o: Partial<Order>) => ({
    info,
    id: typeof info.orderId === 'number' ? String(info.orderId) : expect.any(String),
    clientOrderId: info.clientOrderId,
    symbol: BTC,
    timestamp: info.time,
    datetime: typeof info.time === 'number' ? new Date(info.time).toISOString() : expect.any(String),
    lastTradeTimestamp: undefined,
    lastUpdateTimestamp: info.updateTime,
    type: 'limit',
    timeInForce: 'GTC',
    postOnly: false,
    side: 'buy',
    price: undefined,
    triggerPrice: undefined,
    average: undefined,
    cost: 0,
    amount: 0.001,
    filled: 0,
    remaining: 0.001,
    status: 'open',
    fee: undefined,
    trades: [],
    reduceOnly: false,
    fees: [],
    stopPrice: undefined,
    takeProfitPrice: undefined,
    stopLossPrice: undefined,
    ...o,
  });

  beforeAll(async () => {
    sim = await startAsterSimulator({ markOf: async (s) => marks.get(s) ?? null });
    sim.fund(user, '10000');
    ex = trader(key);
  });
  afterAll(async () => sim?.close());

  it('loadMarkets: the routed perps from exchangeInfo (precision, limits), no spot pairs; sign-in approves ccxt’s builder code', async () => {
    const markets = await ex.loadMarkets();
    expect(Object.keys(markets)).toEqual(['BTC/USDT:USDT', 'ETH/USDT:USDT', 'SOL/USDT:USDT']);
    expect(markets[BTC]).toStrictEqual(
      linearSwapMarket({
        id: 'BTCUSDT',
        symbol: BTC,
        base: 'BTC',
        quote: 'USDT',
        settle: 'USDT',
        baseId: 'BTC',
        quoteId: 'USDT',
        settleId: 'USDT',
        margin: false,
        taker: 0.00035,
        maker: 0.0001,
        precision: { amount: 0.001, price: 0.1, base: 1e-8, quote: 1e-8 },
        limits: {
          leverage: { min: undefined, max: undefined },
          amount: { min: 0.001, max: 1000000 },
          price: { min: 0.1, max: 10000000 },
          cost: { min: 5, max: undefined },
          market: { min: 0.001, max: 1000000 },
        },
        info: {
          symbol: 'BTCUSDT',
          pair: 'BTCUSDT',
          contractType: 'PERPETUAL',
          deliveryDate: 4133404800000,
          onboardDate: 1735689600000,
          status: 'TRADING',
          maintMarginPercent: '0.5000',
          requiredMarginPercent: '1.0000',
          baseAsset: 'BTC',
          quoteAsset: 'USDT',
          marginAsset: 'USDT',
          pricePrecision: 1,
          quantityPrecision: 3,
          baseAssetPrecision: 8,
          quotePrecision: 8,
          underlyingType: 'COIN',
          underlyingSubType: [],
          settlePlan: 0,
          triggerProtect: '0.0500',
          filters: [
            { filterType: 'PRICE_FILTER', minPrice: '0.1', maxPrice: '10000000', tickSize: '0.1' },
            { filterType: 'LOT_SIZE', minQty: '0.001', maxQty: '1000000', stepSize: '0.001' },
            { filterType: 'MARKET_LOT_SIZE', minQty: '0.001', maxQty: '1000000', stepSize: '0.001' },
            { filterType: 'MIN_NOTIONAL', notional: '5' },
          ],
          OrderType: ['LIMIT', 'MARKET', 'STOP', 'STOP_MARKET', 'TAKE_PROFIT', 'TAKE_PROFIT_MARKET'],
          timeInForce: ['GTC', 'IOC', 'FOK', 'GTX'],
          liquidationFee: '0.010000',
          marketTakeBound: '0.05',
        },
        tierBased: true,
        percentage: true,
      }),
    );
    expect(markets['SOL/USDT:USDT']!.precision).toStrictEqual({ amount: 0.01, price: 0.01, base: 1e-8, quote: 1e-8 });

    // ccxt's sign-in (main wallet, EIP-712 ApproveBuilder) approved its builder code; orders then carry it.
    expect(ex.options.approvedBuilderFee).toBe(true);
    expect(await ex.fapiPrivateGetV3Builder()).toStrictEqual([
      { userAddress: user, builderAddress: CCXT_BUILDER, maxFeeRate: 0.001, builderName: 'ccxt' },
    ]);
  });

  it('fetchOrderBook and fetchTicker at the mark', async () => {
    const book = await ex.fetchOrderBook(BTC, 5);
    // $50,000 a level: 50000 / 100000.05 = 0.499 BTC (3 size decimals, rounded down).
    expect(book).toStrictEqual({
      symbol: BTC,
      bids: [
        [100000, 0.499],
        [99999.9, 0.499],
        [99999.8, 0.499],
        [99999.7, 0.499],
        [99999.6, 0.499],
      ],
      asks: [
        [100000.1, 0.499],
        [100000.2, 0.499],
        [100000.3, 0.499],
        [100000.4, 0.499],
        [100000.5, 0.499],
      ],
      timestamp: expect.any(Number),
      datetime: expect.any(String),
      nonce: undefined,
    });
    expect(book.timestamp).toBeGreaterThan(Date.now() - 60_000);

    const ticker = await ex.fetchTicker('ETH/USDT:USDT');
    expect(ticker).toStrictEqual({
      symbol: 'ETH/USDT:USDT',
      timestamp: expect.any(Number),
      datetime: expect.any(String),
      high: 2500,
      low: 2500,
      bid: undefined,
      bidVolume: undefined,
      ask: undefined,
      askVolume: undefined,
      vwap: undefined,
      open: 2500,
      close: 2500,
      last: 2500,
      previousClose: undefined,
      change: 0,
      percentage: 0,
      average: 2500,
      baseVolume: 0,
      quoteVolume: 0,
      markPrice: undefined,
      indexPrice: undefined,
      info: {
        symbol: 'ETHUSDT',
        priceChange: '0.00',
        priceChangePercent: '0.000',
        weightedAvgPrice: '2500.00',
        prevClosePrice: '2500.00',
        lastPrice: '2500.00',
        lastQty: '0.000',
        openPrice: '2500.00',
        highPrice: '2500.00',
        lowPrice: '2500.00',
        volume: '0.000',
        quoteVolume: '0.00',
        openTime: ticker.timestamp! - 86_400_000,
        closeTime: ticker.timestamp,
        firstId: -1,
        lastId: -1,
        count: 0,
      },
    });
    // Without a symbol: every routed perp with a mark, in one answer.
    expect(Object.keys(await ex.fetchTickers())).toEqual([BTC, 'ETH/USDT:USDT', 'SOL/USDT:USDT']);
  });

  it('a resting limit order: placed (acknowledged), listed, read by id and by client id, in the book, canceled', async () => {
    const placed = await ex.createOrder(BTC, 'limit', 'buy', 0.001, 90000, { clientOrderId: 'ccxt-rest-1' });
    const info = rawOrder({ clientOrderId: 'ccxt-rest-1', price: '90000.0' });
    expect(placed).toStrictEqual(unified(info, { price: 90000 }));
    const resting = unified({ ...info, orderId: Number(placed.id), time: placed.timestamp }, { price: 90000 });

    expect(await ex.fetchOpenOrders(BTC)).toStrictEqual([resting]);
    expect(await ex.fetchOrder(placed.id!, BTC)).toStrictEqual(resting);
    expect(await ex.fetchOrder('', BTC, { clientOrderId: 'ccxt-rest-1' })).toStrictEqual(resting);
    // The order is the 11th bid level, below the ten synthetic ones.
    expect((await ex.fetchOrderBook(BTC, 20)).bids[10]).toStrictEqual([90000, 0.001]);

    const canceled = await ex.cancelOrder(placed.id!, BTC);
    expect(canceled).toStrictEqual(
      unified(
        { ...info, orderId: Number(placed.id), time: placed.timestamp, status: 'CANCELED' },
        { price: 90000, status: 'canceled', lastUpdateTimestamp: expect.any(Number) },
      ),
    );
    expect(await ex.fetchOpenOrders(BTC)).toStrictEqual([]);
    expect(await refusal(ex.cancelOrder(placed.id!, BTC))).toBe(
      'OrderNotFound: aster {"code":-2011,"msg":"Unknown order sent."}',
    );
    expect(await refusal(ex.fetchOrder('123', BTC))).toBe(
      'OrderNotFound: aster {"code":-2013,"msg":"Order does not exist."}',
    );
  });

  it('a market order: acknowledged, then filled at the mark; the trade, the balance and the position', async () => {
    const placed = await ex.createOrder(BTC, 'market', 'buy', 0.01);
    // newOrderRespType ACK (ccxt sends none): the answer is the order as accepted.
    const info = rawOrder({ type: 'MARKET', origType: 'MARKET', origQty: '0.010' });
    expect(placed).toStrictEqual(
      unified(info, { type: 'market', amount: 0.01, remaining: 0.01, clientOrderId: expect.any(String) }),
    );
    expect(placed.clientOrderId).toMatch(/^[A-Za-z0-9]{22}$/);

    const filled = {
      orderId: Number(placed.id),
      clientOrderId: placed.clientOrderId,
      time: placed.timestamp,
      executedQty: '0.010',
      cumQty: '0.010',
      cumQuote: '1000.0005',
      avgPrice: '100000.0500',
      status: 'FILLED',
    };
    expect(await ex.fetchOrder(placed.id!, BTC)).toStrictEqual(
      unified(
        { ...info, ...filled },
        {
          type: 'market',
          price: 100000.05,
          average: 100000.05,
          cost: 1000.0005,
          amount: 0.01,
          filled: 0.01,
          remaining: 0,
          status: 'closed',
        },
      ),
    );

    // Taker fee 0.035 % of 1000.0005 = 0.35000018 (USDT, 8 decimals).
    const trades = await ex.fetchMyTrades(BTC);
    expect(trades).toStrictEqual([
      {
        id: expect.any(String),
        info: {
          id: Number(trades[0].id),
          orderId: Number(placed.id),
          symbol: 'BTCUSDT',
          side: 'BUY',
          price: '100000.05',
          qty: '0.01',
          quoteQty: '1000.0005',
          commission: '0.35000018',
          commissionAsset: 'USDT',
          realizedPnl: '0',
          maker: false,
          buyer: true,
          positionSide: 'BOTH',
          time: expect.any(Number),
        },
        timestamp: trades[0].info.time,
        datetime: new Date(trades[0].info.time).toISOString(),
        symbol: BTC,
        order: placed.id,
        type: undefined,
        side: 'buy',
        takerOrMaker: 'taker',
        price: 100000.05,
        amount: 0.01,
        cost: 1000.0005,
        fee: { currency: 'USDT', cost: 0.35000018 },
        fees: [{ currency: 'USDT', cost: 0.35000018 }],
      },
    ]);

    // The day's volume counts the fill; the prices stay the mark.
    expect(await ex.fetchTicker(BTC)).toMatchObject({
      last: 100000,
      baseVolume: 0.01,
      quoteVolume: 1000,
      info: { volume: '0.010', quoteVolume: '1000.00', count: 1, firstId: Number(trades[0].id) },
    });

    // Wallet 10000 − 0.35000018; margin 1000.0005 / 20 (cross) = 50.000025 is used.
    const balance = await ex.fetchBalance();
    expect(balance).toStrictEqual({
      info: [
        {
          accountAlias: expect.any(String),
          asset: 'USDT',
          balance: '9999.64999982',
          crossWalletBalance: '9999.64999982',
          crossUnPnl: '0.00000000',
          availableBalance: '9949.64997482',
          maxWithdrawAmount: '9949.64997482',
          marginAvailable: true,
          updateTime: expect.any(Number),
        },
      ],
      USDT: { free: 9949.64997482, used: 50.000025, total: 9999.64999982 },
      free: { USDT: 9949.64997482 },
      used: { USDT: 50.000025 },
      total: { USDT: 9999.64999982 },
    });

    // positionRisk, as Aster documents it, carries no `notional`: ccxt then states no side nor notional.
    expect(await ex.fetchPositions()).toStrictEqual([
      {
        info: {
          entryPrice: '100000.0500',
          marginType: 'cross',
          isAutoAddMargin: 'false',
          isolatedMargin: '0.00000000',
          leverage: '20',
          liquidationPrice: '0',
          markPrice: '100000.05000000',
          maxNotionalValue: '1000000',
          positionAmt: '0.010',
          symbol: 'BTCUSDT',
          unRealizedProfit: '0.00000000',
          positionSide: 'BOTH',
          updateTime: expect.any(Number),
        },
        id: undefined,
        symbol: BTC,
        contracts: 0.01,
        contractSize: 1,
        unrealizedPnl: 0,
        leverage: 20,
        liquidationPrice: undefined,
        collateral: 0,
        notional: undefined,
        markPrice: 100000.05,
        entryPrice: 100000.05,
        timestamp: expect.any(Number),
        initialMargin: undefined,
        initialMarginPercentage: 0.05,
        maintenanceMargin: undefined,
        maintenanceMarginPercentage: 0.005,
        marginRatio: undefined,
        datetime: expect.any(String),
        marginMode: 'cross',
        side: undefined,
        hedged: false,
        percentage: undefined,
        stopLossPrice: undefined,
        takeProfitPrice: undefined,
      },
    ]);

    // newOrderRespType RESULT (an Aster parameter ccxt passes through): the answer is the filled order.
    const result = await ex.createOrder(BTC, 'market', 'sell', 0.01, undefined, { newOrderRespType: 'RESULT' });
    expect(result).toMatchObject({ status: 'closed', filled: 0.01, average: 100000.05, side: 'sell' });
    expect(await ex.fetchPositions()).toStrictEqual([]);
  });

  it('a resting reduce-only sell fills as maker once the mark crosses it: realised PnL, maker fee, position closed', async () => {
    await ex.createOrder(BTC, 'market', 'buy', 0.01);
    const placed = await ex.createOrder(BTC, 'limit', 'sell', 0.01, 100100, { reduceOnly: true });
    expect(placed).toMatchObject({ status: 'open', reduceOnly: true, price: 100100 });
    marks.set('BTC.ASTER', '100200');
    try {
      expect(await ex.fetchOrder(placed.id!, BTC)).toMatchObject({ status: 'closed', filled: 0.01, average: 100100 });
      // Realised (100100 − 100000.05) × 0.01 = 0.9995; maker fee 0.01 % of 1001 = 0.1001.
      const latest = (await ex.fetchMyTrades(BTC)).at(-1);
      expect(latest).toMatchObject({
        order: placed.id,
        side: 'sell',
        takerOrMaker: 'maker',
        price: 100100,
        amount: 0.01,
        fee: { currency: 'USDT', cost: 0.1001 },
        info: { realizedPnl: '0.9995', maker: true, buyer: false },
      });
      expect(await ex.fetchPositions()).toStrictEqual([]);
      // 10000 − three taker fees of 0.35000018 + 0.9995 realised − 0.1001 maker fee; nothing used.
      expect((await ex.fetchBalance()).USDT).toStrictEqual({ free: 9999.84939946, used: 0, total: 9999.84939946 });
    } finally {
      marks.set('BTC.ASTER', '100000.05');
    }
  });

  it('refusals in the venue’s words, as ccxt maps them', async () => {
    // Post-only (GTX) at the ask would take.
    expect(await refusal(ex.createOrder(BTC, 'limit', 'buy', 0.001, 100000.1, { postOnly: true }))).toBe(
      'ExchangeError: aster {"code":-5022,"msg":"Due to the order could not be executed as maker, the Post Only order will be rejected. The order will not be recorded in the order history"}',
    );
    expect(await refusal(ex.createOrder(BTC, 'limit', 'buy', 0.001, 1000))).toBe(
      'InvalidOrder: aster {"code":-4164,"msg":"Order\'s notional must be no smaller than 5.0 (unless you choose reduce only)"}',
    );
    expect(await ex.fetchOpenOrders(BTC)).toStrictEqual([]);
  });

  it('ccxt signs only as the main wallet: an API wallet as signerAddress is -1022; an unknown wallet is -2015; builderFee false approves nothing', async () => {
    const apiWallet = privateKeyToAccount(generatePrivateKey()).address;
    const asAgent = trader(key, { signerAddress: apiWallet });
    expect(await refusal(asAgent.fetchBalance())).toBe(
      'AuthenticationError: aster {"code":-1022,"msg":"Signature for this request is not valid."}',
    );

    const stranger = trader(generatePrivateKey());
    expect(await refusal(stranger.fetchBalance())).toBe(
      'AuthenticationError: aster {"code":-2015,"msg":"Invalid API-key, IP, or permissions for action."}',
    );

    const other = generatePrivateKey();
    sim.fund(privateKeyToAccount(other).address, '100');
    const noBuilder = trader(other, { builderFee: false });
    await noBuilder.loadMarkets();
    expect(await noBuilder.fapiPrivateGetV3Builder()).toStrictEqual([]);
    expect(await noBuilder.createOrder(BTC, 'limit', 'buy', 0.001, 90000)).toMatchObject({ status: 'open' });
  });
});

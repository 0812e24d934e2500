/**
 * Conformance of the Hyperliquid simulator with a second published client: ccxt's `hyperliquid` exchange
 * class (ccxt 4.5.84), its `urls.api` pointed at the simulator, set up as a trader does with an API
 * wallet: `walletAddress` the master (the account), `privateKey` the API wallet's key, which the master
 * approved beforehand (here with Hyperliquid's own SDK, as its web interface does). ccxt signs its L1
 * actions itself (msgpack + phantom agent, its own nonces) and reads with the master's address. It drives
 * what a trader does: load the markets (perps, spot, builder dexes), read the book and the ticker, place
 * a resting limit order with a client order id, list it, read it, cancel it, let a market order and a
 * resting sell fill, and read the fills, the balance and the positions. Nothing is set up by hand beyond
 * the marks, a deposit (`fund`) and the agent approval. ccxt's unified answers are compared whole
 * (`toStrictEqual`, the venue's raw answer under `info` included). The Hyperliquid SDK's own conformance
 * is test/venues/hyperliquid-conformance.test.ts; what the simulator does not imitate: docs/venues.md §1.7.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ccxt, { type Order } from 'ccxt';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ExchangeClient, HttpTransport } from '@nktkas/hyperliquid';
import { startHyperliquidSimulator, type HyperliquidSimulator } from '../../simulators/hyperliquid.js';
import { linearSwapMarket, refusal } from './ccxt-support.js';
import { BTC_LONG_POSITION, BTC_LONG_STATE, btcLongFill, restingBuy } from './hyperliquid-answers.js';

const BTC = 'BTC/USDC:USDC';
const ETH = 'ETH/USDC:USDC';

/** ccxt's unified order with every field undefined but those given (what it parses from an `order` status). */
const fromStatus = (o: Partial<Order> & { info: unknown }) => ({
  id: undefined,
  clientOrderId: undefined,
  timestamp: undefined,
  datetime: undefined,
  lastTradeTimestamp: undefined,
  lastUpdateTimestamp: undefined,
  symbol: undefined,
  type: undefined,
  timeInForce: undefined,
  postOnly: undefined,
  reduceOnly: undefined,
  side: undefined,
  price: undefined,
  triggerPrice: undefined,
  stopLossPrice: undefined,
  takeProfitPrice: undefined,
  amount: undefined,
  cost: undefined,
  average: undefined,
  filled: undefined,
  remaining: undefined,
  status: undefined,
  fee: undefined,
  trades: [],
  fees: [],
  stopPrice: undefined,
  ...o,
});

describe('ccxt hyperliquid against the Hyperliquid simulator', () => {
  // BTC and ETH halfway between two price steps, SOL on one.
  const marks = new Map([
    ['BTC.HL', '97000.5'],
    ['ETH.HL', '2000.05'],
    ['SOL.HL', '150'],
  ]);
  const masterKey = generatePrivateKey();
  const master = privateKeyToAccount(masterKey);
  const agentKey = generatePrivateKey();
  let sim: HyperliquidSimulator;
  let ex: InstanceType<typeof ccxt.hyperliquid>;

  /**
   * A trader's ccxt `hyperliquid`: the account's address, a signing key, the simulator as its host.
   * ccxt's rate limiter is off (it paces each `info` request by its weight, 20 × 50 ms); its nonces are
   * its own incrementing ones either way.
   */
  const trader = (walletAddress: string, privateKey: string) => {
    const client = new ccxt.hyperliquid({ walletAddress, privateKey, enableRateLimit: false });
    client.urls.api = { public: sim.url, private: sim.url };
    return client;
  };

  beforeAll(async () => {
    sim = await startHyperliquidSimulator({ markOf: async (s) => marks.get(s) ?? null });
    sim.fund(master.address, '10000');
    await new ExchangeClient({ transport: new HttpTransport({ apiUrl: sim.url }), wallet: master }).approveAgent({
      agentAddress: privateKeyToAccount(agentKey).address,
      agentName: 'ccxt',
    });
    ex = trader(master.address, agentKey);
  });
  afterAll(async () => sim?.close());

  it('loadMarkets: the perps by asset index (spot and builder dexes empty); the ticker at the mark', async () => {
    const markets = await ex.loadMarkets();
    expect(Object.keys(markets)).toEqual([
      'BTC/USDC:USDC',
      'ETH/USDC:USDC',
      'ATOM/USDC:USDC',
      'MATIC/USDC:USDC',
      'DYDX/USDC:USDC',
      'SOL/USDC:USDC',
    ]);
    expect(markets[BTC]).toStrictEqual(
      linearSwapMarket({
        id: '0',
        symbol: BTC,
        base: 'BTC',
        quote: 'USDC',
        settle: 'USDC',
        baseId: '0',
        quoteId: 'USDC',
        settleId: 'USDC',
        margin: undefined,
        taker: 0.00045,
        maker: 0.00015,
        precision: { amount: 0.00001, price: 1 },
        limits: {
          leverage: { min: undefined, max: 40 },
          amount: { min: undefined, max: undefined },
          price: { min: undefined, max: undefined },
          cost: { min: 10, max: undefined },
        },
        info: {
          szDecimals: 5,
          name: 'BTC',
          maxLeverage: 40,
          marginTableId: 40,
          prevDayPx: '97000.5',
          dayNtlVlm: '0',
          markPx: '97000.5',
          midPx: '97000.5',
          funding: '0.0',
          openInterest: '0.0',
          premium: '0.0',
          oraclePx: '97000.5',
          impactPxs: ['97000', '97001'],
          dayBaseVlm: '0',
          baseId: 0,
        },
        tierBased: undefined,
        percentage: undefined,
        baseName: 'BTC',
      }),
    );
    expect(markets['ATOM/USDC:USDC']!.active).toBe(false);
    expect(markets['SOL/USDC:USDC']!.precision).toStrictEqual({ amount: 0.01, price: 0.01 });

    const { info, ...ticker } = await ex.fetchTicker(ETH);
    expect(ticker).toStrictEqual({
      symbol: ETH,
      timestamp: undefined,
      datetime: undefined,
      previousClose: 2000.05,
      close: 2000.05,
      last: 2000.05,
      bid: 2000,
      ask: 2000.1,
      quoteVolume: 0,
      bidVolume: undefined,
      askVolume: undefined,
      high: undefined,
      low: undefined,
      open: undefined,
      change: undefined,
      percentage: undefined,
      average: undefined,
      vwap: undefined,
      baseVolume: undefined,
      indexPrice: undefined,
      markPrice: undefined,
    });
    expect(info).toMatchObject({ name: 'ETH', markPx: '2000.05', midPx: '2000.05' });
  });

  it('fetchOrderBook: ten levels a side around the mark', async () => {
    const book = await ex.fetchOrderBook(BTC);
    // $50,000 a level: 50000 / 97000.5 = 0.51546 BTC (5 size decimals, rounded down).
    const level = (px: number) => [px, 0.51546];
    expect(book).toStrictEqual({
      symbol: BTC,
      bids: [97000, 96999, 96998, 96997, 96996, 96995, 96994, 96993, 96992, 96991].map(level),
      asks: [97001, 97002, 97003, 97004, 97005, 97006, 97007, 97008, 97009, 97010].map(level),
      timestamp: expect.any(Number),
      datetime: expect.any(String),
      nonce: undefined,
    });
    expect(book.timestamp).toBeGreaterThan(Date.now() - 60_000);
  });

  it('a resting limit order with a client order id: placed, listed, read by id and by cloid, in the book, canceled', async () => {
    const cloid = `0x${'1a'.repeat(16)}`;
    const placed = await ex.createOrder(ETH, 'limit', 'buy', 0.5, 1900, { clientOrderId: cloid });
    const oid = Number(placed.id);
    expect(placed).toStrictEqual(
      fromStatus({ info: { resting: { oid, cloid } }, id: String(oid), clientOrderId: cloid }),
    );

    const raw = restingBuy({ coin: 'ETH', limitPx: '1900', sz: '0.5', oid, timestamp: expect.any(Number), cloid });
    const unified = {
      id: String(oid),
      clientOrderId: cloid,
      timestamp: expect.any(Number),
      datetime: expect.any(String),
      lastTradeTimestamp: undefined,
      lastUpdateTimestamp: undefined,
      symbol: ETH,
      type: 'limit',
      timeInForce: 'GTC',
      postOnly: false,
      reduceOnly: false,
      side: 'buy',
      price: 1900,
      triggerPrice: undefined,
      stopLossPrice: undefined,
      takeProfitPrice: undefined,
      amount: 0.5,
      cost: 0,
      average: undefined,
      filled: 0,
      remaining: 0.5,
      status: 'open',
      fee: undefined,
      trades: [],
      fees: [],
      stopPrice: undefined,
    };
    const open = await ex.fetchOpenOrders(ETH);
    expect(open).toStrictEqual([{ ...unified, info: raw }]);
    const known = {
      ...unified,
      info: { order: raw, status: 'open', statusTimestamp: expect.any(Number) },
      lastUpdateTimestamp: expect.any(Number),
    };
    expect(await ex.fetchOrder(placed.id!, ETH)).toStrictEqual(known);
    expect(await ex.fetchOrder(cloid, ETH)).toStrictEqual(known);
    // The order is the 11th bid level, below the ten synthetic ones.
    expect((await ex.fetchOrderBook(ETH)).bids[10]).toStrictEqual([1900, 0.5]);

    expect(await ex.cancelOrder(placed.id!, ETH)).toStrictEqual({
      ...fromStatus({ info: 'success', status: 'success' }),
    });
    expect(await ex.fetchOpenOrders(ETH)).toStrictEqual([]);
    expect(await ex.fetchOrder(placed.id!, ETH)).toMatchObject({ status: 'canceled' });
    expect(await refusal(ex.cancelOrder(placed.id!, ETH))).toBe(
      'OrderNotFound: hyperliquid {"status":"ok","response":{"type":"cancel","data":{"statuses":[{"error":"Order was never placed, already canceled, or filled. asset=1"}]}}}',
    );
    expect(await refusal(ex.fetchOrder('123', ETH))).toBe('OrderNotFound: hyperliquid {"status":"unknownOid"}');
  });

  it('a market order (an IOC 5 % through the price given) fills at the mark; the fill, the balance and the position', async () => {
    const placed = await ex.createOrder(BTC, 'market', 'buy', 0.01, 97000.5);
    const oid = Number(placed.id);
    expect(placed).toStrictEqual(
      fromStatus({
        info: { filled: { totalSz: '0.01', avgPx: '97000.5', oid } },
        id: String(oid),
        amount: 0.01,
        cost: 970.005,
        average: 97000.5,
        filled: 0.01,
        remaining: 0,
      }),
    );
    // ccxt's IOC limit: 97000.5 × 1.05 = 101850.525, five significant figures.
    expect(await ex.fetchOrder(placed.id!, BTC)).toMatchObject({
      status: 'closed',
      type: 'limit',
      timeInForce: 'IOC',
      price: 101851,
      filled: 0.01,
      remaining: 0,
      info: { status: 'filled', order: { sz: '0', origSz: '0.01', tif: 'Ioc', limitPx: '101851' } },
    });

    // Fee, equity and margin: test/venues/hyperliquid-answers.ts.
    const [fill] = await ex.fetchMyTrades(BTC);
    expect(fill).toStrictEqual({
      info: btcLongFill(oid),
      timestamp: fill.info.time,
      datetime: new Date(fill.info.time).toISOString(),
      symbol: BTC,
      id: String(fill.info.tid),
      order: String(oid),
      type: undefined,
      side: 'buy',
      takerOrMaker: 'taker',
      price: 97000.5,
      amount: 0.01,
      cost: 970.005,
      fee: { currency: 'USDC', cost: 0.436502 },
      fees: [{ currency: 'USDC', cost: 0.436502 }],
    });

    const balance = await ex.fetchBalance();
    expect(balance).toStrictEqual({
      info: BTC_LONG_STATE,
      USDC: { total: 9999.563498, used: 48.50025, free: 9951.063248 },
      timestamp: balance.info.time,
      datetime: new Date(balance.info.time).toISOString(),
      free: { USDC: 9951.063248 },
      used: { USDC: 48.50025 },
      total: { USDC: 9999.563498 },
    });

    expect(await ex.fetchPositions()).toStrictEqual([
      {
        info: BTC_LONG_POSITION,
        id: undefined,
        symbol: BTC,
        timestamp: undefined,
        datetime: undefined,
        isolated: false,
        hedged: undefined,
        side: 'long',
        contracts: 0.01,
        contractSize: 1,
        entryPrice: 97000.5,
        markPrice: undefined,
        notional: 970.005,
        leverage: 20,
        collateral: 48.50025,
        initialMargin: 48.50025,
        maintenanceMargin: undefined,
        initialMarginPercentage: undefined,
        maintenanceMarginPercentage: undefined,
        unrealizedPnl: 0,
        liquidationPrice: undefined,
        marginMode: 'cross',
        percentage: 0,
      },
    ]);
  });

  it('a resting reduce-only sell fills as maker once the mark crosses it: closed PnL, maker fee, position closed', async () => {
    const placed = await ex.createOrder(BTC, 'limit', 'sell', 0.01, 97100, { reduceOnly: true });
    expect(await ex.fetchOpenOrders(BTC)).toMatchObject([{ id: placed.id, reduceOnly: true, side: 'sell' }]);
    marks.set('BTC.HL', '97200');
    try {
      expect(await ex.fetchOrder(placed.id!, BTC)).toMatchObject({ status: 'closed', filled: 0.01 });
      // Maker fee 0.015 % of 971 = 0.14565; realised (97100 − 97000.5) × 0.01 = 0.995.
      const latest = (await ex.fetchMyTrades(BTC)).at(-1);
      expect(latest).toMatchObject({
        order: placed.id,
        side: 'sell',
        takerOrMaker: 'maker',
        price: 97100,
        amount: 0.01,
        fee: { currency: 'USDC', cost: 0.14565 },
        info: { dir: 'Close Long', closedPnl: '0.995', crossed: false },
      });
      expect(await ex.fetchPositions()).toStrictEqual([]);
      expect((await ex.fetchBalance()).USDC).toStrictEqual({ total: 10000.412848, used: 0, free: 10000.412848 });
    } finally {
      marks.set('BTC.HL', '97000.5');
    }
  });

  it('sign-in: the builder-fee approval ccxt attempts with the API wallet is refused (a master’s action); the master key trades too; an unknown key does not exist', async () => {
    // ccxt swallows the refusal and turns its builder fee off: its orders then carry no builder code.
    expect([ex.options.approvedBuilderFee, ex.options.builderFee]).toEqual([undefined, false]);

    const asMaster = trader(master.address, masterKey);
    const placed = await asMaster.createOrder('SOL/USDC:USDC', 'limit', 'buy', 1, 140);
    expect(await asMaster.fetchOpenOrders('SOL/USDC:USDC')).toMatchObject([{ id: placed.id, price: 140, amount: 1 }]);
    expect(await asMaster.cancelOrder(placed.id!, 'SOL/USDC:USDC')).toMatchObject({ status: 'success' });

    const strangerKey = generatePrivateKey();
    const stranger = trader(master.address, strangerKey);
    expect(await refusal(stranger.createOrder('SOL/USDC:USDC', 'limit', 'buy', 1, 140))).toBe(
      `InvalidOrder: hyperliquid {"status":"err","response":"User or API Wallet ${privateKeyToAccount(strangerKey).address.toLowerCase()} does not exist."}`,
    );
  });
});

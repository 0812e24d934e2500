/**
 * Conformance of the Kalshi simulator with Kalshi's own published client, kalshi-typescript (the
 * OpenAPI-generated SDK, its own RSA-PSS request signing): the client is pointed at the simulator
 * (`basePath`) with a freshly generated RSA key whose public key the simulator's API-key page
 * registered, and drives what a trader does — load the markets and a book, place an order with a
 * fixed-point count, list it, cancel it, place one that fills, read the fills, the balance and the
 * positions. Nothing is set up by hand beyond the marks, the key registration and a deposit; every
 * assertion is on what the client returns. What the simulator deliberately does not imitate is listed
 * in docs/venues.md §4.3.
 *
 * The client signs through an interceptor on the shared axios instance, so this file uses one key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { Configuration, MarketApi, OrdersApi, PortfolioApi, type CreateOrderV2Request } from 'kalshi-typescript';
import { KALSHI_SYMBOLS } from '../../domain/market/venues/kalshi.js';
import { generateKalshiAgentKey } from '../../venues/kalshi/signing.js';
import { startKalshiSimulator, type KalshiSimulator } from '../../simulators/kalshi.js';

const TICKER = 'PRES-2024-DJT';
const YES = KALSHI_SYMBOLS[0]; // PRES-2024-DJT-YES.KX
const NO = KALSHI_SYMBOLS[1]; // PRES-2024-DJT-NO.KX

/** The HTTP status of a refused client call (axios throws with the response). */
async function statusOf(call: Promise<unknown>): Promise<number | undefined> {
  try {
    await call;
    return 200;
  } catch (err) {
    return (err as { response?: { status?: number } }).response?.status;
  }
}

describe('kalshi-typescript against the Kalshi simulator', () => {
  // YES ask = 0.415 rounded up = 0.42; YES bid = 1 − (NO 0.585 rounded up) = 0.41.
  const marks = new Map([
    [YES.symbol, '0.415'],
    [NO.symbol, '0.585'],
  ]);
  const member = `member-${randomUUID().slice(0, 8)}`;
  let sim: KalshiSimulator;
  let market: MarketApi;
  let orders: OrdersApi;
  let portfolio: PortfolioApi;

  beforeAll(async () => {
    sim = await startKalshiSimulator({ markOf: async (s) => marks.get(s) ?? null });
    const key = generateKalshiAgentKey();
    const config = new Configuration({
      apiKey: sim.registerKey(member, key.publicKeyPem),
      privateKeyPem: key.privateKeyPem,
      basePath: sim.url,
    });
    market = new MarketApi(config);
    orders = new OrdersApi(config);
    portfolio = new PortfolioApi(config);
    sim.fund(member, '100');
  });
  afterAll(async () => sim?.close());

  /** A limit order request of the client's own type: `side` of the YES book, fixed-point `count` and YES `price`. */
  const order = (o: Partial<CreateOrderV2Request>): CreateOrderV2Request => ({
    ticker: TICKER,
    client_order_id: randomUUID(),
    side: 'bid',
    count: '1',
    price: '0.01',
    time_in_force: 'good_till_canceled',
    self_trade_prevention_type: 'taker_at_cross',
    ...o,
  });

  it('market data: the markets of the symbol table, one market and its order book, priced at the marks', async () => {
    const { data: list } = await market.getMarkets(100, undefined, 'PRES-2024');
    expect(list.markets.map((m) => m.ticker)).toEqual(['PRES-2024-DJT', 'PRES-2024-KH']);
    expect(list.cursor).toBe('');
    const { data } = await market.getMarket(TICKER);
    expect(data.market).toMatchObject({
      ticker: TICKER,
      event_ticker: 'PRES-2024',
      market_type: 'binary',
      status: 'active',
      yes_bid_dollars: '0.4100',
      yes_ask_dollars: '0.4200',
      no_bid_dollars: '0.5800',
      no_ask_dollars: '0.5900',
      price_level_structure: 'linear_cent',
      price_ranges: [{ start: '0.0000', end: '1.0000', step: '0.0100' }],
    });
    const { data: book } = await market.getMarketOrderbook(TICKER);
    // Bids only, ascending: YES bids at the YES bid, NO bids at 1 − the YES ask.
    expect(book.orderbook_fp).toEqual({ yes_dollars: [['0.4100', '1000.00']], no_dollars: [['0.5800', '1000.00']] });
    expect(await statusOf(market.getMarket('NO-SUCH-MARKET'))).toBe(404);
  });

  it('place (fixed-point count and price), list, read and cancel a resting order', async () => {
    const placed = await orders.createOrderV2(order({ count: '5', price: '0.3000' }));
    expect(placed.status).toBe(201);
    expect(placed.data).toMatchObject({ fill_count: '0.00', remaining_count: '5.00' });
    expect(placed.data.average_fill_price).toBeUndefined();
    const id = placed.data.order_id;

    const { data: book } = await market.getMarketOrderbook(TICKER);
    expect(book.orderbook_fp.yes_dollars).toEqual([
      ['0.3000', '5.00'],
      ['0.4100', '1000.00'],
    ]);

    const { data: listed } = await orders.getOrders(TICKER, undefined, undefined, undefined, 'resting');
    expect(listed.orders).toHaveLength(1);
    expect(listed.orders[0]).toMatchObject({
      order_id: id,
      ticker: TICKER,
      book_side: 'bid',
      outcome_side: 'yes',
      type: 'limit',
      status: 'resting',
      yes_price_dollars: '0.3000',
      no_price_dollars: '0.7000',
      initial_count_fp: '5.00',
      fill_count_fp: '0.00',
      remaining_count_fp: '5.00',
    });
    expect((await orders.getOrder(id)).data.order).toEqual(listed.orders[0]);

    const { data: canceled } = await orders.cancelOrderV2(id, undefined, undefined, TICKER);
    expect(canceled).toMatchObject({ order_id: id, reduced_by: '5.00' });
    expect((await orders.getOrder(id)).data.order).toMatchObject({ status: 'canceled', remaining_count_fp: '0.00' });
    expect(await statusOf(orders.cancelOrderV2(id))).toBe(404);
    expect((await orders.getOrders(TICKER, undefined, undefined, undefined, 'resting')).data.orders).toEqual([]);
  });

  it('an order that fills: the answer, the fill, the balance and the position', async () => {
    // Buy 10 YES up to 0.45: fills at the 0.42 ask as taker, fee ⌈0.07 × 10 × 0.42 × 0.58⌉ = 0.18.
    const { data: filled } = await orders.createOrderV2(
      order({ count: '10.00', price: '0.45', time_in_force: 'immediate_or_cancel' }),
    );
    expect(filled).toMatchObject({
      fill_count: '10.00',
      remaining_count: '0.00',
      average_fill_price: '0.4200',
      average_fee_paid: '0.0180',
    });
    expect((await orders.getOrder(filled.order_id)).data.order).toMatchObject({
      status: 'executed',
      fill_count_fp: '10.00',
      taker_fill_cost_dollars: '4.2000',
      taker_fees_dollars: '0.1800',
    });

    const { data: fills } = await portfolio.getFills(TICKER, filled.order_id);
    expect(fills.fills).toEqual([
      expect.objectContaining({
        order_id: filled.order_id,
        ticker: TICKER,
        book_side: 'bid',
        outcome_side: 'yes',
        count_fp: '10.00',
        yes_price_dollars: '0.4200',
        no_price_dollars: '0.5800',
        is_taker: true,
        fee_cost: '0.1800',
      }),
    ]);

    // 100 − 4.20 − 0.18; the 10 YES are worth 10 × the 0.415 mark.
    const { data: balance } = await portfolio.getBalance();
    expect(balance).toMatchObject({ balance: 9562, balance_dollars: '95.6200', portfolio_value: 415 });

    const { data: positions } = await portfolio.getPositions(undefined, undefined, 'position');
    expect(positions.market_positions).toEqual([
      expect.objectContaining({
        ticker: TICKER,
        position_fp: '10.00',
        market_exposure_dollars: '4.2000',
        total_traded_dollars: '4.2000',
        fees_paid_dollars: '0.1800',
        realized_pnl_dollars: '0.0000',
      }),
    ]);
    expect(positions.event_positions).toEqual([
      expect.objectContaining({
        event_ticker: 'PRES-2024',
        total_cost_dollars: '4.2000',
        total_cost_shares_fp: '10.00',
      }),
    ]);
  });

  it('an ask sells YES held: the position nets down and the sale is realised', async () => {
    // Sell 4 YES down to 0.40: fills at the 0.41 bid, fee ⌈0.07 × 4 × 0.41 × 0.59⌉ = 0.07.
    const { data } = await orders.createOrderV2(
      order({ side: 'ask', count: '4', price: '0.40', time_in_force: 'fill_or_kill' }),
    );
    expect(data).toMatchObject({ fill_count: '4.00', remaining_count: '0.00', average_fill_price: '0.4100' });
    const { data: fills } = await portfolio.getFills(TICKER, data.order_id);
    expect(fills.fills[0]).toMatchObject({
      book_side: 'ask',
      outcome_side: 'no',
      count_fp: '4.00',
      fee_cost: '0.0700',
    });
    const { data: positions } = await portfolio.getPositions(undefined, undefined, 'position', TICKER);
    expect(positions.market_positions[0]).toMatchObject({
      position_fp: '6.00',
      market_exposure_dollars: '2.5200',
      realized_pnl_dollars: '-0.0400', // 4 × (0.41 − 0.42)
      fees_paid_dollars: '0.2500',
    });
    // 95.62 + 4 × 0.41 − 0.07
    expect((await portfolio.getBalance()).data.balance_dollars).toBe('97.1900');
  });

  it('what the client cannot do against the simulator, as on Kalshi: a count in the retired integer form or off the price grid is 400; an unsigned portfolio read is 401', async () => {
    const bad = order({ price: '0.405' });
    expect(await statusOf(orders.createOrderV2(bad))).toBe(400);
    expect(await statusOf(orders.createOrderV2({ ...order({}), count: 1 as unknown as string }))).toBe(400);
    expect((await fetch(`${sim.url}/portfolio/balance`)).status).toBe(401);
    expect(sim.orderCount(member)).toBe(3);
  });
});

/**
 * Market orders of Polymarket's official client, `@polymarket/clob-client-v2`, against the Polymarket simulator
 * (docs/venues.md §3.4), every call through the client and nothing faked by hand. `createMarketOrder` resolves
 * the token's market (`GET /markets-by-token/<token>` → condition id), reads its CLOB parameters
 * (`GET /clob-markets/<condition>` → tick size, neg risk, fee details), prices the order from `GET /book`
 * (BUY: the ask that covers the USDC amount; SELL: the bid that covers the shares) and signs it for the
 * exchange version `GET /version` names. The simulator prices from its own recorded data, held at one instant,
 * so its book has a touch around its mark (`last_trade_price`): a FOK buy by USDC amount and a FAK sell by
 * shares fill at that mark, and the order, its trade, the collateral and the position (the token balance) read
 * back through the client follow; a FOK whose limit does not reach the mark is killed; the same on a V3
 * exchange. The metadata routes answer in the CLOB's shapes, agree with `/tick-size`, `/neg-risk` and `/book`,
 * give each YES/NO pair one condition id, and answer unknown ids with the venue's 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { AssetType, ClobClient, OrderType, Side, type OrderBookSummary } from '@polymarket/clob-client-v2';
import { Decimal } from '../../domain/decimal.js';
import { POLYMARKET_SYMBOLS, POLYMARKET_TOKENS } from '../../domain/market/venues/polymarket.js';
import { startPolymarketSimulator, type PolymarketSimulator } from '../../simulators/polymarket.js';
import { clobWallet, simConditionIdOf } from '../support/prediction-venues.js';

const YES = POLYMARKET_SYMBOLS[0];
const NO = POLYMARKET_SYMBOLS[1];
const TOKEN = YES.venueSymbol!;
const NO_TOKEN = NO.venueSymbol!;
const CONDITION = simConditionIdOf(TOKEN, NO_TOKEN);
const HASH = /^0x[0-9a-f]{64}$/;
/** The simulator's clock: one instant of its recorded prices, so its mark and book do not move during a test. */
const NOW = () => 0;
/** USDC and shares in 6-decimal base units, as `GET /balance-allowance` answers them. */
const baseUnits = (amount: Decimal) => amount.mul(1_000_000).floor().toFixed();

/** The simulator's quote of a token as the client reads it from `GET /book`: mark, best bid and best ask (best last). */
const quoteOf = (book: OrderBookSummary) => ({
  mark: new Decimal(book.last_trade_price),
  bid: new Decimal(book.bids.at(-1)!.price),
  ask: new Decimal(book.asks.at(-1)!.price),
});

/** A funded trader on `venue`: its key's API credentials (L1 `createOrDeriveApiKey`) and a client with them. */
async function traderOn(venue: PolymarketSimulator, usdc: string) {
  const key = generatePrivateKey();
  const address = privateKeyToAccount(key).address;
  venue.fund(address, usdc);
  const creds = await new ClobClient({ host: venue.url, chain: 137, signer: clobWallet(key) }).createOrDeriveApiKey();
  return { address, client: new ClobClient({ host: venue.url, chain: 137, signer: clobWallet(key), creds }) };
}

/** The collateral (USDC) and `TOKEN` position (shares) of the client's wallet, in base units, as the venue reports them. */
const balancesOf = async (client: ClobClient) => ({
  usdc: (await client.getBalanceAllowance({ asset_type: AssetType.COLLATERAL })).balance,
  shares: (await client.getBalanceAllowance({ asset_type: AssetType.CONDITIONAL, token_id: TOKEN })).balance,
});

describe('market orders of @polymarket/clob-client-v2 against the Polymarket simulator', () => {
  let sim: PolymarketSimulator;
  let v3: PolymarketSimulator;

  beforeAll(async () => {
    sim = await startPolymarketSimulator({ now: NOW });
    v3 = await startPolymarketSimulator({ now: NOW, exchangeVersion: 3 });
  });
  afterAll(async () => {
    await sim?.close();
    await v3?.close();
  });

  describe('the market metadata createMarketOrder reads (public, no authentication)', () => {
    const get = async (path: string) => {
      const res = await fetch(`${sim.url}${path}`);
      return { status: res.status, body: await res.json() };
    };

    it('GET /markets-by-token: the condition id and both tokens of the market, Yes first, from either token', async () => {
      const market = { condition_id: CONDITION, primary_token_id: TOKEN, secondary_token_id: NO_TOKEN };
      expect(await get(`/markets-by-token/${TOKEN}`)).toEqual({ status: 200, body: market });
      expect(await get(`/markets-by-token/${NO_TOKEN}`)).toEqual({ status: 200, body: market });
    });

    it('each YES/NO pair of the symbol table is one market with a condition id of its own', async () => {
      const byToken = await Promise.all(
        POLYMARKET_SYMBOLS.map(async (s) => {
          const { body } = await get(`/markets-by-token/${s.venueSymbol}`);
          return {
            marketId: POLYMARKET_TOKENS[s.venueSymbol!].marketId,
            conditionId: (body as { condition_id: string }).condition_id,
          };
        }),
      );
      const conditionOf = new Map(byToken.map((t) => [t.marketId, t.conditionId]));
      expect(byToken.every((t) => conditionOf.get(t.marketId) === t.conditionId && HASH.test(t.conditionId))).toBe(
        true,
      );
      expect(new Set(conditionOf.values()).size).toBe(conditionOf.size);
      expect(conditionOf.size).toBe(POLYMARKET_SYMBOLS.length / 2);
    });

    it('GET /clob-markets: tokens, tick size, neg risk, minimum size and fees, as /tick-size, /neg-risk, /fee-rate and /book say', async () => {
      const client = new ClobClient({ host: sim.url, chain: 137 });
      expect(await client.getClobMarketInfo(CONDITION)).toEqual({
        c: CONDITION,
        t: [
          { t: TOKEN, o: 'Yes' },
          { t: NO_TOKEN, o: 'No' },
        ],
        mts: 0.01,
        nr: false,
        mos: 1,
        mbf: 0,
        tbf: 0,
        fd: { r: 0, e: 1, to: true },
        r: null,
        gst: null,
        ao: true,
      });
      // The client now answers tick size and neg risk from that market info; the per-token routes agree.
      expect(await client.getTickSize(NO_TOKEN)).toBe('0.01');
      expect(await client.getNegRisk(NO_TOKEN)).toBe(false);
      expect(await get(`/tick-size?token_id=${NO_TOKEN}`)).toEqual({ status: 200, body: { minimum_tick_size: 0.01 } });
      expect(await get(`/neg-risk?token_id=${NO_TOKEN}`)).toEqual({ status: 200, body: { neg_risk: false } });
      expect(await get(`/fee-rate?token_id=${NO_TOKEN}`)).toEqual({ status: 200, body: { base_fee: 0 } });
      expect(await client.getOrderBook(TOKEN)).toMatchObject({
        market: CONDITION,
        asset_id: TOKEN,
        tick_size: '0.01',
        neg_risk: false,
        min_order_size: '1',
      });
    });

    it('unknown token and condition ids answer the venue’s 404, and the client refuses to build a market order on them', async () => {
      const notFound = { status: 404, body: { error: 'market not found' } };
      expect(await get('/markets-by-token/12345')).toEqual(notFound);
      expect(await get(`/clob-markets/0x${'0'.repeat(64)}`)).toEqual(notFound);
      const { client } = await traderOn(sim, '0');
      await expect(client.getClobMarketInfo(`0x${'0'.repeat(64)}`)).rejects.toThrow('failed to fetch market info');
      await expect(client.createMarketOrder({ tokenID: '12345', amount: 10, side: Side.BUY })).rejects.toThrow(
        'failed to resolve condition id for token 12345',
      );
    });
  });

  describe('a funded trader (signature type 0) on the V2 exchange', () => {
    let trader: { address: string; client: ClobClient };
    let quote: ReturnType<typeof quoteOf>;
    let bought: Decimal;

    beforeAll(async () => {
      trader = await traderOn(sim, '100');
      quote = quoteOf(await trader.client.getOrderBook(TOKEN));
    });

    it('buys 10 USDC of YES with a FOK market order: priced at the ask, filled at the simulator’s quote', async () => {
      const { client, address } = trader;
      const placed = await client.createAndPostMarketOrder(
        { tokenID: TOKEN, amount: 10, side: Side.BUY },
        undefined,
        OrderType.FOK,
      );
      expect(placed).toMatchObject({
        success: true,
        errorMsg: '',
        status: 'matched',
        orderID: expect.stringMatching(HASH),
        tradeIDs: [expect.any(String)],
        transactionsHashes: [expect.stringMatching(HASH)],
      });
      // The order is for the whole shares (to 4 decimals) that 10 USDC buys at the ask the client priced it at.
      const order = await client.getOrder(placed.orderID);
      bought = new Decimal(order.original_size);
      expect(bought.decimalPlaces()).toBeLessThanOrEqual(4);
      expect(bought.mul(quote.ask).lte(10) && bought.add('0.0001').mul(quote.ask).gt(10)).toBe(true);
      expect(order).toMatchObject({
        status: 'MATCHED',
        side: 'BUY',
        market: CONDITION,
        asset_id: TOKEN,
        size_matched: bought.toFixed(),
        order_type: 'FOK',
        associate_trades: placed.tradeIDs,
      });
      // One trade, at the mark (no worse than the ask the client accepted), as the client reads it back.
      expect(quote.mark.lte(quote.ask)).toBe(true);
      expect(await client.getTrades({ id: placed.tradeIDs![0] })).toEqual([
        expect.objectContaining({
          taker_order_id: placed.orderID,
          market: CONDITION,
          asset_id: TOKEN,
          side: 'BUY',
          size: bought.toFixed(),
          price: quote.mark.toFixed(),
          status: 'CONFIRMED',
          trader_side: 'TAKER',
          transaction_hash: placed.transactionsHashes![0],
          maker_address: expect.stringMatching(new RegExp(`^${address}$`, 'i')),
        }),
      ]);
      // 100 USDC less the shares at the mark (fee 0); the shares are the position.
      expect(await balancesOf(client)).toEqual({
        usdc: baseUnits(new Decimal(100).sub(bought.mul(quote.mark))),
        shares: baseUnits(bought),
      });
    });

    it('sells 5 of those shares with a FAK market order: priced at the bid, filled at the simulator’s quote', async () => {
      const { client } = trader;
      const placed = await client.createAndPostMarketOrder(
        { tokenID: TOKEN, amount: 5, side: Side.SELL, orderType: OrderType.FAK },
        undefined,
        OrderType.FAK,
      );
      expect(placed).toMatchObject({ success: true, status: 'matched', tradeIDs: [expect.any(String)] });
      expect(await client.getOrder(placed.orderID)).toMatchObject({
        status: 'MATCHED',
        side: 'SELL',
        original_size: '5',
        size_matched: '5',
        price: quote.bid.toFixed(),
        order_type: 'FAK',
      });
      expect(await client.getTrades({ id: placed.tradeIDs![0] })).toEqual([
        expect.objectContaining({ side: 'SELL', size: '5', price: quote.mark.toFixed(), trader_side: 'TAKER' }),
      ]);
      // 100 USDC, less the shares bought, plus the 5 sold, both at the mark.
      expect(await balancesOf(client)).toEqual({
        usdc: baseUnits(new Decimal(100).sub(bought.mul(quote.mark)).add(new Decimal(5).mul(quote.mark))),
        shares: baseUnits(bought.sub(5)),
      });
    });

    it('a FOK market buy limited below the mark is killed with the venue’s error, and nothing changes', async () => {
      const { client } = trader;
      const before = await balancesOf(client);
      const limit = quote.mark.sub('0.01').toDecimalPlaces(2, Decimal.ROUND_FLOOR).toNumber();
      expect(
        await client.createAndPostMarketOrder({ tokenID: TOKEN, amount: 10, side: Side.BUY, price: limit }),
      ).toEqual({ status: 400, error: "order couldn't be fully filled. FOK orders are fully filled or killed." });
      expect(await balancesOf(client)).toEqual(before);
      expect(await client.getOpenOrders({ asset_id: TOKEN })).toEqual([]);
    });

    it('a limit order’s amounts posted as FAK (a USDC amount of 4 decimals) are refused as the CLOB refuses them', async () => {
      const { client } = trader;
      const before = await balancesOf(client);
      // 1.37 shares × 0.55 = 0.7535 USDC: a valid GTC order, but not a market order's amounts
      const order = await client.createOrder({ tokenID: TOKEN, price: 0.55, size: 1.37, side: Side.BUY });
      expect(await client.postOrder(order, OrderType.FAK)).toEqual({
        status: 400,
        error:
          'invalid amounts, the market buy orders maker amount supports a max accuracy of 2 decimals, taker amount a max of 4 decimals',
      });
      expect(await balancesOf(client)).toEqual(before);
    });
  });

  it('on the V3 exchange: the client asks the version, signs a V3 market buy, and it fills at the quote', async () => {
    const { client } = await traderOn(v3, '20');
    expect(await client.getVersion()).toBe(3);
    const { mark, ask } = quoteOf(await client.getOrderBook(TOKEN));
    const placed = await client.createAndPostMarketOrder({ tokenID: TOKEN, amount: 5, side: Side.BUY });
    expect(placed).toMatchObject({ success: true, status: 'matched', tradeIDs: [expect.any(String)] });
    const [trade] = await client.getTrades({ id: placed.tradeIDs![0] });
    const shares = new Decimal(trade.size);
    expect(shares.mul(ask).lte(5) && shares.add('0.0001').mul(ask).gt(5)).toBe(true);
    expect(trade).toMatchObject({
      taker_order_id: placed.orderID,
      side: 'BUY',
      price: mark.toFixed(),
      market: CONDITION,
    });
    expect(await balancesOf(client)).toEqual({
      usdc: baseUnits(new Decimal(20).sub(shares.mul(mark))),
      shares: baseUnits(shares),
    });
  });
});

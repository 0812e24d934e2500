/**
 * Conformance of the Hyperliquid simulator with Hyperliquid's published TypeScript SDK,
 * `@nktkas/hyperliquid`: its `InfoClient` and `ExchangeClient` (viem local accounts as wallets, its own
 * msgpack + EIP-712 signing, its own nonces) are pointed at the simulator (`HttpTransport({ apiUrl })`)
 * and drive what a trader does — load the markets (`meta`, `metaAndAssetCtxs`, `allMids`, `l2Book`,
 * and the SDK's `SymbolConverter`), approve an API wallet, place a resting limit order with a cloid,
 * list it (`openOrders`, `frontendOpenOrders`, `orderStatus` by oid and by cloid, the book), cancel it
 * by oid and by cloid, place one that fills across the book, read `userFills` and `clearinghouseState`
 * (balance and position), let a resting order fill as maker, and sign for testnet. Nothing is set up by
 * hand beyond the marks and a deposit (`fund`). The SDK checks no response at run time, so every
 * answer is compared whole (`toStrictEqual`): a missing or extra field fails. What the simulator
 * deliberately does not imitate is listed in docs/venues.md §1.7.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ApiRequestError, ExchangeClient, HttpTransport, InfoClient } from '@nktkas/hyperliquid';
import { SymbolConverter, formatPrice, formatSize } from '@nktkas/hyperliquid/utils';
import { Decimal } from '../../domain/decimal.js';
import { startHyperliquidSimulator, type HyperliquidSimulator } from '../../simulators/hyperliquid.js';
import { BTC_LONG_STATE, btcLongFill, restingBuy } from './hyperliquid-answers.js';

/** A fresh client order id: `0x` + 32 hex. */
const newCloid = (): `0x${string}` => `0x${randomBytes(16).toString('hex')}`;

/** The message of a call the SDK refuses (it throws `ApiRequestError` on an error answer). */
async function refusal(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (err) {
    if (err instanceof ApiRequestError) return err.message;
    throw err;
  }
  throw new Error('expected the SDK to throw ApiRequestError');
}

describe('@nktkas/hyperliquid against the Hyperliquid simulator', () => {
  // BTC and ETH halfway between two price steps, SOL on one (bid and ask one step either side).
  const marks = new Map([
    ['BTC.HL', '97000.5'],
    ['ETH.HL', '2000.05'],
    ['SOL.HL', '150'],
  ]);
  const master = privateKeyToAccount(generatePrivateKey());
  const agent = privateKeyToAccount(generatePrivateKey());
  const user = master.address;
  let sim: HyperliquidSimulator;
  let info: InfoClient;
  let asMaster: ExchangeClient;
  let asAgent: ExchangeClient;

  beforeAll(async () => {
    sim = await startHyperliquidSimulator({ markOf: async (s) => marks.get(s) ?? null });
    const transport = new HttpTransport({ apiUrl: sim.url });
    info = new InfoClient({ transport });
    asMaster = new ExchangeClient({ transport, wallet: master });
    asAgent = new ExchangeClient({ transport, wallet: agent });
    sim.fund(user, '10000');
  });
  afterAll(async () => sim?.close());

  it('market data: the universe by asset index, mids, books and asset contexts at the marks', async () => {
    const meta = await info.meta();
    expect(meta.universe.map((u) => u.name)).toEqual(['BTC', 'ETH', 'ATOM', 'MATIC', 'DYDX', 'SOL']);
    expect(meta.universe[0]).toStrictEqual({ szDecimals: 5, name: 'BTC', maxLeverage: 40, marginTableId: 40 });
    expect(meta.universe[1]).toStrictEqual({ szDecimals: 4, name: 'ETH', maxLeverage: 25, marginTableId: 25 });
    expect(meta.universe[5]).toStrictEqual({ szDecimals: 2, name: 'SOL', maxLeverage: 20, marginTableId: 20 });
    expect(meta.universe[2]).toMatchObject({ name: 'ATOM', isDelisted: true });
    expect(meta.collateralToken).toBe(0);
    expect(meta.marginTables).toContainEqual([
      40,
      { description: '', marginTiers: [{ lowerBound: '0.0', maxLeverage: 40 }] },
    ]);
    for (const u of meta.universe) expect(meta.marginTables.map(([id]) => id)).toContain(u.marginTableId);

    // The SDK's own market loader (meta + spotMeta + outcomeMeta): names → the venue's asset ids.
    const symbols = await SymbolConverter.create({ transport: new HttpTransport({ apiUrl: sim.url }) });
    expect([symbols.getAssetId('BTC'), symbols.getAssetId('ETH'), symbols.getAssetId('SOL')]).toEqual([0, 1, 5]);
    expect(symbols.getSzDecimals('ETH')).toBe(4);

    expect(await info.allMids()).toStrictEqual({ BTC: '97000.5', ETH: '2000.05', SOL: '150' });

    const book = await info.l2Book({ coin: 'BTC' });
    if (!book) throw new Error('no BTC book');
    expect(book.coin).toBe('BTC');
    expect(book.time).toBeGreaterThan(Date.now() - 60_000);
    const [bids, asks] = book.levels;
    expect([bids.length, asks.length]).toEqual([10, 10]);
    // $50,000 a level: 50000 / 97000.5 = 0.51546 BTC (5 size decimals, rounded down).
    expect(bids[0]).toStrictEqual({ px: '97000', sz: '0.51546', n: 1 });
    expect(asks[0]).toStrictEqual({ px: '97001', sz: '0.51546', n: 1 });
    expect([bids[9].px, asks[9].px]).toEqual(['96991', '97010']);
    const sol = await info.l2Book({ coin: 'SOL' });
    expect([sol?.levels[0][0], sol?.levels[1][0]]).toStrictEqual([
      { px: '149.99', sz: '333.33', n: 1 },
      { px: '150.01', sz: '333.33', n: 1 },
    ]);
    expect(await info.l2Book({ coin: 'NOPE' })).toBeNull();

    const [again, ctxs] = await info.metaAndAssetCtxs();
    expect(again).toStrictEqual(meta);
    expect(ctxs).toHaveLength(meta.universe.length);
    expect(ctxs[1]).toStrictEqual({
      prevDayPx: '2000.05',
      dayNtlVlm: '0',
      markPx: '2000.05',
      midPx: '2000.05',
      funding: '0.0',
      openInterest: '0.0',
      premium: '0.0',
      oraclePx: '2000.05',
      impactPxs: ['2000', '2000.1'],
      dayBaseVlm: '0',
    });
    expect(ctxs[3]).toMatchObject({ markPx: '0.0', midPx: null, impactPxs: null });
  });

  it('approveAgent (user-signed) by the master; the API wallet then trades for it', async () => {
    expect(await asMaster.approveAgent({ agentAddress: agent.address, agentName: 'conformance' })).toStrictEqual({
      status: 'ok',
      response: { type: 'default' },
    });
    expect(sim.agents(user)).toEqual([{ name: 'conformance', address: agent.address.toLowerCase(), validUntil: null }]);
  });

  it('place a resting limit with a cloid; list it, read it, see it in the book; cancel by oid, then by cloid', async () => {
    const cloid = newCloid();
    const placed = await asAgent.order({
      orders: [{ a: 0, b: true, p: '90000', s: '0.001', r: false, t: { limit: { tif: 'Gtc' } }, c: cloid }],
      grouping: 'na',
    });
    expect(placed.status).toBe('ok');
    expect(placed.response.type).toBe('order');
    const [status] = placed.response.data.statuses;
    if (typeof status !== 'object' || !('resting' in status)) throw new Error(`not resting: ${JSON.stringify(status)}`);
    const { oid } = status.resting;
    expect(status).toStrictEqual({ resting: { oid, cloid } });

    const open = await info.openOrders({ user });
    expect(open).toStrictEqual([
      {
        coin: 'BTC',
        side: 'B',
        limitPx: '90000',
        sz: '0.001',
        oid,
        timestamp: expect.any(Number),
        origSz: '0.001',
        cloid,
      },
    ]);
    const frontend = restingBuy({
      coin: 'BTC',
      limitPx: '90000',
      sz: '0.001',
      oid,
      timestamp: open[0].timestamp,
      cloid,
    });
    expect(await info.frontendOpenOrders({ user })).toStrictEqual([frontend]);
    const known = { status: 'order', order: { order: frontend, status: 'open', statusTimestamp: expect.any(Number) } };
    expect(await info.orderStatus({ user, oid })).toStrictEqual(known);
    expect(await info.orderStatus({ user, oid: cloid })).toStrictEqual(known);
    expect(await info.orderStatus({ user, oid: newCloid() })).toStrictEqual({ status: 'unknownOid' });

    // The order is the 11th bid level, below the ten synthetic ones.
    const book = await info.l2Book({ coin: 'BTC' });
    expect(book?.levels[0][10]).toStrictEqual({ px: '90000', sz: '0.001', n: 1 });

    expect(await asAgent.cancel({ cancels: [{ a: 0, o: oid }] })).toStrictEqual({
      status: 'ok',
      response: { type: 'cancel', data: { statuses: ['success'] } },
    });
    expect(await info.orderStatus({ user, oid })).toMatchObject({ order: { status: 'canceled' } });
    expect(await refusal(asAgent.cancel({ cancels: [{ a: 0, o: oid }] }))).toBe(
      'cancel 0: Order was never placed, already canceled, or filled. asset=0',
    );

    const second = newCloid();
    await asAgent.order({
      orders: [{ a: 1, b: false, p: '2100', s: '0.5', r: false, t: { limit: { tif: 'Alo' } }, c: second }],
      grouping: 'na',
    });
    expect((await info.openOrders({ user })).map((o) => o.cloid)).toEqual([second]);
    expect(await asAgent.cancelByCloid({ cancels: [{ asset: 1, cloid: second }] })).toStrictEqual({
      status: 'ok',
      response: { type: 'cancel', data: { statuses: ['success'] } },
    });
    expect(await info.openOrders({ user })).toStrictEqual([]);
    expect(await info.frontendOpenOrders({ user })).toStrictEqual([]);
  });

  it('an IOC across the book fills; the fill, the balance and the position', async () => {
    const symbols = await SymbolConverter.create({ transport: new HttpTransport({ apiUrl: sim.url }) });
    const btc = symbols.getAssetId('BTC')!;
    const szDecimals = symbols.getSzDecimals('BTC')!;
    const book = await info.l2Book({ coin: 'BTC' });
    // Buy 0.01 BTC up to 1 % through the best ask: the simulator fills at the mark, 97000.5.
    const limit = formatPrice(new Decimal(book!.levels[1][0].px).mul('1.01').toFixed(), szDecimals);
    const cloid = newCloid();
    const placed = await asAgent.order({
      orders: [
        {
          a: btc,
          b: true,
          p: limit,
          s: formatSize('0.01', szDecimals),
          r: false,
          t: { limit: { tif: 'Ioc' } },
          c: cloid,
        },
      ],
      grouping: 'na',
    });
    const [status] = placed.response.data.statuses;
    if (typeof status !== 'object' || !('filled' in status)) throw new Error(`not filled: ${JSON.stringify(status)}`);
    const { oid } = status.filled;
    expect(status).toStrictEqual({ filled: { totalSz: '0.01', avgPx: '97000.5', oid, cloid } });
    expect(await info.orderStatus({ user, oid: cloid })).toMatchObject({
      order: { status: 'filled', order: { sz: '0', origSz: '0.01', tif: 'Ioc' } },
    });

    // Fee, equity and margin: test/venues/hyperliquid-answers.ts.
    expect(await info.userFills({ user })).toStrictEqual([btcLongFill(oid, cloid)]);
    expect(await info.clearinghouseState({ user })).toStrictEqual(BTC_LONG_STATE);
    const [, ctxs] = await info.metaAndAssetCtxs();
    expect(ctxs[0]).toMatchObject({ dayNtlVlm: '970.005', dayBaseVlm: '0.01' });

    // An IOC the book cannot fill is refused, in the venue's words.
    expect(
      await refusal(
        asAgent.order({
          orders: [{ a: btc, b: true, p: '90000', s: '0.01', r: false, t: { limit: { tif: 'Ioc' } } }],
          grouping: 'na',
        }),
      ),
    ).toBe('order 0: Order could not immediately match against any resting orders. asset=0');
  });

  it('a resting sell fills as maker once the mark crosses it: closedPnl, maker fee, the position closed', async () => {
    const placed = await asAgent.order({
      orders: [{ a: 0, b: false, p: '97100', s: '0.01', r: true, t: { limit: { tif: 'Gtc' } } }],
      grouping: 'na',
    });
    const [status] = placed.response.data.statuses;
    if (typeof status !== 'object' || !('resting' in status)) throw new Error(`not resting: ${JSON.stringify(status)}`);
    expect(status).toStrictEqual({ resting: { oid: status.resting.oid } });
    expect(await info.openOrders({ user })).toMatchObject([{ oid: status.resting.oid, reduceOnly: true }]);
    marks.set('BTC.HL', '97200');
    try {
      expect(await info.orderStatus({ user, oid: status.resting.oid })).toMatchObject({
        order: { status: 'filled', order: { reduceOnly: true } },
      });
      // Maker fee 0.015 % of 971 = 0.14565; realised (97100 − 97000.5) × 0.01 = 0.995.
      const [latest] = await info.userFills({ user });
      expect(latest).toMatchObject({
        px: '97100',
        sz: '0.01',
        side: 'A',
        startPosition: '0.01',
        dir: 'Close Long',
        closedPnl: '0.995',
        crossed: false,
        fee: '0.14565',
      });
      expect(latest).not.toHaveProperty('cloid');
      const state = await info.clearinghouseState({ user });
      expect(state.assetPositions).toStrictEqual([]);
      expect(state.marginSummary).toStrictEqual({
        accountValue: '10000.412848',
        totalNtlPos: '0',
        totalRawUsd: '10000.412848',
        totalMarginUsed: '0',
      });
    } finally {
      marks.set('BTC.HL', '97000.5');
    }
  });

  it('a funded master signs its own L1 actions; an unknown wallet does not exist', async () => {
    const placed = await asMaster.order({
      orders: [{ a: 5, b: true, p: '140', s: '1', r: false, t: { limit: { tif: 'Gtc' } } }],
      grouping: 'na',
    });
    const [status] = placed.response.data.statuses;
    if (typeof status !== 'object' || !('resting' in status)) throw new Error(`not resting: ${JSON.stringify(status)}`);
    await asMaster.cancel({ cancels: [{ a: 5, o: status.resting.oid }] });
    const stranger = privateKeyToAccount(generatePrivateKey());
    const asStranger = new ExchangeClient({ transport: new HttpTransport({ apiUrl: sim.url }), wallet: stranger });
    expect(
      await refusal(
        asStranger.order({
          orders: [{ a: 5, b: true, p: '140', s: '1', r: false, t: { limit: { tif: 'Gtc' } } }],
          grouping: 'na',
        }),
      ),
    ).toBe(`User or API Wallet ${stranger.address.toLowerCase()} does not exist.`);
  });

  it('testnet: the SDK with isTestnet signs for a testnet simulator (phantom agent source b, hyperliquidChain Testnet)', async () => {
    const testnet = await startHyperliquidSimulator({ network: 'testnet', markOf: async (s) => marks.get(s) ?? null });
    try {
      const owner = privateKeyToAccount(generatePrivateKey());
      const key = privateKeyToAccount(generatePrivateKey());
      const transport = new HttpTransport({ apiUrl: testnet.url, isTestnet: true });
      await new ExchangeClient({ transport, wallet: owner }).approveAgent({ agentAddress: key.address, agentName: '' });
      const placed = await new ExchangeClient({ transport, wallet: key }).order({
        orders: [{ a: 1, b: true, p: '1900', s: '0.01', r: false, t: { limit: { tif: 'Gtc' } } }],
        grouping: 'na',
      });
      expect(placed.response.data.statuses[0]).toMatchObject({ resting: { oid: expect.any(Number) } });
      // The same key signing for mainnet recovers some other address.
      const mainnetSigned = new ExchangeClient({ transport: new HttpTransport({ apiUrl: testnet.url }), wallet: key });
      expect(
        await refusal(
          mainnetSigned.order({
            orders: [{ a: 1, b: true, p: '1900', s: '0.01', r: false, t: { limit: { tif: 'Gtc' } } }],
            grouping: 'na',
          }),
        ),
      ).toMatch(/^User or API Wallet 0x[0-9a-f]{40} does not exist\.$/);
    } finally {
      await testnet.close();
    }
  });
});

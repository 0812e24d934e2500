/**
 * Polymarket's Exchange V3 (docs/venues.md §3.1, §3.4): the same `Order` struct and wire body as V2, signed
 * under domain version "3" for one exchange contract per network (Polygon
 * `0xe3333700cA9d93003F00f0F71f8515005F6c00Aa`, Amoy `0x9fE6e61422AdB6F610d8597F9684b16912D50C3D`), taken
 * when the CLOB's `GET /version` answers 3. Against a simulator running V3: Polymarket's official client
 * (`@polymarket/clob-client-v2`) asks the version and signs for it, and the simulator accepts, rests, lists
 * and cancels its orders (types 0, 2 and 3); the client's V3 signatures equal the platform's
 * (venues/polymarket/signing.ts) for a fixed key, on both networks, for standard and neg-risk markets; an order
 * signed for the other exchange version is refused as an invalid signature; and the platform's adapter asks
 * the version once, then places, finds (after a lost acknowledgement, by its V3 hash) and cancels.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recoverAddress, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { polygon, polygonAmoy } from 'viem/chains';
import { ClobClient, OrderType, Side, SignatureTypeV2 } from '@polymarket/clob-client-v2';
import { POLYMARKET_SYMBOLS } from '../../domain/market/venues/polymarket.js';
import { forgetExchangeVersions, forgetSignedOrders, polymarketAdapter } from '../../venues/polymarket/adapter.js';
import { EXCHANGES, orderDomain, orderHash, signOrder } from '../../venues/polymarket/signing.js';
import type { VenueContext, VenueOrderRequest } from '../../venues/types.js';
import { startPolymarketSimulator, type PolymarketSimulator } from '../../simulators/polymarket.js';
import { orderRequest, placeWithLostAck } from '../support/adapters.js';
import { asPlatformOrder, clobBuy, clobWallet, evenMarks, expectClobCanceled } from '../support/prediction-venues.js';

// Publicly known dev-chain key used by the official clients' tests: a deterministic signer.
const VECTOR_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80' as const;
const YES = POLYMARKET_SYMBOLS[0];
const NO = POLYMARKET_SYMBOLS[1];
const TOKEN = YES.venueSymbol!;
const HASH = /^0x[0-9a-f]{64}$/;

/** An address, compared in any letter case. */
const sameAddress = (address: string) => expect.stringMatching(new RegExp(`^${address}$`, 'i'));

describe('Polymarket Exchange V3', () => {
  const marks = evenMarks(YES, NO);
  const markOf = async (s: string) => marks.get(s) ?? null;
  let sim: PolymarketSimulator;
  let amoy: PolymarketSimulator;
  let v2: PolymarketSimulator;

  beforeAll(async () => {
    forgetExchangeVersions();
    sim = await startPolymarketSimulator({ markOf, exchangeVersion: 3 });
    amoy = await startPolymarketSimulator({ markOf, network: 'testnet', exchangeVersion: 3 });
    v2 = await startPolymarketSimulator({ markOf });
  });
  afterAll(async () => {
    await sim?.close();
    await amoy?.close();
    await v2?.close();
  });

  /** The L2 credentials `signer`'s key gets from `venue` by L1 `createOrDeriveApiKey`. */
  const apiKeyOf = (venue: PolymarketSimulator, signer: ReturnType<typeof clobWallet>) =>
    new ClobClient({ host: venue.url, chain: 137, signer }).createOrDeriveApiKey();

  describe('the official client against a V3 simulator', () => {
    const key = generatePrivateKey();
    const address = privateKeyToAccount(key).address;
    let trader: ClobClient;

    beforeAll(async () => {
      const creds = await apiKeyOf(sim, clobWallet(key));
      trader = new ClobClient({ host: sim.url, chain: 137, signer: clobWallet(key), creds });
    });

    it('asks the version (3) and signs for it: a resting order is accepted, listed, read, on the book and canceled; its id is the platform’s V3 hash', async () => {
      expect(await trader.getVersion()).toBe(3);
      const signed = await trader.createOrder({ tokenID: TOKEN, price: 0.3, size: 10, side: Side.BUY });
      const placed = await trader.postOrder(signed, OrderType.GTC);
      expect(placed).toMatchObject({ success: true, status: 'live', orderID: expect.stringMatching(HASH) });
      expect(placed.orderID).toBe(orderHash(asPlatformOrder(signed), 'mainnet', false, 3));
      expect(placed.orderID).not.toBe(orderHash(asPlatformOrder(signed), 'mainnet', false, 2));
      const open = expect.objectContaining({
        id: placed.orderID,
        status: 'LIVE',
        maker_address: sameAddress(address),
        asset_id: TOKEN,
        side: 'BUY',
        original_size: '10',
        price: '0.3',
      });
      expect(await trader.getOpenOrders({ asset_id: TOKEN })).toEqual([open]);
      expect(await trader.getOrder(placed.orderID)).toEqual(open);
      expect((await trader.getOrderBook(TOKEN)).bids).toEqual([{ price: '0.3', size: '10' }]);
      await expectClobCanceled(trader, placed.orderID);
      expect(await trader.getOpenOrders({ asset_id: TOKEN })).toEqual([]);
      expect(await trader.getOrder(placed.orderID)).toMatchObject({ id: placed.orderID, status: 'CANCELED' });
    });

    it('a Safe (type 2) and a deposit wallet (type 3, ERC-7739 under the V3 exchange’s domain) trade on V3 too', async () => {
      const owner = clobWallet(generatePrivateKey());
      const ownerCreds = await apiKeyOf(sim, owner);
      const safe = privateKeyToAccount(generatePrivateKey()).address;
      const depositWallet = privateKeyToAccount(generatePrivateKey()).address;
      sim.registerWallet(safe, owner.account.address, 2);
      sim.registerWallet(depositWallet, owner.account.address, 3);
      const typed = [
        { signatureType: SignatureTypeV2.POLY_GNOSIS_SAFE, funderAddress: safe },
        { signatureType: SignatureTypeV2.POLY_1271, funderAddress: depositWallet },
      ];
      for (const t of typed) {
        const client = new ClobClient({ host: sim.url, chain: 137, signer: owner, creds: ownerCreds, ...t });
        const placed = await clobBuy(client, TOKEN, 0.3);
        expect({ signatureType: t.signatureType, placed }).toMatchObject({
          signatureType: t.signatureType,
          placed: { success: true, status: 'live' },
        });
        expect(await client.getOrder(placed.orderID)).toMatchObject({ maker_address: sameAddress(t.funderAddress) });
        await expectClobCanceled(client, placed.orderID);
      }
    });
  });

  it('signs V3 orders byte for byte as the platform does, for a fixed key: Polygon and Amoy, standard and neg-risk markets (one exchange)', async () => {
    const signer = privateKeyToAccount(VECTOR_KEY).address;
    const networks = [
      { network: 'mainnet', host: () => sim.url, chain: 137, viemChain: polygon },
      { network: 'testnet', host: () => amoy.url, chain: 80002, viemChain: polygonAmoy },
    ] as const;
    for (const n of networks) {
      const client = new ClobClient({ host: n.host(), chain: n.chain, signer: clobWallet(VECTOR_KEY, n.viemChain) });
      for (const negRisk of [false, true]) {
        const signed = await client.createOrder(
          { tokenID: TOKEN, price: 0.3, size: 10, side: Side.BUY },
          { tickSize: '0.01', negRisk },
        );
        const ours = asPlatformOrder(signed);
        const hash = orderHash(ours, n.network, negRisk, 3);
        expect({
          network: n.network,
          negRisk,
          signature: await signOrder(VECTOR_KEY, ours, n.network, negRisk, 3),
          // The client signed exactly the platform's V3 digest: its signature recovers the key over it.
          recovered: await recoverAddress({ hash, signature: signed.signature as Hex }),
        }).toEqual({ network: n.network, negRisk, signature: signed.signature, recovered: signer });
        // V3 has one exchange per network: neg-risk changes nothing; V2's domain gives another digest.
        expect(orderDomain(n.network, negRisk, 3).verifyingContract).toBe(EXCHANGES[3].contracts[n.network].standard);
        expect(hash).toBe(orderHash(ours, n.network, !negRisk, 3));
        expect(hash).not.toBe(orderHash(ours, n.network, negRisk, 2));
      }
    }
  });

  it('an order signed for the other exchange version is refused as an invalid signature (V2 on the V3 venue, V3 on the V2 venue)', async () => {
    const key = generatePrivateKey();
    const order = { tokenID: TOKEN, price: 0.3, size: 10, side: Side.BUY };
    for (const [venue, otherVersion] of [
      [sim, 2],
      [v2, 3],
    ] as const) {
      const client = new ClobClient({
        host: venue.url,
        chain: 137,
        signer: clobWallet(key),
        creds: await apiKeyOf(venue, clobWallet(key)),
      });
      const signed = await client.createOrder(order, { tickSize: '0.01', negRisk: false, version: otherVersion });
      expect(await client.postOrder(signed, OrderType.GTC)).toEqual({ status: 400, error: 'invalid signature' });
      // The same order signed for the venue's own version is taken.
      const own = await client.postOrder(await client.createOrder(order, { tickSize: '0.01', negRisk: false }));
      expect(own).toMatchObject({ success: true, status: 'live' });
      await expectClobCanceled(client, own.orderID);
    }
  });

  describe('the platform’s adapter against a V3 simulator', () => {
    let lastNonce = 0n;
    const nextNonce = async () => (lastNonce = BigInt(Math.max(Number(lastNonce) + 1, Date.now())));
    /** `GET /version` requests the adapter sent. */
    let versionAsks = 0;
    const counting: typeof fetch = (input, init) => {
      if (new URL(input instanceof Request ? input.url : String(input)).pathname === '/version') versionAsks++;
      return fetch(input, init);
    };

    /** A fresh owner and agent, the agent's L2 credentials derived through the adapter; its context on the V3 simulator. */
    async function authorised() {
      const ownerKey = generatePrivateKey();
      const owner = privateKeyToAccount(ownerKey).address;
      const agentKey = generatePrivateKey();
      const agent = { kind: 'evm' as const, privateKey: agentKey, address: privateKeyToAccount(agentKey).address };
      const base = { baseUrl: sim.url, network: 'mainnet' as const, agent, owner, nextNonce, fetch: counting };
      const request = polymarketAdapter.authorizationRequest({
        owner,
        agentAddress: agent.address,
        agentName: 'bot',
        expiresAt: Date.now() + 3_600_000,
        nonce: Date.now(),
        network: 'mainnet',
      });
      if (request.kind !== 'eip712') throw new Error('expected eip712');
      const signature = await privateKeyToAccount(ownerKey).signTypedData(request.typedData);
      const creds = await polymarketAdapter.submitAuthorization(base, { request, signature });
      sim.linkOwner(owner, agent.address);
      return { ctx: { ...base, apiCredentials: creds } as VenueContext, owner };
    }

    let seq = 0;
    const limitBuy = (price: string): VenueOrderRequest =>
      orderRequest(
        {
          clientOrderId: polymarketAdapter.clientOrderId(`int_V3_${Date.now()}_${++seq}`),
          symbol: YES.symbol,
          qty: '10',
          markPrice: '0.5',
          leverage: '1',
        },
        { type: 'limit', price },
      );

    it('asks GET /version once, signs for V3: two resting orders placed, read and canceled', async () => {
      const { ctx, owner } = await authorised();
      const placed = [];
      for (const price of ['0.3', '0.31']) {
        const r = limitBuy(price);
        const p = await polymarketAdapter.place(ctx, r);
        expect(p).toMatchObject({ clientOrderId: r.clientOrderId, status: 'open', price, qty: '10' });
        placed.push(p);
      }
      expect(versionAsks).toBe(1);
      expect(sim.orderCount(owner)).toBe(2);
      for (const p of placed) {
        expect(await polymarketAdapter.status(ctx, YES.symbol, p.venueOrderId)).toMatchObject({ status: 'open' });
        expect(await polymarketAdapter.cancel(ctx, YES.symbol, p.venueOrderId)).toMatchObject({
          venueOrderId: p.venueOrderId,
          status: 'canceled',
        });
      }
    });

    it('a lost acknowledgement: the order is found by its V3 hash, remembered and after a restart', async () => {
      const { ctx, owner } = await authorised();
      const r = limitBuy('0.2');
      const found = await placeWithLostAck(polymarketAdapter, sim, ctx, owner, r);
      expect(found).toMatchObject({ clientOrderId: r.clientOrderId, status: 'open', price: '0.2' });
      forgetSignedOrders();
      forgetExchangeVersions();
      expect(await polymarketAdapter.findByClientOrderId(ctx, r.symbol, r.clientOrderId)).toMatchObject({
        venueOrderId: found!.venueOrderId,
        clientOrderId: r.clientOrderId,
      });
      expect(sim.orderCount(owner)).toBe(1);
      await polymarketAdapter.cancel(ctx, r.symbol, found!.venueOrderId);
    });
  });
});

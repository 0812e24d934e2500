/**
 * Polymarket CLOB V2: the official clients' published vectors (order hash, deposit-wallet
 * signature, ClobAuth L1 signature, L2 HMAC, order amounts), the symbol table against the
 * recording, and adapter ↔ simulator round trips (API-key derivation, market and limit orders, status,
 * cancel, fills, the lost-acknowledgement lookup by order hash, and every refusal the simulator must
 * make). test/venues/polymarket-conformance.test.ts drives the simulator with Polymarket's own client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { concat, hashDomain, hashStruct, numberToHex, stringToHex, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { POLYMARKET_SYMBOLS, POLYMARKET_TOKENS } from '../../domain/market/venues/polymarket.js';
import { loadPolymarketMarkets } from '../../infra/recorded-polymarket.js';
import { forgetSignedOrders, polymarketAdapter } from '../../venues/polymarket/adapter.js';
import {
  BYTES32_ZERO,
  EXCHANGE_V2,
  ORDER_TYPES,
  hmacSignature,
  immediateOrderAmounts,
  l1Headers,
  l2Headers,
  orderAmounts,
  orderHash,
  recoverOrderSigner,
  recoverPoly1271Owner,
  saltFromIntentId,
  signOrder,
  type PolymarketOrder,
} from '../../venues/polymarket/signing.js';
import { protectivePrice, platformStatus } from '../../venues/polymarket/wire.js';
import { VenueRejected, type VenueContext, type VenueOrderRequest } from '../../venues/types.js';
import { startPolymarketSimulator, type PolymarketSimulator } from '../../simulators/polymarket.js';
import { expectRejected, orderEcho, orderRequest, placeWithLostAck } from '../support/adapters.js';
import { evenMarks, predictionHolding } from '../support/prediction-venues.js';

// Publicly known dev-chain key used by the official clients' tests.
const VECTOR_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80' as const;

describe('official vectors', () => {
  // Polymarket/py-clob-client-v2 @ 6231f16d6b5c6f85a28c2d7130fdcbaf0df5a2e1
  // tests/order_utils/test_exchange_order_builder_v2.py (Amoy, exchange V2, POLY_1271 deposit wallet).
  const wallet = '0x1111111111111111111111111111111111111111' as const;
  const order: PolymarketOrder = {
    salt: '479249096354',
    maker: wallet,
    signer: wallet,
    tokenId: '1234',
    makerAmount: '100000000',
    takerAmount: '50000000',
    side: 'BUY',
    signatureType: 3,
    timestamp: '1710000000000',
    metadata: BYTES32_ZERO,
    builder: BYTES32_ZERO,
  };
  const EXPECTED_1271 =
    '0xa3a093c83b6c20c83355c16ce94c92e6e9fcbdeb840618cc74f6c57a42ad145b2b98db73d2c73cbf1f2b6af288566ae81960ddbc3a13921027358a8bff3be6ff1ca440cbd865bc0c6243d7a8df9a8bf48a8827b0a4abbb61c30e96d305423af148d23d42d3ad94e65d78258cecaf8dcbaddac0f73dc085040f2c12bb595dd838044f726465722875696e743235362073616c742c61646472657373206d616b65722c61646472657373207369676e65722c75696e7432353620746f6b656e49642c75696e74323536206d616b6572416d6f756e742c75696e743235362074616b6572416d6f756e742c75696e743820736964652c75696e7438207369676e6174757265547970652c75696e743235362074696d657374616d702c62797465733332206d657461646174612c62797465733332206275696c6465722900ba';

  it('V2 order hash (= Polymarket orderID) of the py-clob-client-v2 vector', () => {
    expect(orderHash(order, 'testnet', false)).toBe(
      '0x2afca94626db91b2d556c351584a4cd93e13da32e377dc48c7983e43afa5ab47',
    );
    // The neg-risk exchange is another domain: another hash.
    expect(orderHash(order, 'testnet', true)).not.toBe(
      '0x2afca94626db91b2d556c351584a4cd93e13da32e377dc48c7983e43afa5ab47',
    );
  });

  it('POLY_1271 signature of the same vector: our domain separator and Order struct hash, signed as TypedDataSign', async () => {
    const domain = {
      name: 'Polymarket CTF Exchange',
      version: '2',
      chainId: 80002,
      verifyingContract: EXCHANGE_V2.standard,
    } as const;
    const message = {
      salt: 479249096354n,
      maker: wallet,
      signer: wallet,
      tokenId: 1234n,
      makerAmount: 100000000n,
      takerAmount: 50000000n,
      side: 0,
      signatureType: 3,
      timestamp: 1710000000000n,
      metadata: BYTES32_ZERO,
      builder: BYTES32_ZERO,
    };
    const inner = await privateKeyToAccount(VECTOR_KEY).signTypedData({
      domain,
      types: {
        TypedDataSign: [
          { name: 'contents', type: 'Order' },
          { name: 'name', type: 'string' },
          { name: 'version', type: 'string' },
          { name: 'chainId', type: 'uint256' },
          { name: 'verifyingContract', type: 'address' },
          { name: 'salt', type: 'bytes32' },
        ],
        Order: ORDER_TYPES.Order,
      },
      primaryType: 'TypedDataSign',
      message: {
        contents: message,
        name: 'DepositWallet',
        version: '1',
        chainId: 80002n,
        verifyingContract: wallet,
        salt: BYTES32_ZERO,
      },
    });
    const typeString =
      'Order(uint256 salt,address maker,address signer,uint256 tokenId,uint256 makerAmount,uint256 takerAmount,uint8 side,uint8 signatureType,uint256 timestamp,bytes32 metadata,bytes32 builder)';
    const full = concat([
      inner,
      hashDomain({
        domain: { ...domain, chainId: 80002n },
        types: {
          EIP712Domain: [
            { name: 'name', type: 'string' },
            { name: 'version', type: 'string' },
            { name: 'chainId', type: 'uint256' },
            { name: 'verifyingContract', type: 'address' },
          ],
        },
      }),
      hashStruct({ data: message, primaryType: 'Order', types: ORDER_TYPES }),
      stringToHex(typeString),
      numberToHex(typeString.length, { size: 2 }),
    ]);
    expect(full).toBe(EXPECTED_1271);
  });

  it('the deposit wallet accepts that POLY_1271 vector from its owner only, and only for that order on that exchange', async () => {
    const owner = privateKeyToAccount(VECTOR_KEY).address.toLowerCase();
    expect(await recoverPoly1271Owner(order, EXPECTED_1271, 'testnet', false)).toBe(owner);
    // The envelope names the standard exchange's domain and this order's contents: another exchange, another
    // order or another chain is refused (null), and so is a cut envelope.
    expect(await recoverPoly1271Owner(order, EXPECTED_1271, 'testnet', true)).toBeNull();
    expect(
      await recoverPoly1271Owner({ ...order, makerAmount: '100000001' }, EXPECTED_1271, 'testnet', false),
    ).toBeNull();
    expect(await recoverPoly1271Owner(order, EXPECTED_1271, 'mainnet', false)).toBeNull();
    expect(await recoverPoly1271Owner(order, EXPECTED_1271.slice(0, -6), 'testnet', false)).toBeNull();
    // A tampered inner signature recovers someone else (or nothing), never the owner.
    const flipped = `${EXPECTED_1271.slice(0, 10)}${EXPECTED_1271[10] === '0' ? '1' : '0'}${EXPECTED_1271.slice(11)}`;
    expect(await recoverPoly1271Owner(order, flipped, 'testnet', false)).not.toBe(owner);
  });

  it('L1 ClobAuth signature (clob-client-v2 tests/signing/eip712.test.ts and py-clob-client-v2 tests/signing/test_eip712.py)', async () => {
    const h = await l1Headers(VECTOR_KEY, '10000000', 23n, 'testnet');
    expect(h.POLY_SIGNATURE).toBe(
      '0xf62319a987514da40e57e2f4d7529f7bac38f0355bd88bb5adbb3768d80de6c1682518e0af677d5260366425f4361e7b70c25ae232aff0ab2331e2b164a1aedc1b',
    );
    expect(h).toMatchObject({
      POLY_ADDRESS: privateKeyToAccount(VECTOR_KEY).address,
      POLY_TIMESTAMP: '10000000',
      POLY_NONCE: '23',
    });
  });

  it('L2 HMAC (clob-client-v2 tests/signing/hmac.test.ts, py-clob-client-v2 tests/signing/test_hmac.py), url-safe with = padding', () => {
    expect(
      hmacSignature(
        'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
        '1000000',
        'test-sign',
        '/orders',
        '{"hash": "0x123"}',
      ),
    ).toBe('ZwAdJKvoYRlEKDkNMwd5BuwNNtg93kNaR_oU2HrfVvc=');
    // no body: the message is ts+method+path only, and differs from the body vector
    expect(hmacSignature('AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=', '1000000', 'test-sign', '/orders')).not.toBe(
      'ZwAdJKvoYRlEKDkNMwd5BuwNNtg93kNaR_oU2HrfVvc=',
    );
  });

  // clob-client-v2 tests/order-builder/helpers/buildOrderCreationArgs.test.ts (and createOrder/buildOrder tests).
  const AMOUNTS: [string, 'BUY' | 'SELL', string, string, string, string][] = [
    ['0.1', 'BUY', '0.5', '21.04', '10520000', '21040000'],
    ['0.01', 'BUY', '0.56', '21.04', '11782400', '21040000'],
    ['0.001', 'BUY', '0.056', '21.04', '1178240', '21040000'],
    ['0.0001', 'BUY', '0.0056', '21.04', '117824', '21040000'],
    ['0.1', 'SELL', '0.5', '21.04', '21040000', '10520000'],
    ['0.01', 'SELL', '0.56', '21.04', '21040000', '11782400'],
    ['0.001', 'SELL', '0.056', '21.04', '21040000', '1178240'],
    ['0.0001', 'SELL', '0.0056', '21.04', '21040000', '117824'],
    ['0.01', 'BUY', '0.82', '20', '16400000', '20000000'],
  ];
  it.each(AMOUNTS)('amounts tick %s %s %s × %s → maker %s taker %s', (tick, side, price, size, maker, taker) => {
    expect(orderAmounts(side, size, price, tick)).toMatchObject({ makerAmount: maker, takerAmount: taker });
  });

  it('rounds the price half-up and the size down before multiplying', () => {
    expect(orderAmounts('BUY', '10.999', '0.555', '0.01')).toEqual({
      makerAmount: '6154400',
      takerAmount: '10990000',
      price: '0.56',
      size: '10.99',
    });
    expect(() => orderAmounts('BUY', '1', '0.5', '0.03')).toThrow(/tick size/);
  });

  it('FOK/FAK amounts: a BUY offers size × price USDC rounded up to 2 decimals, a SELL asks it rounded down to 4', () => {
    // 1.37 × 0.55 = 0.7535: the limit amounts would carry 4 decimals of USDC, which the CLOB refuses of a FAK
    expect(immediateOrderAmounts('BUY', '1.37', '0.55', '0.01')).toEqual({
      makerAmount: '760000',
      takerAmount: '1370000',
      price: '0.55',
      size: '1.37',
    });
    // 1.37 × 0.577 = 0.79049 → 0.7904 USDC for 1.37 shares
    expect(immediateOrderAmounts('SELL', '1.37', '0.577', '0.001')).toMatchObject({
      makerAmount: '1370000',
      takerAmount: '790400',
    });
    // 0.01 share at 0.99 rounds up to 1 USDC per share: outside the book
    expect(() => immediateOrderAmounts('BUY', '0.01', '0.99', '0.01')).toThrow(/outside the book/);
  });
});

describe('signing and wire', () => {
  it('signs a Gnosis-Safe order with a fixed key and recovers the signer; any field change breaks it', async () => {
    const key = VECTOR_KEY;
    const signer = privateKeyToAccount(key).address;
    const o: PolymarketOrder = {
      salt: saltFromIntentId('int_01JXYZ0000000000000000000'),
      maker: '0x2222222222222222222222222222222222222222',
      signer,
      tokenId: POLYMARKET_SYMBOLS[0].venueSymbol!,
      makerAmount: '5000000',
      takerAmount: '10000000',
      side: 'BUY',
      signatureType: 2,
      timestamp: '1760000000000',
      metadata: BYTES32_ZERO,
      builder: BYTES32_ZERO,
    };
    const sig = await signOrder(key, o, 'mainnet', false);
    expect(sig).toBe(await signOrder(key, o, 'mainnet', false)); // RFC 6979: deterministic
    expect(await recoverOrderSigner(o, sig, 'mainnet', false)).toBe(signer.toLowerCase());
    expect(await recoverOrderSigner({ ...o, makerAmount: '5000001' }, sig, 'mainnet', false)).not.toBe(
      signer.toLowerCase(),
    );
    expect(await recoverOrderSigner(o, sig, 'testnet', false)).not.toBe(signer.toLowerCase());
    expect(await recoverOrderSigner(o, sig, 'mainnet', true)).not.toBe(signer.toLowerCase());
  });

  it('derives the salt deterministically from the intent id, always a safe JSON integer', () => {
    const a = saltFromIntentId('int_01JXYZABCDEF0123456789ABCD');
    expect(a).toBe(saltFromIntentId('int_01JXYZABCDEF0123456789ABCD'));
    expect(a).not.toBe(saltFromIntentId('int_01JXYZABCDEF0123456789ABCE'));
    expect(Number.isSafeInteger(Number(a))).toBe(true);
    expect(polymarketAdapter.clientOrderId('int_01JXYZABCDEF0123456789ABCD')).toBe(a);
  });

  it('market protective price is mark ± 5 ticks on the grid, capped to [tick, 1 − tick]', () => {
    expect(protectivePrice('buy', '0.5', '0.01')).toBe('0.55');
    expect(protectivePrice('sell', '0.5', '0.01')).toBe('0.45');
    expect(protectivePrice('buy', '0.5312', '0.01')).toBe('0.59');
    expect(protectivePrice('buy', '0.97', '0.01')).toBe('0.99');
    expect(protectivePrice('sell', '0.03', '0.01')).toBe('0.01');
  });

  it('maps venue statuses through the table and refuses unknown ones', () => {
    expect(['live', 'MATCHED', 'delayed', 'unmatched', 'CANCELED'].map(platformStatus)).toEqual([
      'open',
      'filled',
      'open',
      'open',
      'canceled',
    ]);
    expect(() => platformStatus('weird')).toThrow();
  });
});

describe('symbol table', () => {
  it('every row is a recorded outcome token: symbol, token ids, market id and prices exist in the recording', async () => {
    const markets = await loadPolymarketMarkets();
    expect(POLYMARKET_SYMBOLS.length).toBe(12);
    for (const spec of POLYMARKET_SYMBOLS) {
      const market = markets.find((m) => m.outcomes.some((o) => o.tokenId === spec.venueSymbol));
      expect(market, spec.symbol).toBeDefined();
      const outcome = market!.outcomes.find((o) => o.tokenId === spec.venueSymbol)!;
      expect(spec.symbol).toBe(`${spec.base}-${outcome.outcome.toUpperCase()}.PM`);
      expect(spec.sourceCoin).toBe(spec.venueSymbol);
      expect(POLYMARKET_TOKENS[spec.venueSymbol!]).toEqual({ marketId: market!.marketId, negRisk: false });
      expect(outcome.history.length).toBeGreaterThan(50);
      expect(spec).toMatchObject({
        venue: 'polymarket',
        quote: 'USD',
        assetClass: 'prediction',
        tickSize: '0.01',
        szDecimals: 2,
        maxLeverage: 1,
      });
      expect(spec.symbol.length).toBeLessThanOrEqual(64);
    }
    // both outcomes of each market
    for (const m of new Set(Object.values(POLYMARKET_TOKENS).map((t) => t.marketId)))
      expect(Object.values(POLYMARKET_TOKENS).filter((t) => t.marketId === m).length).toBe(2);
  });
});

describe('adapter ↔ simulator', () => {
  const YES = POLYMARKET_SYMBOLS[0];
  const NO = POLYMARKET_SYMBOLS[1];
  const marks = evenMarks(YES, NO);
  let sim: PolymarketSimulator;
  // As db/agent-nonces.ts allocates: max(last + 1, now) ms, so a signing timestamp tracks the clock.
  let lastNonce = 0n;
  const nextNonce = async () => (lastNonce = BigInt(Math.max(Number(lastNonce) + 1, Date.now())));

  beforeAll(async () => {
    sim = await startPolymarketSimulator({ markOf: async (s) => marks.get(s) ?? null, takerFeeBps: 100 });
  });
  afterAll(async () => sim?.close());

  /** A fresh owner wallet and agent key, the agent authorised until `ttlMs` from now; the context with its L2 credentials. */
  async function authorised(ttlMs = 3_600_000) {
    const ownerKey = generatePrivateKey();
    const owner = privateKeyToAccount(ownerKey).address;
    const agentKey = generatePrivateKey();
    const agent = { kind: 'evm' as const, privateKey: agentKey, address: privateKeyToAccount(agentKey).address };
    const base: Omit<VenueContext, 'apiCredentials'> = {
      baseUrl: sim.url,
      network: 'mainnet',
      agent,
      owner,
      nextNonce,
      fetch,
    };
    const request = polymarketAdapter.authorizationRequest({
      owner,
      agentAddress: agent.address,
      agentName: 'bot',
      expiresAt: Date.now() + ttlMs,
      nonce: Date.now(),
      network: 'mainnet',
    });
    if (request.kind !== 'eip712') throw new Error('expected eip712');
    const typed = JSON.parse(JSON.stringify(request.typedData)); // as the API hands it to the wallet
    const signature = await privateKeyToAccount(ownerKey).signTypedData(typed);
    const creds = await polymarketAdapter.submitAuthorization(base, { request, signature });
    sim.linkOwner(owner, agent.address); // the owner funds (and the test counts) the agent's wallet
    return { ctx: { ...base, apiCredentials: creds } as VenueContext, owner, ownerKey, agent, request, signature };
  }

  let seq = 0;
  const req = (o: Partial<VenueOrderRequest>): VenueOrderRequest =>
    orderRequest(
      {
        clientOrderId: polymarketAdapter.clientOrderId(`int_TEST${Date.now()}${++seq}`),
        symbol: YES.symbol,
        qty: '10',
        markPrice: marks.get(YES.symbol)!,
        leverage: '1',
      },
      o,
    );

  it('authorisation: the owner’s consent verifies locally, a stranger’s does not; the agent derives its L2 credentials by L1 ClobAuth', async () => {
    const a = await authorised();
    expect(
      await polymarketAdapter.verifyAuthorization({ owner: a.owner, request: a.request, signature: a.signature }),
    ).toBe(true);
    const stranger = await privateKeyToAccount(generatePrivateKey()).signTypedData(
      JSON.parse(JSON.stringify((a.request as any).typedData)),
    );
    expect(
      await polymarketAdapter.verifyAuthorization({ owner: a.owner, request: a.request, signature: stranger }),
    ).toBe(false);
    expect(a.ctx.apiCredentials).toEqual({
      apiKey: expect.any(String),
      secret: expect.any(String),
      passphrase: expect.any(String),
    });
    // Again: the key exists (POST /auth/api-key refuses), so the same credentials are derived.
    expect(await polymarketAdapter.submitAuthorization(a.ctx, { request: a.request, signature: a.signature })).toEqual(
      a.ctx.apiCredentials,
    );
    await expect(
      polymarketAdapter.submitAuthorization(a.ctx, { request: a.request, signature: stranger }),
    ).rejects.toThrow('invalid signature');
    // The venue has no platform-side authorisation route.
    expect((await fetch(`${sim.url}/auth/authorize-signer`, { method: 'POST', body: '{}' })).status).toBe(404);
  });

  it('market buy fills at the mark with the taker fee; status, fills and orders agree', async () => {
    const { ctx } = await authorised();
    const r = req({});
    const placed = await polymarketAdapter.place(ctx, r);
    expect(placed).toMatchObject({ ...orderEcho(r), price: '0.55', status: 'filled', filledQty: '10' }); // r: YES, buy 10
    expect(placed.venueOrderId).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await polymarketAdapter.status(ctx, YES.symbol, placed.venueOrderId)).toMatchObject({ status: 'filled' });
    const fills = await polymarketAdapter.fills(ctx, { sinceMs: Date.now() - 60_000 });
    expect(fills).toEqual([
      expect.objectContaining({
        venueOrderId: placed.venueOrderId,
        ...orderEcho(r),
        price: '0.5',
        feeUsd: '0.05',
      }),
    ]);
    expect(await polymarketAdapter.fills(ctx, { sinceMs: Date.now() + 120_000 })).toEqual([]);
  });

  it('a limit order rests, shows in orders(), fills as a maker (fee 0) once the mark crosses; another is canceled', async () => {
    const { ctx } = await authorised();
    const resting = await polymarketAdapter.place(ctx, req({ type: 'limit', price: '0.3', side: 'buy' }));
    expect(resting).toMatchObject({ status: 'open', filledQty: '0', price: '0.3' });
    const other = await polymarketAdapter.place(
      ctx,
      req({ type: 'limit', price: '0.7', side: 'sell', symbol: NO.symbol, qty: '5' }),
    );
    expect(other).toMatchObject({ status: 'open', side: 'sell', symbol: NO.symbol });
    expect((await polymarketAdapter.orders(ctx)).map((o) => o.venueOrderId).sort()).toEqual(
      [resting.venueOrderId, other.venueOrderId].sort(),
    );

    marks.set(YES.symbol, '0.29');
    await sim.poke();
    expect(await polymarketAdapter.status(ctx, YES.symbol, resting.venueOrderId)).toMatchObject({
      status: 'filled',
      filledQty: '10',
    });
    const fills = await polymarketAdapter.fills(ctx, {
      sinceMs: Date.now() - 60_000,
      venueOrderId: resting.venueOrderId,
    });
    expect(fills).toEqual([expect.objectContaining({ side: 'buy', qty: '10', price: '0.3', feeUsd: '0' })]);
    marks.set(YES.symbol, '0.5');

    expect(await polymarketAdapter.cancel(ctx, NO.symbol, other.venueOrderId)).toMatchObject({
      status: 'canceled',
      filledQty: '0',
    });
    // canceling a filled order returns it as filled
    expect(await polymarketAdapter.cancel(ctx, YES.symbol, resting.venueOrderId)).toMatchObject({ status: 'filled' });
  });

  /**
   * An unsigned BUY of 10 YES shares (takerAmount 10,000,000) for `makerAmount` USDC units (6 decimals) with
   * `salt`, built by hand as the adapter would (maker = signer = the agent `a`, signature type 0).
   */
  async function handBuiltBuy(ctx: VenueContext, salt: string, makerAmount: string) {
    const a = ctx.agent as { privateKey: Hex; address: Hex };
    const o: PolymarketOrder = {
      salt,
      maker: a.address,
      signer: a.address,
      tokenId: YES.venueSymbol!,
      makerAmount,
      takerAmount: '10000000',
      side: 'BUY',
      signatureType: 0,
      timestamp: String(await nextNonce()),
      metadata: BYTES32_ZERO,
      builder: BYTES32_ZERO,
    };
    return { a, o };
  }

  it('post-only limit that would cross is refused; an off-tick price is refused by the venue', async () => {
    const { ctx } = await authorised();
    await expect(
      polymarketAdapter.place(ctx, req({ type: 'limit', timeInForce: 'Alo', price: '0.6' })),
    ).rejects.toThrow('invalid post-only order: order crosses book');
    // Send an order whose amounts encode 0.555 directly (the adapter would have rounded it).
    const { a, o } = await handBuiltBuy(ctx, '77', '5550000');
    const res = await post(ctx, o, await signOrder(a.privateKey, o, 'mainnet', false));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/breaks minimum tick size rule: 0.01/);
  });

  /** POSTs a hand-built order with correct L2 headers. */
  async function post(ctx: VenueContext, o: PolymarketOrder, signature: string, tamper?: (body: any) => void) {
    const body: any = {
      order: { ...o, salt: Number(o.salt), expiration: '0', signature },
      owner: ctx.apiCredentials!.apiKey,
      orderType: 'GTC',
      postOnly: false,
      deferExec: false,
    };
    tamper?.(body);
    const text = JSON.stringify(body);
    const headers = l2Headers(
      (ctx.agent as { address: string }).address,
      ctx.apiCredentials as any,
      String(Math.floor(Date.now() / 1000)),
      'POST',
      '/order',
      text,
    );
    return fetch(`${sim.url}/order`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: text,
    });
  }

  it('refuses a tampered order with {"error":"invalid signature"}, a replayed order as a duplicate, and a bad HMAC as unauthorized', async () => {
    const { ctx } = await authorised();
    const { a, o } = await handBuiltBuy(ctx, '12345', '2000000');
    const sig = await signOrder(a.privateKey, o, 'mainnet', false);
    const tampered = await post(ctx, o, sig, (b) => (b.order.makerAmount = '3000000'));
    expect(tampered.status).toBe(400);
    expect(await tampered.json()).toEqual({ error: 'invalid signature' });
    const first = await post(ctx, o, sig);
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({
      success: true,
      status: 'live',
      orderID: orderHash(o, 'mainnet', false),
    });
    const replay = await post(ctx, o, sig);
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { error: string }).error).toBe(
      `order ${orderHash(o, 'mainnet', false)} is invalid. Duplicated.`,
    );
    const badHmac = await fetch(`${sim.url}/data/orders`, {
      headers: {
        ...l2Headers(
          a.address,
          { ...(ctx.apiCredentials as any), secret: 'QkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkI=' },
          String(Math.floor(Date.now() / 1000)),
          'GET',
          '/data/orders',
        ),
      },
    });
    expect(badHmac.status).toBe(401);
    expect(await badHmac.json()).toEqual({ error: 'Unauthorized/Invalid api key' });
  });

  it('signature types as the exchange checks them: 0 maker = signer, 1/2 the signer’s own proxy/Safe, 3 only from a deposit wallet; V1 orders refused; another key’s credentials refused', async () => {
    const { ctx } = await authorised();
    const { a, o } = await handBuiltBuy(ctx, '555', '2000000');
    const signed = async (x: PolymarketOrder) => post(ctx, x, await signOrder(a.privateKey, x, 'mainnet', false));
    const error = async (res: Response) => ({ status: res.status, body: (await res.json()) as { error: string } });
    const other = '0x3333333333333333333333333333333333333333' as Hex;
    expect(await error(await signed({ ...o, maker: other }))).toEqual({
      status: 400,
      body: { error: 'the order maker has to be the signer for signature type 0 (EOA)' },
    });
    expect(await error(await signed({ ...o, maker: other, signatureType: 2 }))).toEqual({
      status: 400,
      body: { error: 'the order maker is not the signature type 2 wallet of the signer' },
    });
    sim.registerWallet(other, a.address, 2);
    expect((await signed({ ...o, maker: other, signatureType: 2 })).status).toBe(200);
    // Type 3 signed by the EOA itself: the signer is no deposit wallet, so no ERC-1271 `isValidSignature` accepts it.
    expect(await error(await signed({ ...o, salt: '556', signatureType: 3 }))).toEqual({
      status: 400,
      body: { error: 'invalid signature' },
    });
    // A V1 order (taker, nonce, feeRateBps; no timestamp) is no longer taken by the V2 exchange.
    const v1 = await post(ctx, o, await signOrder(a.privateKey, o, 'mainnet', false), (b) => {
      const { timestamp: _t, metadata: _m, builder: _b, ...rest } = b.order;
      b.order = { ...rest, taker: `0x${'0'.repeat(40)}`, nonce: '0', feeRateBps: '0' };
    });
    expect((await error(v1)).body.error).toMatch(/invalid order version/);

    // A second key with its own L2 credentials, and our agent's order under them: the signer is not the key's address.
    const rogueKey = generatePrivateKey();
    const h = await l1Headers(rogueKey, String(Math.floor(Date.now() / 1000)), 0n, 'mainnet');
    const creds = (await (await fetch(`${sim.url}/auth/api-key`, { method: 'POST', headers: h })).json()) as Record<
      string,
      string
    >;
    await expectRejected(
      polymarketAdapter.place({ ...ctx, apiCredentials: creds }, req({})),
      'Unauthorized/Invalid api key',
    );
  });

  it('a lost acknowledgement: findByClientOrderId finds exactly one venue order by its hash, remembered, and after a restart from the open orders and the trades', async () => {
    const { ctx, owner } = await authorised();
    const r = req({ type: 'limit', price: '0.2' });
    const found = await placeWithLostAck(polymarketAdapter, sim, ctx, owner, r);
    expect(found).toMatchObject({ clientOrderId: r.clientOrderId, status: 'open', price: '0.2' });
    forgetSignedOrders();
    // Another process: the resting order is rebuilt from GET /data/orders and recognised by its hash.
    expect(await polymarketAdapter.findByClientOrderId(ctx, r.symbol, r.clientOrderId)).toMatchObject({
      venueOrderId: found!.venueOrderId,
      clientOrderId: r.clientOrderId,
    });
    forgetSignedOrders();
    // A filled market order is no longer open: it is found through GET /data/trades and GET /data/order/<id>; its
    // FAK amounts (1.37 shares for 0.76 USDC) imply a price off the tick grid, and the limit it was signed at is found.
    const m = req({ qty: '1.37' });
    sim.dropNextAck();
    await expect(polymarketAdapter.place(ctx, m)).rejects.toThrow();
    forgetSignedOrders();
    expect(await polymarketAdapter.findByClientOrderId(ctx, m.symbol, m.clientOrderId)).toMatchObject({
      clientOrderId: m.clientOrderId,
      status: 'filled',
      filledQty: '1.37',
    });
    expect(
      await polymarketAdapter.findByClientOrderId(ctx, r.symbol, polymarketAdapter.clientOrderId('int_NEVER_SENT')),
    ).toBeNull();
    expect(sim.orderCount(owner)).toBe(2);
  });

  it('rejectNext surfaces as VenueRejected with the reason; an injected web order shows in orders()', async () => {
    const { ctx, owner } = await authorised();
    sim.rejectNext('not enough balance / allowance');
    await expectRejected(polymarketAdapter.place(ctx, req({})), 'not enough balance / allowance');
    expect(sim.orderCount(owner)).toBe(0);
    const injected = { symbol: NO.symbol, side: 'buy', qty: '3', price: '0.1' } as const;
    const { venueOrderId } = await sim.injectOrder(owner, injected);
    // The venue lists no salt: an order the platform did not sign has no client order id.
    expect(await polymarketAdapter.orders(ctx)).toEqual([
      expect.objectContaining({ venueOrderId, ...injected, status: 'open', clientOrderId: null }),
    ]);
  });

  it('a FAK market order that cannot fill is killed with the venue’s message; stops are refused before signing', async () => {
    const { ctx } = await authorised();
    marks.set(NO.symbol, '0.9');
    await expect(polymarketAdapter.place(ctx, req({ symbol: NO.symbol, markPrice: '0.5' }))).rejects.toThrow(
      /no orders found to match with FAK order/,
    );
    marks.set(NO.symbol, '0.5');
    await expect(polymarketAdapter.place(ctx, req({ type: 'stop', triggerPrice: '0.4' }))).rejects.toThrow(
      VenueRejected,
    );
  });

  it('account: the funder’s USDC (funded, less what buys cost and the taker fee) and its shares as the net of its trades', async () => {
    const { ctx, owner } = await authorised();
    sim.fund(owner, '100');
    // 10 YES at 0.5: 5 USDC, taker fee 1 % × min(0.5, 0.5) × 10 = 0.05.
    await polymarketAdapter.place(ctx, req({}));
    expect(await polymarketAdapter.account(ctx)).toEqual({
      balanceUsd: '99.95',
      unrealizedPnlUsd: '0',
      equityUsd: '99.95',
      marginUsedUsd: '5',
      marginAvailableUsd: '94.95',
      positions: [predictionHolding(YES.symbol, '10', '0.5')],
    });
  });
});

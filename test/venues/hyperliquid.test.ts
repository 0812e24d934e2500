/**
 * Hyperliquid: the official Python SDK's published signing vectors (connection id, every L1
 * signature on mainnet and testnet, the user-signed UsdSend/Withdraw, float_to_int_for_hashing),
 * the wire rules (number strings, price/size rounding, market-order protective price, cloid, status
 * table), and adapter ↔ simulator round trips (authorisation, market/limit/trigger orders, status,
 * cancel, fills, UI orders, and every refusal the simulator must make).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encode } from '@msgpack/msgpack';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { Decimal } from '../../domain/decimal.js';
import { hyperliquidAdapter as hl } from '../../venues/hyperliquid/adapter.js';
import {
  actionHash,
  floatToIntForHashing,
  parseAgentName,
  recoverL1Signer,
  signL1Action,
  signUserSignedAction,
} from '../../venues/hyperliquid/signing.js';
import {
  cloidFromIntentId,
  orderWire,
  platformStatus,
  protectivePrice,
  roundPrice,
  roundSize,
  toWire,
  validPrice,
} from '../../venues/hyperliquid/wire.js';
import {
  authoriseEvmAgent,
  emptyAccount,
  expectRejected,
  nonceSource,
  orderRequest,
  perpOrderRequest,
} from '../support/adapters.js';
import { VenueRejected, type AgentKey, type VenueContext, type VenueOrderRequest } from '../../venues/types.js';
import { startHyperliquidSimulator, type HyperliquidSimulator } from '../../simulators/hyperliquid.js';

// hyperliquid-dex/hyperliquid-python-sdk@7ee976d123b1e04295e4a1e37a424ca6a13bef88 tests/signing_test.py
const VECTOR_KEY = '0x0123456789012345678901234567890123456789012345678901234567890123' as const;

type Rsv = [string, string, number];
/** The vectors' order action: a buy of 100 at 100 on asset 1 with order type `t` (fields in wire order, then `extra`). */
const orderAction = (t: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'order',
  orders: [{ a: 1, b: true, p: '100', s: '100', r: false, t, ...extra }],
  grouping: 'na',
});
const L1_VECTORS: { t: string; action: Record<string, unknown>; vault?: string; main: Rsv; test: Rsv }[] = [
  {
    t: 'dummy',
    action: { type: 'dummy', num: 100000000000 },
    main: [
      '0x53749d5b30552aeb2fca34b530185976545bb22d0b3ce6f62e31be961a59298',
      '0x755c40ba9bf05223521753995abb2f73ab3229be8ec921f350cb447e384d8ed8',
      27,
    ],
    test: [
      '0x542af61ef1f429707e3c76c5293c80d01f74ef853e34b76efffcb57e574f9510',
      '0x17b8b32f086e8cdede991f1e2c529f5dd5297cbe8128500e00cbaf766204a613',
      28,
    ],
  },
  {
    t: 'order Gtc',
    action: orderAction({ limit: { tif: 'Gtc' } }),
    main: [
      '0xd65369825a9df5d80099e513cce430311d7d26ddf477f5b3a33d2806b100d78e',
      '0x2b54116ff64054968aa237c20ca9ff68000f977c93289157748a3162b6ea940e',
      28,
    ],
    test: [
      '0x82b2ba28e76b3d761093aaded1b1cdad4960b3af30212b343fb2e6cdfa4e3d54',
      '0x6b53878fc99d26047f4d7e8c90eb98955a109f44209163f52d8dc4278cbbd9f5',
      27,
    ],
  },
  {
    t: 'order Gtc + cloid',
    action: orderAction({ limit: { tif: 'Gtc' } }, { c: '0x00000000000000000000000000000001' }),
    main: [
      '0x41ae18e8239a56cacbc5dad94d45d0b747e5da11ad564077fcac71277a946e3',
      '0x3c61f667e747404fe7eea8f90ab0e76cc12ce60270438b2058324681a00116da',
      27,
    ],
    test: [
      '0xeba0664bed2676fc4e5a743bf89e5c7501aa6d870bdb9446e122c9466c5cd16d',
      '0x7f3e74825c9114bc59086f1eebea2928c190fdfbfde144827cb02b85bbe90988',
      28,
    ],
  },
  {
    t: 'dummy, vault',
    action: { type: 'dummy', num: 100000000000 },
    vault: '0x1719884eb866cb12b2287399b15f7db5e7d775ea',
    main: [
      '0x3c548db75e479f8012acf3000ca3a6b05606bc2ec0c29c50c515066a326239',
      '0x4d402be7396ce74fbba3795769cda45aec00dc3125a984f2a9f23177b190da2c',
      28,
    ],
    test: [
      '0xe281d2fb5c6e25ca01601f878e4d69c965bb598b88fac58e475dd1f5e56c362b',
      '0x7ddad27e9a238d045c035bc606349d075d5c5cd00a6cd1da23ab5c39d4ef0f60',
      27,
    ],
  },
  {
    t: 'trigger sl',
    action: orderAction({ trigger: { isMarket: true, triggerPx: '103', tpsl: 'sl' } }),
    main: [
      '0x98343f2b5ae8e26bb2587daad3863bc70d8792b09af1841b6fdd530a2065a3f9',
      '0x6b5bb6bb0633b710aa22b721dd9dee6d083646a5f8e581a20b545be6c1feb405',
      27,
    ],
    test: [
      '0x971c554d917c44e0e1b6cc45d8f9404f32172a9d3b3566262347d0302896a2e4',
      '0x206257b104788f80450f8e786c329daa589aa0b32ba96948201ae556d5637eac',
      28,
    ],
  },
  {
    t: 'createSubAccount',
    action: { type: 'createSubAccount', name: 'example' },
    main: [
      '0x51096fe3239421d16b671e192f574ae24ae14329099b6db28e479b86cdd6caa7',
      '0xb71f7d293af92d3772572afb8b102d167a7cef7473388286bc01f52a5c5b423',
      27,
    ],
    test: [
      '0xa699e3ed5c2b89628c746d3298b5dc1cca604694c2c855da8bb8250ec8014a5b',
      '0x53f1b8153a301c72ecc655b1c315d64e1dcea3ee58921fd7507e35818fcc1584',
      28,
    ],
  },
  {
    t: 'subAccountTransfer',
    action: {
      type: 'subAccountTransfer',
      subAccountUser: '0x1d9470d4b963f552e6f671a81619d395877bf409',
      isDeposit: true,
      usd: 10,
    },
    main: [
      '0x43592d7c6c7d816ece2e206f174be61249d651944932b13343f4d13f306ae602',
      '0x71a926cb5c9a7c01c3359ec4c4c34c16ff8107d610994d4de0e6430e5cc0f4c9',
      28,
    ],
    test: [
      '0xe26574013395ad55ee2f4e0575310f003c5bb3351b5425482e2969fa51543927',
      '0xefb08999196366871f919fd0e138b3a7f30ee33e678df7cfaf203e25f0a4278',
      28,
    ],
  },
  {
    t: 'scheduleCancel',
    action: { type: 'scheduleCancel' },
    main: [
      '0x6cdfb286702f5917e76cd9b3b8bf678fcc49aec194c02a73e6d4f16891195df9',
      '0x6557ac307fa05d25b8d61f21fb8a938e703b3d9bf575f6717ba21ec61261b2a0',
      27,
    ],
    test: [
      '0xc75bb195c3f6a4e06b7d395acc20bbb224f6d23ccff7c6a26d327304e6efaeed',
      '0x342f8ede109a29f2c0723bd5efb9e9100e3bbb493f8fb5164ee3d385908233df',
      28,
    ],
  },
  {
    t: 'scheduleCancel + time',
    action: { type: 'scheduleCancel', time: 123456789 },
    main: [
      '0x609cb20c737945d070716dcc696ba030e9976fcf5edad87afa7d877493109d55',
      '0x16c685d63b5c7a04512d73f183b3d7a00da5406ff1f8aad33f8ae2163bab758b',
      28,
    ],
    test: [
      '0x4e4f2dbd4107c69783e251b7e1057d9f2b9d11cee213441ccfa2be63516dc5bc',
      '0x706c656b23428c8ba356d68db207e11139ede1670481a9e01ae2dfcdb0e1a678',
      27,
    ],
  },
];

/** r/s compared as integers (Python prints them without leading zeros), v exactly. */
const asInts = (sig: { r: string; s: string; v: number }) => [BigInt(sig.r), BigInt(sig.s), sig.v];

describe('official vectors (hyperliquid-python-sdk tests/signing_test.py)', () => {
  it('connection id of the 1670.1 × 0.0147 IOC order at nonce 1677777606040', () => {
    const action = {
      type: 'order',
      orders: [{ a: 4, b: true, p: '1670.1', s: '0.0147', r: false, t: { limit: { tif: 'Ioc' } } }],
      grouping: 'na',
    };
    expect(actionHash(action, 1677777606040)).toBe(
      '0x0fcbeda5ae3c4950a548021552a4fea2226858c4453571bf3f24ba017eac2908',
    );
    // Key order is hashed: the same order with keys reordered is another action.
    const reordered = {
      ...action,
      orders: [{ b: true, a: 4, p: '1670.1', s: '0.0147', r: false, t: { limit: { tif: 'Ioc' } } }],
    };
    expect(actionHash(reordered, 1677777606040)).not.toBe(
      '0x0fcbeda5ae3c4950a548021552a4fea2226858c4453571bf3f24ba017eac2908',
    );
  });

  for (const v of L1_VECTORS) {
    for (const net of ['main', 'test'] as const) {
      it(`L1 ${v.t} (${net}net)`, async () => {
        const network = net === 'main' ? 'mainnet' : 'testnet';
        const sig = await signL1Action(VECTOR_KEY, v.action, 0, { network, vaultAddress: v.vault });
        expect(asInts(sig)).toEqual([BigInt(v[net][0]), BigInt(v[net][1]), v[net][2]]);
        expect(sig.r).toMatch(/^0x[0-9a-f]{64}$/);
        // The venue's side: recover the signer from the Python-printed (unpadded) r/s.
        expect(
          await recoverL1Signer(
            v.action,
            0,
            { r: v[net][0], s: v[net][1], v: v[net][2] },
            { network, vaultAddress: v.vault },
          ),
        ).toBe(privateKeyToAccount(VECTOR_KEY).address.toLowerCase());
      });
    }
  }

  const message = {
    signatureChainId: '0x66eee',
    hyperliquidChain: 'Testnet',
    destination: '0x5e9ee1089755c3435139848e47e6635505d5a13a',
    amount: '1',
    time: 1687816341423,
  };
  // [primary type, action type, r, s, v] of the SDK's expected signatures.
  it.each([
    [
      'UsdSend',
      'usdSend',
      '0x637b37dd731507cdd24f46532ca8ba6eec616952c56218baeff04144e4a77073',
      '0x11a6a24900e6e314136d2592e2f8d502cd89b7c15b198e1bee043c9589f9fad7',
      27,
    ],
    [
      'Withdraw',
      'withdraw3',
      '0x8363524c799e90ce9bc41022f7c39b4e9bdba786e5f9c72b20e43e1462c37cf9',
      '0x58b1411a775938b83e29182e8ef74975f9054c8e97ebf5ec2dc8d51bfc893881',
      28,
    ],
  ] as const)('user-signed %s (testnet, 0x66eee)', async (primaryType, type, r, s, v) => {
    const sig = await signUserSignedAction(VECTOR_KEY, `HyperliquidTransaction:${primaryType}`, { type, ...message });
    expect(asInts(sig)).toEqual([BigInt(r), BigInt(s), v]);
  });

  it.each([
    ['123123123123', 12312312312300000000n],
    ['0.00001231', 1231n],
    ['1.033', 103300000n],
  ])('float_to_int_for_hashing(%s) = %s', (x, want) => {
    expect(floatToIntForHashing(x)).toBe(want);
  });
  it('float_to_int_for_hashing(0.000012312312) is a rounding error', () => {
    expect(() => floatToIntForHashing('0.000012312312')).toThrow(/rounding/);
  });
});

describe('wire rules', () => {
  it('msgpack packs integers ≥ 2^32 as uint64 (0xcf) and keeps insertion order', () => {
    expect(Buffer.from(encode(2 ** 32)).toString('hex')).toBe('cf0000000100000000');
    expect(Buffer.from(encode({ b: 1, a: 2 })).toString('hex')).toBe('82a16201a16102');
  });

  it.each([
    ['100', '100'],
    ['2000.0', '2000'],
    ['1670.10000000', '1670.1'],
    ['0.0147', '0.0147'],
    ['-0', '0'],
    ['-0.0', '0'],
    ['0.00000001', '0.00000001'],
  ])('number string %s → %s', (input, out) => {
    expect(toWire(input)).toBe(out);
  });
  it('refuses more than 8 decimals', () => {
    expect(() => toWire('0.000000001')).toThrow(/rounding/);
  });

  it('prices: ≤ 5 significant figures and ≤ 6 − szDecimals decimals; integers always valid', () => {
    expect(validPrice('123456', 5)).toBe(true); // integer
    expect(validPrice('1234.5', 4)).toBe(true);
    expect(validPrice('1234.56', 4)).toBe(false); // 6 sig figs
    expect(validPrice('0.001234', 2)).toBe(false); // 6 decimals > 4
    expect(validPrice('0.1234', 2)).toBe(true);
    expect(roundPrice('105123.4', 5)).toBe('105120');
    expect(roundPrice('2625.04', 4)).toBe('2625');
    expect(roundPrice('157.4999', 2)).toBe('157.5');
    expect(roundSize('0.123456789', 5)).toBe('0.12345'); // rounded down, never more than asked
    expect(() => roundSize('0.000001', 5)).toThrow(/rounds to 0/);
  });

  it('market orders are IOC limits at mark ± 5 %, rounded per the price rules', () => {
    expect(protectivePrice('buy', '100000', 5)).toBe('105000');
    expect(protectivePrice('sell', '100000', 5)).toBe('95000');
    expect(protectivePrice('buy', '2501.3', 4)).toBe('2626.4'); // 2626.365 → 5 sig figs
    expect(protectivePrice('sell', '151.37', 2)).toBe('143.8'); // 143.8015
  });

  it('cloid = 0x + first 32 hex of sha256(intentId), deterministic', () => {
    const c = cloidFromIntentId('int_01JXYZ0000000000000000000');
    expect(c).toMatch(/^0x[0-9a-f]{32}$/);
    expect(c).toBe(cloidFromIntentId('int_01JXYZ0000000000000000000'));
    expect(c).not.toBe(cloidFromIntentId('int_01JXYZ0000000000000000001'));
    expect(hl.clientOrderId('abc')).toBe('0xba7816bf8f01cfea414140de5dae2223');
  });

  const base = orderRequest(
    {
      clientOrderId: '0x00000000000000000000000000000001',
      symbol: 'ETH.HL',
      qty: '1.23456',
      markPrice: '2500',
      leverage: '5',
    },
    { type: 'limit', price: '2500.5', timeInForce: 'Alo' },
  );
  it('order wire: keys a b p s r t c in order, TIF 1:1, triggers for stop / take_profit / stop_limit', () => {
    const w = orderWire(base);
    expect(JSON.stringify(w)).toBe(
      '{"a":1,"b":true,"p":"2500.5","s":"1.2345","r":false,"t":{"limit":{"tif":"Alo"}},"c":"0x00000000000000000000000000000001"}',
    );
    expect(orderWire({ ...base, type: 'market', price: null, side: 'sell' })).toMatchObject({
      b: false,
      p: '2375',
      t: { limit: { tif: 'Ioc' } },
    });
    expect(orderWire({ ...base, type: 'stop', side: 'sell', price: null, triggerPrice: '2400' }).t).toEqual({
      trigger: { isMarket: true, triggerPx: '2400', tpsl: 'sl' },
    });
    expect(orderWire({ ...base, type: 'take_profit', side: 'sell', price: null, triggerPrice: '2700' })).toMatchObject({
      p: '2565',
      t: { trigger: { isMarket: true, triggerPx: '2700', tpsl: 'tp' } },
    });
    expect(
      orderWire({
        ...base,
        type: 'stop_limit',
        side: 'sell',
        price: null,
        triggerPrice: '2400',
        stopLimitPrice: '2390',
      }),
    ).toMatchObject({ p: '2390', t: { trigger: { isMarket: false, triggerPx: '2400', tpsl: 'sl' } } });
    expect(() => orderWire({ ...base, symbol: 'BTC.PAPER' })).toThrow(/not a Hyperliquid symbol/);
  });

  it('status table: every venue status maps to one of the six of docs/api.md §3.2', () => {
    expect(platformStatus('open')).toBe('open');
    expect(platformStatus('filled')).toBe('filled');
    expect(platformStatus('triggered')).toBe('triggered');
    expect(platformStatus('marginCanceled')).toBe('canceled');
    expect(platformStatus('scheduledCancel')).toBe('canceled');
    expect(platformStatus('iocCancelRejected')).toBe('rejected');
    expect(platformStatus('someFutureCanceled')).toBe('canceled');
    expect(() => platformStatus('bogus')).toThrow(/unknown/);
  });

  it('agentName carries the expiry as "<name> valid_until <ms>"', () => {
    expect(parseAgentName('mv-1 valid_until 1790000000000')).toEqual({ name: 'mv-1', validUntil: 1790000000000 });
    expect(parseAgentName('')).toEqual({ name: '', validUntil: null });
    expect(parseAgentName('desk')).toEqual({ name: 'desk', validUntil: null });
  });
});

describe('adapter ↔ simulator', () => {
  const marks: Record<string, string> = { 'BTC.HL': '100000', 'ETH.HL': '2500', 'SOL.HL': '150' };
  let sim: HyperliquidSimulator;
  const nextNonce = nonceSource();

  const evm = (pk: `0x${string}`): AgentKey => ({
    kind: 'evm',
    privateKey: pk,
    address: privateKeyToAccount(pk).address,
  });
  const ctxOf = (
    agentKey: `0x${string}`,
    owner: string,
    network: 'mainnet' | 'testnet' = 'mainnet',
    url = () => sim.url,
  ): VenueContext => ({
    get baseUrl() {
      return url();
    },
    network,
    agent: evm(agentKey),
    owner,
    nextNonce,
    fetch,
  });

  /** A user with their own wallet who authorises a fresh agent until `expiresAt`. */
  const authorise = (
    opts: { ownerKey?: `0x${string}`; agentKey?: `0x${string}`; expiresAt?: number; name?: string } = {},
  ) => authoriseEvmAgent(hl, (agentKey, owner) => ctxOf(agentKey, owner), opts);

  const order = (o: Partial<VenueOrderRequest> = {}) => perpOrderRequest(hl, 'BTC.HL', marks['BTC.HL'], o);

  async function rawExchange(body: unknown) {
    const res = await fetch(`${sim.url}/exchange`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json().catch(() => null)) as any };
  }

  beforeAll(async () => {
    sim = await startHyperliquidSimulator({ markOf: async (s) => marks[s] ?? null });
  });
  afterAll(async () => {
    await sim.close();
  });

  it('authorisation: ApproveAgent typed data with "<name> valid_until <ms>", verified locally, registered at the venue', async () => {
    const expiresAt = Date.now() + 86_400_000;
    const { owner, agentKey, request, signature } = await authorise({ expiresAt });
    if (request.kind !== 'eip712') throw new Error('expected eip712');
    expect(request.typedData.primaryType).toBe('HyperliquidTransaction:ApproveAgent');
    expect(request.typedData.domain).toMatchObject({
      name: 'HyperliquidSignTransaction',
      version: '1',
      chainId: 0x66eee,
    });
    expect(request.typedData.message).toMatchObject({
      hyperliquidChain: 'Mainnet',
      agentName: `mv-test valid_until ${expiresAt}`,
    });
    expect(request.action).toMatchObject({ type: 'approveAgent', signatureChainId: '0x66eee' });
    expect(await hl.verifyAuthorization({ owner, request, signature })).toBe(true);
    expect(
      await hl.verifyAuthorization({ owner: privateKeyToAccount(generatePrivateKey()).address, request, signature }),
    ).toBe(false);
    const tampered = {
      ...request,
      typedData: {
        ...request.typedData,
        message: { ...request.typedData.message, agentAddress: privateKeyToAccount(generatePrivateKey()).address },
      },
    };
    expect(await hl.verifyAuthorization({ owner, request: tampered, signature })).toBe(false);
    expect(sim.agents(owner)).toEqual([
      { name: 'mv-test', address: privateKeyToAccount(agentKey).address.toLowerCase(), validUntil: expiresAt },
    ]);
  });

  it('refuses a replayed approval and an approval whose valid_until already passed', async () => {
    const { ctx, owner, ownerKey, request, signature } = await authorise();
    await expect(hl.submitAuthorization(ctx, { request, signature })).rejects.toThrow('Invalid nonce: duplicate nonce');
    const late = hl.authorizationRequest({
      owner,
      agentAddress: privateKeyToAccount(generatePrivateKey()).address,
      agentName: 'late',
      expiresAt: Date.now() - 1000,
      nonce: Date.now() + 5,
      network: 'mainnet',
    });
    const sig = await privateKeyToAccount(ownerKey).signTypedData((late as any).typedData);
    await expect(hl.submitAuthorization(ctx, { request: late, signature: sig })).rejects.toThrow(/valid_until/);
    expect(sim.agents(owner).map((a) => a.name)).toEqual(['mv-test']);
  });

  it('market buy fills at once at the mark with the 0.045 % taker fee; status and fills agree', async () => {
    const { ctx } = await authorise();
    const o = order({ qty: '0.01' });
    const placed = await hl.place(ctx, o);
    expect(placed).toMatchObject({
      status: 'filled',
      filledQty: '0.01',
      avgFillPrice: '100000',
      price: '105000',
      clientOrderId: o.clientOrderId,
    });
    const st = await hl.status(ctx, 'BTC.HL', placed.venueOrderId);
    expect(st).toMatchObject({
      status: 'filled',
      filledQty: '0.01',
      avgFillPrice: '100000',
      symbol: 'BTC.HL',
      side: 'buy',
      clientOrderId: o.clientOrderId,
    });
    const fills = await hl.fills(ctx, { sinceMs: Date.now() - 60_000 });
    expect(fills).toHaveLength(1);
    expect(fills[0]).toMatchObject({
      venueOrderId: placed.venueOrderId,
      qty: '0.01',
      price: '100000',
      side: 'buy',
      symbol: 'BTC.HL',
      feeUsd: '0.45',
      clientOrderId: o.clientOrderId,
    });
    expect(await hl.fills(ctx, { sinceMs: Date.now() + 60_000 })).toEqual([]);
    expect(await hl.fills(ctx, { sinceMs: 0, symbol: 'ETH.HL' })).toEqual([]);
  });

  it('limit buy below the mark rests, then fills at its limit as a maker (0.015 %) when the mark crosses', async () => {
    const { ctx } = await authorise();
    const placed = await hl.place(
      ctx,
      order({ symbol: 'ETH.HL', type: 'limit', price: '2400', qty: '1', markPrice: marks['ETH.HL'] }),
    );
    expect(placed).toMatchObject({ status: 'open', filledQty: '0', avgFillPrice: null, price: '2400' });
    expect(await hl.status(ctx, 'ETH.HL', placed.venueOrderId)).toMatchObject({ status: 'open', filledQty: '0' });
    marks['ETH.HL'] = '2390';
    try {
      await sim.poke();
      expect(await hl.status(ctx, 'ETH.HL', placed.venueOrderId)).toMatchObject({
        status: 'filled',
        filledQty: '1',
        avgFillPrice: '2400',
      });
      const [f] = await hl.fills(ctx, { sinceMs: 0, venueOrderId: placed.venueOrderId });
      expect(f).toMatchObject({ price: '2400', qty: '1', feeUsd: '0.36' });
    } finally {
      marks['ETH.HL'] = '2500';
    }
  });

  it('cancel a resting order → canceled; cancelling again returns the final state; a filled order stays filled', async () => {
    const { ctx } = await authorise();
    const placed = await hl.place(
      ctx,
      order({ symbol: 'SOL.HL', type: 'limit', price: '140', qty: '1', markPrice: marks['SOL.HL'] }),
    );
    const canceled = await hl.cancel(ctx, 'SOL.HL', placed.venueOrderId);
    expect(canceled).toMatchObject({ status: 'canceled', venueOrderId: placed.venueOrderId, filledQty: '0' });
    expect(await hl.cancel(ctx, 'SOL.HL', placed.venueOrderId)).toMatchObject({ status: 'canceled' });
    const filled = await hl.place(ctx, order({ symbol: 'SOL.HL', qty: '1', markPrice: marks['SOL.HL'] }));
    expect(await hl.cancel(ctx, 'SOL.HL', filled.venueOrderId)).toMatchObject({ status: 'filled' });
    await expect(hl.cancel(ctx, 'SOL.HL', '123')).rejects.toThrow(/never placed/);
  });

  it("an Alo order that would match and an unmarketable IOC are refused with the venue's words", async () => {
    const { ctx } = await authorise();
    await expect(hl.place(ctx, order({ type: 'limit', price: '101000', timeInForce: 'Alo' }))).rejects.toThrow(
      /Post only order would have immediately matched/,
    );
    await expect(hl.place(ctx, order({ type: 'limit', price: '99000', timeInForce: 'Ioc' }))).rejects.toThrow(
      /could not immediately match/,
    );
    await expect(hl.place(ctx, order({ type: 'limit', price: '100000.5', timeInForce: 'Gtc' }))).rejects.toThrow(
      /invalid price/,
    );
    await expect(hl.place(ctx, order({ qty: '0.00001' }))).rejects.toThrow(/minimum value of \$10/);
  });

  it('a stop sell rests as a trigger order and fills at the mark once the mark falls to the trigger', async () => {
    const { ctx } = await authorise();
    const placed = await hl.place(
      ctx,
      order({ type: 'stop', side: 'sell', triggerPrice: '98000', qty: '0.01', reduceOnly: true }),
    );
    expect(placed.status).toBe('open');
    expect(await hl.status(ctx, 'BTC.HL', placed.venueOrderId)).toMatchObject({ status: 'open', type: 'stop' });
    marks['BTC.HL'] = '97900';
    try {
      expect(await hl.status(ctx, 'BTC.HL', placed.venueOrderId)).toMatchObject({
        status: 'filled',
        avgFillPrice: '97900',
      });
    } finally {
      marks['BTC.HL'] = '100000';
    }
  });

  it('refuses a tampered action (the signature recovers an unknown address)', async () => {
    const { agentKey } = await authorise();
    const action = { type: 'order', orders: [orderWire(order())], grouping: 'na' };
    const n = Number(await nextNonce());
    const signature = await signL1Action(agentKey, action, n, { network: 'mainnet' });
    const tampered = { ...action, orders: [{ ...action.orders[0], s: '0.02' }] };
    const r = await rawExchange({ action: tampered, nonce: n, signature, vaultAddress: null, expiresAfter: null });
    expect(r.body.status).toBe('err');
    expect(r.body.response).toMatch(/^User or API Wallet 0x[0-9a-f]{40} does not exist\.$/);
    expect(r.body.response).not.toContain(privateKeyToAccount(agentKey).address.toLowerCase());
    // the untampered one goes through
    expect(
      (await rawExchange({ action, nonce: n, signature, vaultAddress: null, expiresAfter: null })).body.status,
    ).toBe('ok');
  });

  it('refuses an agent nobody approved, and a testnet signature on the mainnet venue', async () => {
    const { owner, agentKey } = await authorise();
    const rogue = ctxOf(generatePrivateKey(), owner);
    await expect(hl.place(rogue, order())).rejects.toThrow(VenueRejected);
    await expect(hl.place(rogue, order())).rejects.toThrow(/does not exist/);
    await expect(hl.place(ctxOf(agentKey, owner, 'testnet'), order())).rejects.toThrow(/does not exist/);
    expect(sim.orderCount(owner)).toBe(0);
  });

  it('refuses a replayed nonce and a nonce more than a day away', async () => {
    const { agentKey } = await authorise();
    const action = { type: 'order', orders: [orderWire(order())], grouping: 'na' };
    const n = Number(await nextNonce());
    const signature = await signL1Action(agentKey, action, n, { network: 'mainnet' });
    const body = { action, nonce: n, signature, vaultAddress: null, expiresAfter: null };
    expect((await rawExchange(body)).body.status).toBe('ok');
    expect((await rawExchange(body)).body).toEqual({ status: 'err', response: 'Invalid nonce: duplicate nonce' });
    const old = Date.now() - 2 * 86_400_000;
    const r = await rawExchange({
      ...body,
      nonce: old,
      signature: await signL1Action(agentKey, action, old, { network: 'mainnet' }),
    });
    expect(r.body.response).toMatch(/Invalid nonce/);
  });

  it('once 100 nonces are kept, refuses an unused nonce at or below the smallest of them', async () => {
    const { agentKey } = await authorise();
    const start = Date.now() - 1000;
    const action = { type: 'cancel', cancels: [{ a: 0, o: 1 }] };
    const send = async (n: number) =>
      (
        await rawExchange({
          action,
          nonce: n,
          signature: await signL1Action(agentKey, action, n, { network: 'mainnet' }),
          vaultAddress: null,
          expiresAfter: null,
        })
      ).body;
    for (let i = 1; i <= 100; i++) expect((await send(start + i * 2)).status).toBe('ok');
    expect(await send(start + 1)).toMatchObject({
      status: 'err',
      response: expect.stringMatching(/^Invalid nonce: nonce too low/),
    });
    expect((await send(start + 3)).status).toBe('ok'); // unused and above the smallest kept (start + 2)
  });

  it('refuses an agent whose approval expired (valid_until passed)', async () => {
    const { ctx, owner } = await authorise({ expiresAt: Date.now() + 1200 });
    expect((await hl.place(ctx, order())).status).toBe('filled');
    await new Promise((r) => setTimeout(r, 1400));
    await expect(hl.place(ctx, order())).rejects.toThrow(/does not exist/);
    expect(sim.orderCount(owner)).toBe(1);
  });

  it('a new agent under the same name replaces the old one; a new unnamed agent replaces the unnamed one', async () => {
    const first = await authorise({ name: 'desk' });
    const second = await authorise({ ownerKey: first.ownerKey, name: 'desk' });
    await expect(hl.place(first.ctx, order())).rejects.toThrow(/does not exist/);
    expect((await hl.place(second.ctx, order())).status).toBe('filled');
    const u1 = await authorise({ ownerKey: first.ownerKey, name: '' });
    const u2 = await authorise({ ownerKey: first.ownerKey, name: '' });
    await expect(hl.place(u1.ctx, order())).rejects.toThrow(/does not exist/);
    expect((await hl.place(u2.ctx, order())).status).toBe('filled');
    expect(
      sim
        .agents(first.owner)
        .map((a) => a.name)
        .sort(),
    ).toEqual(['', 'desk']);
  });

  it('a lost ack: the order exists once and findByClientOrderId finds it', async () => {
    const { ctx, owner } = await authorise();
    const o = order({ type: 'limit', price: '90000' });
    sim.dropNextAck();
    const err = await hl.place(ctx, o).catch((e) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(VenueRejected);
    const found = await hl.findByClientOrderId(ctx, 'BTC.HL', o.clientOrderId);
    expect(found).toMatchObject({ clientOrderId: o.clientOrderId, status: 'open', qty: '0.01', price: '90000' });
    expect(sim.orderCount(owner)).toBe(1);
    expect(await hl.findByClientOrderId(ctx, 'BTC.HL', hl.clientOrderId('int_never'))).toBeNull();
    expect(await hl.status(ctx, 'BTC.HL', '1')).toBeNull();
  });

  it('rejectNext surfaces as VenueRejected with the reason', async () => {
    const { ctx, owner } = await authorise();
    sim.rejectNext('Insufficient margin to place order. asset=0');
    await expectRejected(hl.place(ctx, order()), 'Insufficient margin to place order. asset=0');
    expect(sim.orderCount(owner)).toBe(0);
  });

  it("an order placed in the venue UI shows in orders(), beside the platform's own", async () => {
    const { ctx, owner } = await authorise();
    const mine = await hl.place(ctx, order());
    const { venueOrderId } = await sim.injectOrder(owner, {
      symbol: 'ETH.HL',
      side: 'sell',
      qty: '0.5',
      price: '2600',
    });
    const list = await hl.orders(ctx);
    expect(list).toHaveLength(2);
    expect(list.find((o) => o.venueOrderId === venueOrderId)).toMatchObject({
      clientOrderId: null,
      symbol: 'ETH.HL',
      side: 'sell',
      qty: '0.5',
      price: '2600',
      status: 'open',
      type: 'limit',
    });
    expect(list.find((o) => o.venueOrderId === mine.venueOrderId)).toMatchObject({
      status: 'filled',
      avgFillPrice: '100000',
    });
    // another owner sees none of them
    const other = await authorise();
    expect(await hl.orders(other.ctx)).toEqual([]);
  });

  it('fees are decimal strings of the notional', async () => {
    const { ctx } = await authorise();
    await hl.place(ctx, order({ symbol: 'SOL.HL', qty: '0.37', markPrice: marks['SOL.HL'] }));
    const [f] = await hl.fills(ctx, { sinceMs: 0 });
    expect(f.feeUsd).toBe(new Decimal('150').mul('0.37').mul('0.00045').toDecimalPlaces(6).toFixed());
  });

  it('account (clearinghouseState): the funded collateral less fees, the position at the mark, 20× cross margin', async () => {
    const { ctx, owner } = await authorise();
    sim.fund(owner, '10000');
    expect(await hl.account(ctx)).toEqual(emptyAccount('10000'));
    // 0.01 BTC at 100000: taker fee 0.045 % of 1000 = 0.45; margin 1000 / 20 = 50.
    await hl.place(ctx, order());
    marks['BTC.HL'] = '99000';
    try {
      expect(await hl.account(ctx)).toEqual({
        balanceUsd: '9999.55',
        unrealizedPnlUsd: '-10',
        equityUsd: '9989.55',
        marginUsedUsd: '49.5',
        marginAvailableUsd: '9940.05',
        positions: [
          {
            symbol: 'BTC.HL',
            qty: '0.01',
            avgEntryPrice: '100000',
            markPrice: '99000',
            unrealizedPnlUsd: '-10',
            leverage: '20',
          },
        ],
      });
      // Closing realises the loss: the fill reports it as closedPnl.
      await hl.place(ctx, order({ side: 'sell', markPrice: '99000' }));
      const closing = (await hl.fills(ctx, { sinceMs: 0 })).at(-1)!;
      expect(closing).toMatchObject({ side: 'sell', price: '99000' });
      expect(await hl.account(ctx)).toMatchObject({ balanceUsd: '9989.1045', positions: [] });
    } finally {
      marks['BTC.HL'] = '100000';
    }
  });
});

/**
 * Aster Futures v3: signing known answers (Aster publishes no signature vectors; see below), the
 * wire rules (rounding, order parameters per type, client order id, status table), and adapter ↔
 * simulator round trips (agent registration, market/limit/trigger orders, status, cancel, fills,
 * UI orders, and every refusal the simulator must make).
 *
 * Vectors: Aster's docs (asterdex/api-docs `V3(Recommended)/EN/aster-finance-futures-api-v3.md`,
 * "Example of POST /fapi/v3/order") publish a demonstration API-wallet key with its signer and user
 * addresses, the sample order parameters and a sample µs nonce, but no resulting signature. The
 * expected digests and signatures below are our own known answers for those published inputs
 * (RFC 6979 signatures are deterministic), with the digest also rebuilt by hand from the EIP-712
 * encoding rules, so a change in the signed string, the domain or the type fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { concat, encodeAbiParameters, keccak256, toHex, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { asterAdapter as aster, AsterError } from '../../venues/aster/adapter.js';
import {
  ASTER_CHAIN_ID,
  messageDigest,
  paramString,
  recoverSigner,
  registrationMsg,
  signMessage,
  signRequest,
  splitSigned,
} from '../../venues/aster/signing.js';
import {
  clientOrderIdFromIntentId,
  orderParams,
  roundPrice,
  roundQty,
  STATUS,
  toVenueFill,
  toVenueOrder,
} from '../../venues/aster/wire.js';
import {
  authoriseEvmAgent,
  emptyAccount,
  expectRejected,
  orderRequest,
  perpOrderRequest,
} from '../support/adapters.js';
import { VenueRejected, type AgentKey, type VenueContext, type VenueOrderRequest } from '../../venues/types.js';
import { startAsterSimulator, type AsterSimulator } from '../../simulators/aster.js';
import { DOC_KEY, DOC_NONCE, DOC_ORDER, DOC_SIGNER, DOC_USER } from './aster-docs.js';

/** EIP-712 digest of Message(string msg) rebuilt by hand (independent of viem's typed-data code). */
function manualDigest(msg: string, chainId: number): Hex {
  const typeHash = keccak256(
    toHex('EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)'),
  );
  const domainSeparator = keccak256(
    encodeAbiParameters(
      [{ type: 'bytes32' }, { type: 'bytes32' }, { type: 'bytes32' }, { type: 'uint256' }, { type: 'address' }],
      [
        typeHash,
        keccak256(toHex('AsterSignTransaction')),
        keccak256(toHex('1')),
        BigInt(chainId),
        '0x0000000000000000000000000000000000000000',
      ],
    ),
  );
  const structHash = keccak256(
    encodeAbiParameters(
      [{ type: 'bytes32' }, { type: 'bytes32' }],
      [keccak256(toHex('Message(string msg)')), keccak256(toHex(msg))],
    ),
  );
  return keccak256(concat(['0x1901', domainSeparator, structHash]));
}

describe('signing known answers (published demo key and order; no published signature)', () => {
  it('the docs’ demo private key is the docs’ signer address', () => {
    expect(privateKeyToAccount(DOC_KEY).address).toBe(DOC_SIGNER);
  });

  const KAT = {
    msg: `symbol=ASTERUSDT&type=LIMIT&side=BUY&timeInForce=GTC&quantity=20&price=0.5&nonce=1748310859508867&user=${DOC_USER}&signer=${DOC_SIGNER}`,
    mainnet: {
      digest: '0x214122039b686e20a15baab91d368d354cf8c88067cb8b0e96e9018d8b08a625',
      signature:
        '0x0a56c5923ebf3524475c5f631940ec4c0e41dbd300ad28198d1915d8f3ca49ce26fd1aeb8b0c3079133595da0de38322ae7e860e0c76d032c4a491d27c1430b01c',
    },
    testnet: {
      digest: '0xd0a3cddc3992449300d5b6fa97e441d66d0f950a032b0707455996c29d8477c5',
      signature:
        '0xf91e000376f360c1661cf0fbc79a816e915dce485c616bd49c5e35c6cbc5ba5042ccf75a2bffd282676dbf698087a73982bfd1491a993eeedc276f6827c94a8c1c',
    },
  };

  for (const network of ['mainnet', 'testnet'] as const) {
    it(`POST /fapi/v3/order sample: msg = params in sending order + nonce, user, signer; digest and signature (${network}, chainId ${ASTER_CHAIN_ID[network]})`, async () => {
      const r = await signRequest(DOC_KEY, DOC_ORDER, {
        nonce: DOC_NONCE,
        user: DOC_USER,
        signer: DOC_SIGNER,
        network,
      });
      expect(r.msg).toBe(KAT.msg);
      expect(messageDigest(r.msg, ASTER_CHAIN_ID[network])).toBe(KAT[network].digest);
      expect(manualDigest(r.msg, ASTER_CHAIN_ID[network])).toBe(KAT[network].digest);
      expect(r.signature).toBe(KAT[network].signature);
      expect(r.wire).toBe(`${KAT.msg}&signature=${KAT[network].signature}`);
      // The venue's side: recover from the received string.
      const parts = splitSigned(r.wire)!;
      expect(await recoverSigner(parts.msg, parts.signature, ASTER_CHAIN_ID[network])).toBe(DOC_SIGNER.toLowerCase());
      // The other network's chain id recovers someone else.
      expect(
        await recoverSigner(parts.msg, parts.signature, ASTER_CHAIN_ID[network === 'mainnet' ? 'testnet' : 'mainnet']),
      ).not.toBe(DOC_SIGNER.toLowerCase());
    });
  }

  it('a tampered string (price 0.5 → 0.6) recovers another address', async () => {
    const r = await signRequest(DOC_KEY, DOC_ORDER, {
      nonce: DOC_NONCE,
      user: DOC_USER,
      signer: DOC_SIGNER,
      network: 'mainnet',
    });
    expect(await recoverSigner(r.msg.replace('price=0.5', 'price=0.6'), r.signature, 1666)).not.toBe(
      DOC_SIGNER.toLowerCase(),
    );
  });

  it('agent registration: documented field order, chainId = signatureChainId 56, signed by the user', async () => {
    const userKey = '0x0123456789012345678901234567890123456789012345678901234567890123' as const;
    const user = privateKeyToAccount(userKey).address;
    const msg = registrationMsg({
      user,
      nonce: '1748310859508867',
      agentName: 'mv-test',
      agentAddress: DOC_SIGNER,
      expired: '1750000000000',
      signatureChainId: '56',
      canSpotTrade: 'false',
      canPerpTrade: 'true',
      canWithdraw: 'false',
    });
    expect(msg).toBe(
      `user=${user}&nonce=1748310859508867&agentName=mv-test&agentAddress=${DOC_SIGNER}&expired=1750000000000&signatureChainId=56&canSpotTrade=false&canPerpTrade=true&canWithdraw=false`,
    );
    expect(messageDigest(msg, 56)).toBe('0x5132dd413f2f7825bfe570908acf6341d89e9ea13c811d7dc53e3eb6986ed669');
    expect(manualDigest(msg, 56)).toBe('0x5132dd413f2f7825bfe570908acf6341d89e9ea13c811d7dc53e3eb6986ed669');
    expect(await signMessage(userKey, msg, 56)).toBe(
      '0xe70d196eed9dc0dc12c4d6c6782a3bc8bdcc7ce2a8923cdfbcf9d05cdceb3d18537c77a275c99ba5e5a38672c5e471b333373890304b8bec320c158fb394dc891c',
    );
  });

  it('only values the form encoder leaves unchanged are signed; nulls are dropped', () => {
    expect(
      paramString([
        ['a', '1'],
        ['b', null],
        ['c', undefined],
        ['d', 'x.y_z-0'],
      ]),
    ).toBe('a=1&d=x.y_z-0');
    expect(() => paramString([['agentName', 'my bot']])).toThrow(/URL-encoding/);
    expect(() => paramString([['id', 'a:b']])).toThrow(/URL-encoding/);
    expect(new URLSearchParams({ v: 'Az09*._-' }).toString()).toBe('v=Az09*._-');
  });

  it('signer must be the signing key’s address', async () => {
    await expect(
      signRequest(DOC_KEY, DOC_ORDER, { nonce: DOC_NONCE, user: DOC_USER, signer: DOC_USER, network: 'mainnet' }),
    ).rejects.toThrow(/signer/);
  });
});

describe('wire rules', () => {
  it('price to the tick (half-even), quantity down to the lot', () => {
    expect(roundPrice('100000.04', '0.1')).toBe('100000.0');
    expect(roundPrice('2500.456', '0.01')).toBe('2500.46');
    expect(roundPrice('2500.445', '0.01')).toBe('2500.44'); // half-even
    expect(roundQty('0.0129', 3)).toBe('0.012');
    expect(roundQty('1', 2)).toBe('1.00');
    expect(() => roundQty('0.0009', 3)).toThrow(/rounds to 0/);
  });

  it('client order id: mv- + 32 hex of sha256(intent id), ≤ 36 of the allowed characters, deterministic', () => {
    const c = clientOrderIdFromIntentId('int_01JXYZ0000000000000000000');
    expect(c).toMatch(/^mv-[0-9a-f]{32}$/);
    expect(c.length).toBeLessThanOrEqual(36);
    expect(c).toBe(aster.clientOrderId('int_01JXYZ0000000000000000000'));
    expect(c).not.toBe(clientOrderIdFromIntentId('int_01JXYZ0000000000000000001'));
    expect(clientOrderIdFromIntentId('abc')).toBe('mv-ba7816bf8f01cfea414140de5dae2223');
  });

  const base = orderRequest(
    {
      clientOrderId: 'mv-00000000000000000000000000000001',
      symbol: 'ETH.ASTER',
      qty: '1.23456',
      markPrice: '2500',
      leverage: '5',
    },
    { type: 'limit', price: '2500.456', timeInForce: 'Alo' },
  );
  const str = (o: VenueOrderRequest) => paramString(orderParams(o));
  it('order parameters per type, in sending order', () => {
    expect(str(base)).toBe(
      'symbol=ETHUSDT&side=BUY&type=LIMIT&timeInForce=GTX&quantity=1.234&price=2500.46&reduceOnly=false&newClientOrderId=mv-00000000000000000000000000000001&newOrderRespType=RESULT',
    );
    expect(str({ ...base, type: 'market', price: null, side: 'sell', reduceOnly: true })).toBe(
      'symbol=ETHUSDT&side=SELL&type=MARKET&quantity=1.234&reduceOnly=true&newClientOrderId=mv-00000000000000000000000000000001&newOrderRespType=RESULT',
    );
    expect(str({ ...base, type: 'stop', price: null, side: 'sell', triggerPrice: '2400' })).toContain(
      'type=STOP_MARKET&quantity=1.234&stopPrice=2400.00&',
    );
    expect(
      str({
        ...base,
        type: 'stop_limit',
        price: null,
        side: 'sell',
        triggerPrice: '2400',
        stopLimitPrice: '2390.001',
        timeInForce: 'Gtc',
      }),
    ).toContain('type=STOP&timeInForce=GTC&quantity=1.234&price=2390.00&stopPrice=2400.00&');
    expect(str({ ...base, type: 'take_profit', price: null, side: 'sell', triggerPrice: '2700' })).toContain(
      'type=TAKE_PROFIT_MARKET&quantity=1.234&stopPrice=2700.00&',
    );
    expect(str({ ...base, symbol: 'BTC.ASTER', qty: '0.0015', price: '100000.06', timeInForce: 'Ioc' })).toContain(
      'symbol=BTCUSDT&side=BUY&type=LIMIT&timeInForce=IOC&quantity=0.001&price=100000.1&',
    );
    expect(() => orderParams({ ...base, symbol: 'BTC.HL' })).toThrow(/not an Aster symbol/);
    expect(() => orderParams({ ...base, type: 'stop', triggerPrice: null })).toThrow(/triggerPrice/);
  });

  it('status table and order/trade mapping', () => {
    // Checked against the rule, not a copy of the table: Aster's six statuses; the two working ones
    // read open, each terminal one as its own name in lower case.
    expect(Object.keys(STATUS).sort()).toEqual([
      'CANCELED',
      'EXPIRED',
      'FILLED',
      'NEW',
      'PARTIALLY_FILLED',
      'REJECTED',
    ]);
    for (const [wire, status] of Object.entries(STATUS))
      expect(status).toBe(wire === 'NEW' || wire === 'PARTIALLY_FILLED' ? 'open' : wire.toLowerCase());
    expect(
      toVenueOrder({
        orderId: 22542179,
        clientOrderId: 'testOrder',
        symbol: 'BTCUSDT',
        side: 'BUY',
        type: 'MARKET',
        price: '0',
        origQty: '0.010',
        executedQty: '0.010',
        avgPrice: '100000.00000',
        status: 'FILLED',
        updateTime: 1566818724722,
      }),
    ).toEqual({
      venueOrderId: '22542179',
      clientOrderId: 'testOrder',
      symbol: 'BTC.ASTER',
      side: 'buy',
      type: 'market',
      qty: '0.01',
      price: null,
      status: 'filled',
      filledQty: '0.01',
      avgFillPrice: '100000',
      updatedAt: 1566818724722,
    });
    expect(
      toVenueOrder({
        orderId: 1,
        clientOrderId: '',
        symbol: 'XYZUSDT',
        side: 'SELL',
        type: 'LIMIT',
        price: '1.50',
        origQty: '2',
        executedQty: '0',
        avgPrice: '0.00000',
        status: 'CANCELED',
        updateTime: 5,
      }),
    ).toMatchObject({ symbol: 'XYZUSDT', clientOrderId: null, price: '1.5', avgFillPrice: null, status: 'canceled' });
    expect(
      toVenueFill({
        id: 698759,
        orderId: 25851813,
        symbol: 'BTCUSDT',
        side: 'SELL',
        price: '7819.01',
        qty: '0.002',
        commission: '0.00547331',
        commissionAsset: 'USDT',
        realizedPnl: '0',
        maker: false,
        time: 1569514978020,
      }),
    ).toEqual({
      venueTradeId: '698759',
      venueOrderId: '25851813',
      clientOrderId: null,
      symbol: 'BTC.ASTER',
      side: 'sell',
      qty: '0.002',
      price: '7819.01',
      feeUsd: '0.00547331',
      time: 1569514978020,
    });
  });
});

describe('adapter ↔ simulator', () => {
  const marks: Record<string, string> = { 'BTC.ASTER': '100000', 'ETH.ASTER': '2500', 'SOL.ASTER': '150' };
  let sim: AsterSimulator;
  let last = 0n;
  /** µs nonces: strictly increasing, never behind the clock. */
  const nextNonce = async () => {
    const now = BigInt(Date.now()) * 1000n;
    last = now > last ? now : last + 1n;
    return last;
  };
  const evm = (pk: `0x${string}`): AgentKey => ({
    kind: 'evm',
    privateKey: pk,
    address: privateKeyToAccount(pk).address,
  });
  const ctxOf = (agentKey: `0x${string}`, owner: string): VenueContext => ({
    get baseUrl() {
      return sim.url;
    },
    network: 'mainnet',
    agent: evm(agentKey),
    owner,
    nextNonce,
    fetch,
  });

  /** A user with their own wallet who registers a fresh agent until `expiresAt`. */
  const authorise = (opts: { expiresAt?: number; name?: string } = {}) => authoriseEvmAgent(aster, ctxOf, opts);

  const order = (o: Partial<VenueOrderRequest> = {}) => perpOrderRequest(aster, 'BTC.ASTER', marks['BTC.ASTER'], o);

  /** Sends a raw form string; the answer's status and JSON. */
  async function raw(method: 'GET' | 'POST' | 'DELETE', path: string, form: string) {
    const res =
      method === 'GET'
        ? await fetch(`${sim.url}${path}?${form}`)
        : await fetch(`${sim.url}${path}`, {
            method,
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: form,
          });
    return { status: res.status, body: (await res.json().catch(() => null)) as any };
  }

  beforeAll(async () => {
    sim = await startAsterSimulator({ markOf: async (s) => marks[s] ?? null });
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('authorisation: registerAndApproveAgent typed data signed by the owner, verified locally, recorded at the venue without withdrawal rights', async () => {
    const expiresAt = Date.now() + 86_400_000;
    const { owner, agentKey, request, signature } = await authorise({ expiresAt, name: 'mv desk #1' });
    if (request.kind !== 'eip712') throw new Error('expected eip712');
    expect(request.typedData.domain).toEqual({
      name: 'AsterSignTransaction',
      version: '1',
      chainId: 56,
      verifyingContract: '0x0000000000000000000000000000000000000000',
    });
    expect(request.typedData.primaryType).toBe('Message');
    expect(request.typedData.message.msg).toMatch(
      new RegExp(
        `^user=${owner}&nonce=\\d{16}&agentName=mv-desk--1&agentAddress=0x[0-9a-fA-F]{40}&expired=${expiresAt}&signatureChainId=56&canSpotTrade=false&canPerpTrade=true&canWithdraw=false$`,
      ),
    );
    expect(request.action).toMatchObject({
      user: owner,
      agentName: 'mv-desk--1',
      canWithdraw: 'false',
      canPerpTrade: 'true',
      signatureChainId: '56',
    });
    expect(await aster.verifyAuthorization({ owner, request, signature })).toBe(true);
    expect(
      await aster.verifyAuthorization({ owner: privateKeyToAccount(generatePrivateKey()).address, request, signature }),
    ).toBe(false);
    // An action edited after signing (say, canWithdraw) no longer verifies and is not submitted.
    const edited = { ...request, action: { ...request.action, canWithdraw: 'true' } };
    expect(await aster.verifyAuthorization({ owner, request: edited, signature })).toBe(false);
    await expect(aster.submitAuthorization(ctxOf(agentKey, owner), { request: edited, signature })).rejects.toThrow(
      /does not match/,
    );
    expect(sim.agents(owner)).toEqual([
      {
        address: privateKeyToAccount(agentKey).address.toLowerCase(),
        name: 'mv-desk--1',
        expired: expiresAt,
        canSpotTrade: false,
        canPerpTrade: true,
        canWithdraw: false,
      },
    ]);
  });

  it('registration refusals: a signature by someone else, a replayed registration, a past expiry', async () => {
    const ownerKey = generatePrivateKey();
    const owner = privateKeyToAccount(ownerKey).address;
    const agent = privateKeyToAccount(generatePrivateKey()).address;
    const request = aster.authorizationRequest({
      owner,
      agentAddress: agent,
      agentName: 'x',
      expiresAt: Date.now() + 60_000,
      nonce: Date.now(),
      network: 'mainnet',
    });
    const ctx = ctxOf(generatePrivateKey(), owner);
    const forged = await privateKeyToAccount(generatePrivateKey()).signTypedData((request as any).typedData);
    await expect(aster.submitAuthorization(ctx, { request, signature: forged })).rejects.toThrow(
      'Signature for this request is not valid.',
    );
    expect(sim.agents(owner)).toEqual([]);
    const signature = await privateKeyToAccount(ownerKey).signTypedData((request as any).typedData);
    await aster.submitAuthorization(ctx, { request, signature });
    await expect(aster.submitAuthorization(ctx, { request, signature })).rejects.toThrow('Nonce Expired');
    const past = aster.authorizationRequest({
      owner,
      agentAddress: agent,
      agentName: 'x',
      expiresAt: Date.now() - 1000,
      nonce: Date.now() + 1,
      network: 'mainnet',
    });
    await expect(
      aster.submitAuthorization(ctx, {
        request: past,
        signature: await privateKeyToAccount(ownerKey).signTypedData((past as any).typedData),
      }),
    ).rejects.toThrow(/expired/);
  });

  it('market order fills at once at the mark; status, findByClientOrderId and fills agree; taker fee 0.035 %', async () => {
    const { ctx } = await authorise();
    const o = order();
    const placed = await aster.place(ctx, o);
    expect(placed).toMatchObject({
      clientOrderId: o.clientOrderId,
      symbol: 'BTC.ASTER',
      side: 'buy',
      type: 'market',
      qty: '0.01',
      status: 'filled',
      filledQty: '0.01',
      avgFillPrice: '100000',
    });
    expect(placed.venueOrderId).toMatch(/^\d+$/);
    expect(await aster.status(ctx, 'BTC.ASTER', placed.venueOrderId)).toMatchObject({
      venueOrderId: placed.venueOrderId,
      status: 'filled',
    });
    expect(await aster.findByClientOrderId(ctx, 'BTC.ASTER', o.clientOrderId)).toMatchObject({
      venueOrderId: placed.venueOrderId,
      status: 'filled',
    });
    expect(await aster.findByClientOrderId(ctx, 'BTC.ASTER', aster.clientOrderId('never-sent'))).toBeNull();
    expect(await aster.status(ctx, 'BTC.ASTER', '12345')).toBeNull();
    const fills = await aster.fills(ctx, { sinceMs: Date.now() - 60_000, venueOrderId: placed.venueOrderId });
    expect(fills).toHaveLength(1);
    expect(fills[0]).toMatchObject({
      venueOrderId: placed.venueOrderId,
      symbol: 'BTC.ASTER',
      side: 'buy',
      qty: '0.01',
      price: '100000',
      feeUsd: '0.35',
    });
  });

  it('limit order rests, fills as maker (0.01 %) once the mark crosses; another rests and is canceled; canceling a filled order answers filled', async () => {
    const { ctx } = await authorise();
    const rest = await aster.place(
      ctx,
      order({ symbol: 'ETH.ASTER', type: 'limit', side: 'buy', price: '2400', qty: '0.5' }),
    );
    expect(rest).toMatchObject({ status: 'open', price: '2400', filledQty: '0', avgFillPrice: null });
    expect((await aster.orders(ctx)).find((x) => x.venueOrderId === rest.venueOrderId)).toMatchObject({
      status: 'open',
    });
    marks['ETH.ASTER'] = '2390';
    try {
      await sim.poke();
      expect(await aster.status(ctx, 'ETH.ASTER', rest.venueOrderId)).toMatchObject({
        status: 'filled',
        filledQty: '0.5',
        avgFillPrice: '2400',
      });
    } finally {
      marks['ETH.ASTER'] = '2500';
    }
    const [fill] = await aster.fills(ctx, {
      sinceMs: Date.now() - 60_000,
      symbol: 'ETH.ASTER',
      venueOrderId: rest.venueOrderId,
    });
    expect(fill).toMatchObject({ price: '2400', qty: '0.5', feeUsd: '0.12' });
    expect(await aster.cancel(ctx, 'ETH.ASTER', rest.venueOrderId)).toMatchObject({ status: 'filled' });

    const other = await aster.place(
      ctx,
      order({ symbol: 'SOL.ASTER', type: 'limit', side: 'sell', price: '160', qty: '1' }),
    );
    expect(other.status).toBe('open');
    expect(await aster.cancel(ctx, 'SOL.ASTER', other.venueOrderId)).toMatchObject({
      venueOrderId: other.venueOrderId,
      status: 'canceled',
      filledQty: '0',
    });
    await expect(aster.cancel(ctx, 'SOL.ASTER', '999')).rejects.toThrow('Order does not exist.');
  });

  it('marketable limit fills at the mark; IOC that cannot fill expires; GTX that would take is refused', async () => {
    const { ctx } = await authorise();
    expect(await aster.place(ctx, order({ type: 'limit', price: '101000' }))).toMatchObject({
      status: 'filled',
      avgFillPrice: '100000',
    });
    expect(await aster.place(ctx, order({ type: 'limit', price: '90000', timeInForce: 'Ioc' }))).toMatchObject({
      status: 'expired',
      filledQty: '0',
    });
    await expect(aster.place(ctx, order({ type: 'limit', price: '101000', timeInForce: 'Alo' }))).rejects.toThrow(
      /Post Only order will be rejected/,
    );
  });

  it('stop-market and take-profit rest until the mark reaches the trigger; a stop already reached is refused', async () => {
    const { ctx } = await authorise();
    const stop = await aster.place(ctx, order({ type: 'stop', side: 'sell', triggerPrice: '95000' }));
    const tp = await aster.place(ctx, order({ type: 'take_profit', side: 'sell', triggerPrice: '105000' }));
    const stopLimit = await aster.place(
      ctx,
      order({ type: 'stop_limit', side: 'buy', triggerPrice: '104000', stopLimitPrice: '104500' }),
    );
    expect([stop.status, tp.status, stopLimit.status]).toEqual(['open', 'open', 'open']);
    expect(stop.type).toBe('stop');
    marks['BTC.ASTER'] = '94000';
    try {
      expect(await aster.status(ctx, 'BTC.ASTER', stop.venueOrderId)).toMatchObject({
        status: 'filled',
        avgFillPrice: '94000',
      });
      expect(await aster.status(ctx, 'BTC.ASTER', tp.venueOrderId)).toMatchObject({ status: 'open' });
    } finally {
      marks['BTC.ASTER'] = '100000';
    }
    await expect(aster.place(ctx, order({ type: 'stop', side: 'sell', triggerPrice: '100500' }))).rejects.toThrow(
      'Order would immediately trigger.',
    );
  });

  it('venue refusals are VenueRejected with Aster’s msg: min notional, unknown symbol, rejectNext', async () => {
    const { ctx, owner } = await authorise();
    await expect(aster.place(ctx, order({ symbol: 'SOL.ASTER', qty: '0.01' }))).rejects.toThrow(
      "Order's notional must be no smaller than 5.0 (unless you choose reduce only)",
    );
    sim.rejectNext('insufficient margin for this order');
    const before = sim.orderCount(owner);
    await expectRejected(aster.place(ctx, order()), 'insufficient margin for this order');
    expect(sim.orderCount(owner)).toBe(before);
    expect(await aster.place(ctx, order())).toMatchObject({ status: 'filled' }); // only the next one
    const signed = await signRequest(
      ctx.agent.kind === 'evm' ? ctx.agent.privateKey : '0x',
      [
        ['symbol', 'DOGEUSDT'],
        ['side', 'BUY'],
        ['type', 'MARKET'],
        ['quantity', '1'],
      ],
      { nonce: await nextNonce(), user: owner, signer: (ctx.agent as any).address, network: 'mainnet' },
    );
    expect(await raw('POST', '/fapi/v3/order', signed.wire)).toMatchObject({
      status: 400,
      body: { code: -1121, msg: 'Invalid symbol.' },
    });
  });

  describe('signature, agent and nonce checks', () => {
    it('a tampered parameter is -1022 and places nothing', async () => {
      const { ctx, owner, agentKey } = await authorise();
      const signed = await signRequest(agentKey, orderParams(order()), {
        nonce: await nextNonce(),
        user: owner,
        signer: privateKeyToAccount(agentKey).address,
        network: 'mainnet',
      });
      const tampered = signed.wire.replace('quantity=0.010', 'quantity=0.020');
      expect(tampered).not.toBe(signed.wire);
      expect(await raw('POST', '/fapi/v3/order', tampered)).toEqual({
        status: 400,
        body: { code: -1022, msg: 'Signature for this request is not valid.' },
      });
      expect(sim.orderCount(owner)).toBe(0);
      // The untampered request goes through.
      expect((await raw('POST', '/fapi/v3/order', signed.wire)).body).toMatchObject({
        status: 'FILLED',
        origQty: '0.010',
      });
      expect(ctx.owner).toBe(owner);
    });

    it('a testnet signature is refused by the mainnet venue', async () => {
      const { owner, agentKey } = await authorise();
      const signed = await signRequest(agentKey, orderParams(order()), {
        nonce: await nextNonce(),
        user: owner,
        signer: privateKeyToAccount(agentKey).address,
        network: 'testnet',
      });
      expect((await raw('POST', '/fapi/v3/order', signed.wire)).body).toEqual({
        code: -1022,
        msg: 'Signature for this request is not valid.',
      });
    });

    it('an agent this user never approved (or approved by another user) is refused', async () => {
      const a = await authorise();
      const stranger = generatePrivateKey();
      await expect(aster.place(ctxOf(stranger, a.owner), order())).rejects.toThrow(
        'Invalid API-key, IP, or permissions for action.',
      );
      const b = await authorise();
      // b's agent signing for a's account.
      const err = await aster.place(ctxOf(b.agentKey, a.owner), order()).catch((e) => e);
      expect(err).toBeInstanceOf(AsterError);
      expect(err.code).toBe(-2015);
      expect(sim.orderCount(a.owner)).toBe(0);
    });

    it('an expired authorisation is refused', async () => {
      const { ctx, owner, agentKey } = await authorise();
      expect(await aster.place(ctx, order())).toMatchObject({ status: 'filled' });
      sim.expireAgent(owner, privateKeyToAccount(agentKey).address);
      await expect(aster.place(ctx, order())).rejects.toThrow('Invalid API-key, IP, or permissions for action.');
      await expect(aster.orders(ctx)).rejects.toThrow(/permissions/);
    });

    it('a replayed nonce and a stale nonce are -4225 Nonce Expired', async () => {
      const { owner, agentKey } = await authorise();
      const signer = privateKeyToAccount(agentKey).address;
      const signed = await signRequest(agentKey, orderParams(order()), {
        nonce: await nextNonce(),
        user: owner,
        signer,
        network: 'mainnet',
      });
      expect((await raw('POST', '/fapi/v3/order', signed.wire)).body).toMatchObject({ status: 'FILLED' });
      expect(await raw('POST', '/fapi/v3/order', signed.wire)).toEqual({
        status: 400,
        body: { code: -4225, msg: 'Nonce Expired' },
      });
      const stale = await signRequest(agentKey, orderParams(order()), {
        nonce: BigInt(Date.now() - 11_000) * 1000n,
        user: owner,
        signer,
        network: 'mainnet',
      });
      expect((await raw('POST', '/fapi/v3/order', stale.wire)).body).toEqual({ code: -4225, msg: 'Nonce Expired' });
      const future = await signRequest(agentKey, orderParams(order()), {
        nonce: BigInt(Date.now() + 11_000) * 1000n,
        user: owner,
        signer,
        network: 'mainnet',
      });
      expect((await raw('POST', '/fapi/v3/order', future.wire)).body).toEqual({ code: -4225, msg: 'Nonce Expired' });
      expect(sim.orderCount(owner)).toBe(1);
    });

    it('GET requests are signed in the query string and verified there', async () => {
      const { owner, agentKey } = await authorise();
      const signed = await signRequest(agentKey, [['symbol', 'BTCUSDT']], {
        nonce: await nextNonce(),
        user: owner,
        signer: privateKeyToAccount(agentKey).address,
        network: 'mainnet',
      });
      expect(await raw('GET', '/fapi/v3/allOrders', signed.wire)).toEqual({ status: 200, body: [] });
      const other = await signRequest(agentKey, [['symbol', 'BTCUSDT']], {
        nonce: await nextNonce(),
        user: owner,
        signer: privateKeyToAccount(agentKey).address,
        network: 'mainnet',
      });
      expect((await raw('GET', '/fapi/v3/allOrders', other.wire.replace('BTCUSDT', 'ETHUSDT'))).body).toEqual({
        code: -1022,
        msg: 'Signature for this request is not valid.',
      });
    });
  });

  it('a lost ack: the order exists once, and findByClientOrderId finds it', async () => {
    const { ctx, owner } = await authorise();
    const o = order();
    sim.dropNextAck();
    await expect(aster.place(ctx, o)).rejects.not.toBeInstanceOf(VenueRejected);
    expect(sim.orderCount(owner)).toBe(1);
    const found = await aster.findByClientOrderId(ctx, 'BTC.ASTER', o.clientOrderId);
    expect(found).toMatchObject({ clientOrderId: o.clientOrderId, status: 'filled', filledQty: '0.01' });
    expect(sim.orderCount(owner)).toBe(1);
  });

  it('an order placed in Aster’s web interface shows in orders(); fills of all symbols oldest first', async () => {
    const { ctx, owner } = await authorise();
    const mine = await aster.place(ctx, order({ symbol: 'ETH.ASTER', qty: '0.01' }));
    const injected = await sim.injectOrder(owner, { symbol: 'SOL.ASTER', side: 'buy', qty: '1', price: '140' });
    const list = await aster.orders(ctx);
    expect(list.map((x) => x.venueOrderId).sort()).toEqual([mine.venueOrderId, injected.venueOrderId].sort());
    expect(list.find((x) => x.venueOrderId === injected.venueOrderId)).toMatchObject({
      symbol: 'SOL.ASTER',
      side: 'buy',
      type: 'limit',
      qty: '1',
      price: '140',
      status: 'open',
    });
    expect(list.find((x) => x.venueOrderId === injected.venueOrderId)!.clientOrderId).toMatch(/^web_/);
    await aster.place(ctx, order({ symbol: 'BTC.ASTER' }));
    const fills = await aster.fills(ctx, { sinceMs: Date.now() - 60_000 });
    expect(fills.map((f) => f.symbol).sort()).toEqual(['BTC.ASTER', 'ETH.ASTER']);
    expect(fills[0].time).toBeLessThanOrEqual(fills[1].time);
    // userTrades rejects a span over 7 days, which the adapter never sends.
    const signed = await signRequest(
      (ctx.agent as any).privateKey,
      [
        ['symbol', 'BTCUSDT'],
        ['startTime', '0'],
        ['endTime', String(8 * 86_400_000)],
      ],
      { nonce: await nextNonce(), user: owner, signer: (ctx.agent as any).address, network: 'mainnet' },
    );
    expect((await raw('GET', '/fapi/v3/userTrades', signed.wire)).body).toMatchObject({ code: -1127 });
    expect(
      (await aster.fills(ctx, { sinceMs: Date.now() - 20 * 86_400_000, symbol: 'ETH.ASTER' })).map(
        (f) => f.venueOrderId,
      ),
    ).toEqual([mine.venueOrderId]);
  });

  it('account: the owner’s wallet balance (funded, less fees, plus realised PnL) and open positions at the mark', async () => {
    const { ctx, owner } = await authorise();
    sim.fund(owner, '10000');
    expect(await aster.account(ctx)).toEqual(emptyAccount('10000'));
    // 0.01 BTC at 100000: taker fee 0.035 % of 1000 = 0.35; cross 20×: 50 of margin.
    await aster.place(ctx, order());
    marks['BTC.ASTER'] = '101000';
    try {
      expect(await aster.account(ctx)).toEqual({
        balanceUsd: '9999.65',
        unrealizedPnlUsd: '10',
        equityUsd: '10009.65',
        marginUsedUsd: '50.5',
        marginAvailableUsd: '9959.15',
        positions: [
          {
            symbol: 'BTC.ASTER',
            qty: '0.01',
            avgEntryPrice: '100000',
            markPrice: '101000',
            unrealizedPnlUsd: '10',
            leverage: '20',
          },
        ],
      });
      // Closing at 101000 realises the 10 and pays 0.3535 of fee.
      await aster.place(ctx, order({ side: 'sell', markPrice: '101000' }));
      expect(await aster.account(ctx)).toMatchObject({
        balanceUsd: '10009.2965',
        unrealizedPnlUsd: '0',
        positions: [],
      });
    } finally {
      marks['BTC.ASTER'] = '100000';
    }
  });
});

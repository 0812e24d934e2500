/**
 * Kalshi Trade API v2: the documented signing vectors (message format from Kalshi's quick start;
 * RSA-PSS parameters checked by verifying with a fixed 32-byte salt and by OpenSSL's own CLI both
 * ways), wire rules (fixed-point YES prices and counts, bid/ask direction, protective price, fee
 * formula, client order id, error envelope), the symbol table against the recording, and adapter ↔
 * simulator round trips on the current routes (fixed-point fields only, netted positions) with every
 * refusal the simulator must make. Kalshi's own client against the simulator: kalshi-conformance.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { constants, createPrivateKey, createPublicKey, randomUUID, verify } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KALSHI_SOURCE_MARKETS, KALSHI_SYMBOLS } from '../../domain/market/venues/kalshi.js';
import { findByVenueSymbol } from '../../domain/market/symbols.js';
import { loadPolymarketMarkets } from '../../infra/recorded-polymarket.js';
import { generateKalshiAgentKey, kalshiAdapter } from '../../venues/kalshi/adapter.js';
import {
  KALSHI_KEY_ID_RE,
  kalshiAuthHeaders,
  publicKeyPemOf,
  signPss,
  signedPath,
  signingMessage,
  verifyKalshiSignature,
} from '../../venues/kalshi/signing.js';
import {
  BOOK_SIDE,
  clientOrderIdOf,
  errorReason,
  platformStatus,
  protectivePrice,
  takerFee,
  toCount,
  toYesPrice,
} from '../../venues/kalshi/wire.js';
import { VenueRejected, type VenueContext, type VenueOrderRequest } from '../../venues/types.js';
import { startKalshiSimulator, type KalshiSimulator } from '../../simulators/kalshi.js';
import { expectRejected, nonceSource, orderEcho, orderRequest, placeWithLostAck } from '../support/adapters.js';
import { evenMarks, injectedOpenOrder, predictionHolding } from '../support/prediction-venues.js';

/** Verifies with salt length exactly 32 (what RSA_PSS_SALTLEN_DIGEST means for SHA-256), not AUTO. */
const verifySalt = (publicKeyPem: string, message: string, sigB64: string, saltLength: number) =>
  verify(
    'sha256',
    Buffer.from(message),
    { key: createPublicKey(publicKeyPem), padding: constants.RSA_PKCS1_PSS_PADDING, saltLength },
    Buffer.from(sigB64, 'base64'),
  );

const hasOpenssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
})();

describe('official vectors and signing', () => {
  const key = generateKalshiAgentKey();

  it('message = timestamp + METHOD + path, path with /trade-api/v2 and without the query (Kalshi quick start examples)', () => {
    // docs.kalshi.com/getting_started/quick_start_authenticated_requests
    expect(signingMessage('1703123456789', 'GET', '/trade-api/v2/portfolio/balance')).toBe(
      '1703123456789GET/trade-api/v2/portfolio/balance',
    );
    // "For /portfolio/orders?limit=5, sign only /trade-api/v2/portfolio/orders"
    expect(signingMessage('1703123456789', 'GET', '/trade-api/v2/portfolio/orders?limit=5')).toBe(
      '1703123456789GET/trade-api/v2/portfolio/orders',
    );
    // The WebSocket handshake signs GET/trade-api/ws/v2 (docs/venues.md §4.1).
    expect(signingMessage(1703123456789, 'get', 'wss://external-api-ws.kalshi.com/trade-api/ws/v2')).toBe(
      '1703123456789GET/trade-api/ws/v2',
    );
    // From a full request URL built on the production base URL.
    expect(signedPath('https://external-api.kalshi.com/trade-api/v2/portfolio/orders/abc?cursor=x&limit=200')).toBe(
      '/trade-api/v2/portfolio/orders/abc',
    );
    expect(
      signingMessage('1', 'DELETE', 'https://external-api.demo.kalshi.co/trade-api/v2/portfolio/orders/ord-1'),
    ).toBe('1DELETE/trade-api/v2/portfolio/orders/ord-1');
  });

  it('RSA-PSS-SHA256 with MGF1-SHA256 and a 32-byte salt: verifies with salt 32, not with another salt length; randomized; 256 bytes for RSA-2048', () => {
    const msg = '1703123456789GET/trade-api/v2/portfolio/balance';
    const a = signPss(key.privateKeyPem, msg);
    const b = signPss(key.privateKeyPem, msg);
    expect(a).not.toBe(b);
    expect(Buffer.from(a, 'base64').length).toBe(256);
    expect(verifySalt(key.publicKeyPem, msg, a, 32)).toBe(true);
    expect(verifySalt(key.publicKeyPem, msg, a, 20)).toBe(false);
    expect(verifySalt(key.publicKeyPem, msg, a, 64)).toBe(false);
    expect(verifyKalshiSignature(key.publicKeyPem, msg, a)).toBe(true);
    expect(verifyKalshiSignature(key.publicKeyPem, msg.replace('GET', 'PUT'), a)).toBe(false);
    expect(verifyKalshiSignature(generateKalshiAgentKey().publicKeyPem, msg, a)).toBe(false);
    expect(verifyKalshiSignature(key.publicKeyPem, msg, 'not base64!')).toBe(false);
  });

  it.skipIf(!hasOpenssl)(
    'interoperates with OpenSSL’s CLI both ways (pss, sha256 MGF1, saltlen 32), as Kalshi’s Python sample configures it',
    () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'kalshi-'));
      try {
        const msg = '1703123456789POST/trade-api/v2/portfolio/orders';
        writeFileSync(path.join(dir, 'msg'), msg);
        writeFileSync(path.join(dir, 'pub.pem'), key.publicKeyPem);
        writeFileSync(path.join(dir, 'key.pem'), key.privateKeyPem);
        const pss = [
          '-sigopt',
          'rsa_padding_mode:pss',
          '-sigopt',
          'rsa_pss_saltlen:32',
          '-sigopt',
          'rsa_mgf1_md:sha256',
        ];
        /** `openssl dgst -sha256` with the PSS options, then `args`, over the message file; its output. */
        const dgst = (...args: string[]) =>
          execFileSync('openssl', ['dgst', '-sha256', ...pss, ...args, path.join(dir, 'msg')]).toString();
        // ours → OpenSSL verifies
        writeFileSync(path.join(dir, 'ours.sig'), Buffer.from(signPss(key.privateKeyPem, msg), 'base64'));
        expect(dgst('-verify', path.join(dir, 'pub.pem'), '-signature', path.join(dir, 'ours.sig'))).toMatch(
          /Verified OK/,
        );
        // OpenSSL signs → ours verifies (and a tampered message does not)
        dgst('-sign', path.join(dir, 'key.pem'), '-out', path.join(dir, 'theirs.sig'));
        const theirs = readFileSync(path.join(dir, 'theirs.sig')).toString('base64');
        expect(verifyKalshiSignature(key.publicKeyPem, msg, theirs)).toBe(true);
        expect(verifyKalshiSignature(key.publicKeyPem, `${msg}?limit=5`, theirs)).toBe(false);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it('each agent key signs as itself, however the keys are interleaved (signing.ts keeps each parsed key)', () => {
    const msg = '1703123456789POST/trade-api/v2/portfolio/orders';
    const keys = [key, generateKalshiAgentKey(), generateKalshiAgentKey()];
    for (const signer of [0, 1, 2, 1, 0, 2, 0].map((i) => keys[i])) {
      const sig = signPss(signer.privateKeyPem, msg);
      expect(keys.map((k) => verifyKalshiSignature(k.publicKeyPem, msg, sig))).toEqual(keys.map((k) => k === signer));
    }
  });

  it('generateKalshiAgentKey: RSA-2048, PKCS#8 private and SPKI public PEM of the same key', () => {
    expect(key.privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(key.publicKeyPem).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    expect(createPrivateKey(key.privateKeyPem).asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(publicKeyPemOf(key.privateKeyPem)).toBe(key.publicKeyPem);
  });

  it('auth headers: key id, ms timestamp, and a signature over the URL path without query', () => {
    const h = kalshiAuthHeaders(
      'a952bcbe-ec3b-4b5b-b8f9-11dae589608c',
      key.privateKeyPem,
      'GET',
      'https://external-api.kalshi.com/trade-api/v2/portfolio/fills?min_ts=1&limit=200',
      1703123456789,
    );
    expect(h['KALSHI-ACCESS-KEY']).toBe('a952bcbe-ec3b-4b5b-b8f9-11dae589608c');
    expect(h['KALSHI-ACCESS-TIMESTAMP']).toBe('1703123456789');
    expect(
      verifySalt(key.publicKeyPem, '1703123456789GET/trade-api/v2/portfolio/fills', h['KALSHI-ACCESS-SIGNATURE'], 32),
    ).toBe(true);
    expect(KALSHI_KEY_ID_RE.test('a952bcbe-ec3b-4b5b-b8f9-11dae589608c')).toBe(true);
  });
});

describe('wire rules', () => {
  it('prices go out as the YES price in fixed-point dollars on the cent grid; counts as fixed-point whole contracts; market orders protect at mark ± 5 cents', () => {
    expect(toYesPrice('yes', '0.56')).toBe('0.5600');
    expect(toYesPrice('no', '0.17')).toBe('0.8300'); // a NO price p is the YES price 1 − p
    expect(toYesPrice('yes', '0.01')).toBe('0.0100');
    for (const bad of ['0.555', '0', '1', '0.995']) expect(() => toYesPrice('yes', bad)).toThrow(VenueRejected);
    expect(toCount('10')).toBe('10.00');
    expect(() => toCount('1.5')).toThrow(/count must be a whole number of contracts/);
    expect(() => toCount('0')).toThrow(VenueRejected);
    expect(protectivePrice('buy', '0.115')).toBe('0.17'); // 0.115 + 0.05 = 0.165 → 0.17
    expect(protectivePrice('sell', '0.115')).toBe('0.06'); // 0.115 − 0.05 = 0.065 → 0.06
    expect(protectivePrice('buy', '0.97')).toBe('0.99');
    expect(protectivePrice('sell', '0.03')).toBe('0.01');
    // Kalshi's single YES book: buy YES / sell NO bid, sell YES / buy NO ask.
    expect(BOOK_SIDE).toEqual({ 'yes:buy': 'bid', 'no:sell': 'bid', 'yes:sell': 'ask', 'no:buy': 'ask' });
  });

  it('taker fee = ⌈0.07 × C × P × (1 − P)⌉ to the cent (Kalshi fee schedule: 100 contracts at 50¢ pay $1.75)', () => {
    expect(takerFee('100', '0.5').toFixed()).toBe('1.75');
    expect(takerFee('10', '0.5').toFixed()).toBe('0.18'); // 0.175 → 0.18
    expect(takerFee('1', '0.01').toFixed()).toBe('0.01'); // 0.000693 → 0.01
    expect(takerFee('10', '0.9').toFixed()).toBe(takerFee('10', '0.1').toFixed()); // symmetric in YES/NO
    expect(takerFee('10', '0.9').toFixed()).toBe('0.07'); // 0.063 → 0.07
  });

  it('client order id: the intent id when Kalshi accepts it, else a deterministic UUID', () => {
    expect(clientOrderIdOf('int_01JXYZABCDEFGHJKMNPQRSTVWX')).toBe('int_01JXYZABCDEFGHJKMNPQRSTVWX');
    const odd = clientOrderIdOf('int with spaces and ünïcode');
    expect(odd).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(clientOrderIdOf('int with spaces and ünïcode')).toBe(odd);
    expect(clientOrderIdOf('x'.repeat(65))).not.toBe('x'.repeat(65));
  });

  it('error envelope: wrapped and bare, details appended; status table', () => {
    expect(
      errorReason(
        { error: { code: 'authentication_error', message: 'authentication_error', details: 'NOT_FOUND' } },
        'HTTP 401',
      ),
    ).toBe('authentication_error: NOT_FOUND');
    expect(
      errorReason(
        { error: { code: 'order_already_exists', message: 'order already exists', service: 'exchange' } },
        'x',
      ),
    ).toBe('order already exists');
    expect(
      errorReason({ code: 'market_closed', message: 'market closed', details: '', service: 'exchange' }, 'x'),
    ).toBe('market closed');
    expect(errorReason({ error: 'plain text' }, 'x')).toBe('plain text');
    expect(errorReason(null, 'HTTP 400')).toBe('HTTP 400');
    expect(['resting', 'executed', 'canceled'].map(platformStatus)).toEqual(['open', 'filled', 'canceled']);
    expect(() => platformStatus('exploded')).toThrow(/unknown Kalshi order status/);
  });
});

describe('symbol table', () => {
  it('every row is one side of a real Kalshi market whose sourceCoin is the matching recorded Polymarket outcome token', async () => {
    const markets = await loadPolymarketMarkets();
    expect(KALSHI_SYMBOLS.length).toBe(4);
    for (const spec of KALSHI_SYMBOLS) {
      const m = spec.venueSymbol!.match(/^(.+):(yes|no)$/)!;
      expect(m, spec.symbol).not.toBeNull();
      expect(spec.symbol).toBe(`${m[1]}-${m[2].toUpperCase()}.KX`);
      expect(spec).toMatchObject({
        base: m[1],
        venue: 'kalshi',
        quote: 'USD',
        assetClass: 'prediction',
        tickSize: '0.01',
        szDecimals: 0,
        maxLeverage: 1,
      });
      const market = markets.find((x) => x.marketId === KALSHI_SOURCE_MARKETS[m[1]]);
      expect(market, spec.symbol).toBeDefined();
      const outcome = market!.outcomes.find((o) => o.tokenId === spec.sourceCoin);
      expect(outcome, `${spec.symbol} token in the recording`).toBeDefined();
      expect(outcome!.outcome.toLowerCase()).toBe(m[2]);
      expect(outcome!.history.length).toBeGreaterThan(50);
      expect(findByVenueSymbol('kalshi', spec.venueSymbol!)?.symbol).toBe(spec.symbol);
    }
  });
});

describe('adapter ↔ simulator', () => {
  const YES = KALSHI_SYMBOLS[0]; // PRES-2024-DJT-YES.KX
  const NO = KALSHI_SYMBOLS[1]; // PRES-2024-DJT-NO.KX
  const marks = evenMarks(YES, NO);
  let sim: KalshiSimulator;
  const nextNonce = nonceSource();

  beforeAll(async () => {
    sim = await startKalshiSimulator({ markOf: async (s) => marks.get(s) ?? null });
  });
  afterAll(async () => sim?.close());

  /** A fresh member whose platform-generated key is registered on the "web UI" and proven with submitAuthorization. */
  async function authorised(opts: { expiresAt?: number; scopes?: ('read' | 'write')[] } = {}) {
    const member = `member-${randomUUID().slice(0, 8)}`;
    const key = generateKalshiAgentKey();
    const request = kalshiAdapter.authorizationRequest({
      owner: member,
      agentAddress: 'pending',
      agentPublicKeyPem: key.publicKeyPem,
      agentName: 'bot',
      expiresAt: Date.now() + 3_600_000,
      nonce: Date.now(),
      network: 'mainnet',
    });
    expect(request).toEqual({ kind: 'rsa_public_key', publicKeyPem: key.publicKeyPem });
    const keyId = sim.registerKey(member, key.publicKeyPem, opts);
    const ctx: VenueContext = {
      baseUrl: sim.url,
      network: 'mainnet',
      agent: { kind: 'rsa', keyId, privateKeyPem: key.privateKeyPem },
      owner: member,
      nextNonce,
      fetch,
    };
    return { ctx, member, key, keyId, request };
  }

  let seq = 0;
  const req = (o: Partial<VenueOrderRequest>): VenueOrderRequest =>
    orderRequest(
      {
        clientOrderId: kalshiAdapter.clientOrderId(`int_TEST${Date.now()}${++seq}`),
        symbol: YES.symbol,
        qty: '10',
        markPrice: marks.get(o.symbol ?? YES.symbol)!,
        leverage: '1',
      },
      o,
    );

  /** A raw signed request; `sign` picks the path/timestamp that goes into the signature. */
  async function raw(
    ctx: VenueContext,
    method: string,
    pathAndQuery: string,
    o: { body?: unknown; ts?: number; signed?: string; headers?: Record<string, string> } = {},
  ) {
    const a = ctx.agent as { keyId: string; privateKeyPem: string };
    const url = `${sim.url}${pathAndQuery}`;
    const ts = String(o.ts ?? Date.now());
    const message = o.signed ?? signingMessage(ts, method, url);
    const headers = o.headers ?? {
      'KALSHI-ACCESS-KEY': a.keyId,
      'KALSHI-ACCESS-TIMESTAMP': ts,
      'KALSHI-ACCESS-SIGNATURE': signPss(a.privateKeyPem, message),
    };
    const res = await fetch(url, {
      method,
      headers: { ...headers, 'content-type': 'application/json' },
      body: o.body === undefined ? undefined : JSON.stringify(o.body),
    });
    return { status: res.status, body: (await res.json()) as any, headers };
  }

  it('authorisation: the key id of the registered public key is proven with a signed balance call; a stranger’s or malformed key id is refused', async () => {
    const a = await authorised();
    expect(await kalshiAdapter.verifyAuthorization({ owner: a.member, request: a.request, signature: a.keyId })).toBe(
      true,
    );
    expect(await kalshiAdapter.verifyAuthorization({ owner: a.member, request: a.request, signature: 'my key' })).toBe(
      false,
    );
    expect(await kalshiAdapter.submitAuthorization(a.ctx, { request: a.request, signature: a.keyId })).toEqual({
      keyId: a.keyId,
    });
    // A key id Kalshi never issued.
    await expect(
      kalshiAdapter.submitAuthorization(a.ctx, { request: a.request, signature: randomUUID() }),
    ).rejects.toThrow('authentication_error: NOT_FOUND');
    // A real key id, but registered with someone else's public key: our signature does not verify.
    const otherId = sim.registerKey('member-other', generateKalshiAgentKey().publicKeyPem);
    await expectRejected(
      kalshiAdapter.submitAuthorization(a.ctx, { request: a.request, signature: otherId }),
      'authentication_error: INVALID_SIGNATURE',
    );
    await expect(
      kalshiAdapter.submitAuthorization(a.ctx, { request: a.request, signature: 'not-a-key-id' }),
    ).rejects.toThrow(VenueRejected);
  });

  it('market buy of YES fills at the ask with Kalshi’s taker fee; a NO market buy goes out as an ask at the YES price; status, fills and orders agree', async () => {
    const { ctx } = await authorised();
    const r = req({});
    const placed = await kalshiAdapter.place(ctx, r);
    // r: YES, buy 10; protective limit 55¢; fills at the 50¢ ask
    expect(placed).toMatchObject({
      ...orderEcho(r),
      price: '0.55',
      status: 'filled',
      filledQty: '10',
      avgFillPrice: '0.5',
    });
    expect(placed.venueOrderId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await kalshiAdapter.status(ctx, YES.symbol, placed.venueOrderId)).toMatchObject({ status: 'filled' });
    expect(await kalshiAdapter.fills(ctx, { sinceMs: Date.now() - 60_000 })).toEqual([
      expect.objectContaining({
        venueOrderId: placed.venueOrderId,
        ...orderEcho(r),
        clientOrderId: null, // a Kalshi fill names its order, not the client order id
        price: '0.5',
        feeUsd: '0.18',
      }),
    ]);
    expect(await kalshiAdapter.fills(ctx, { sinceMs: Date.now() + 120_000 })).toEqual([]);

    marks.set(NO.symbol, '0.113');
    const no = await kalshiAdapter.place(ctx, req({ symbol: NO.symbol, qty: '3', markPrice: '0.113' }));
    expect(no).toMatchObject({
      symbol: NO.symbol,
      price: '0.17',
      status: 'filled',
      filledQty: '3',
      avgFillPrice: '0.12',
    });
    const wire = (await raw(ctx, 'GET', `/portfolio/orders/${no.venueOrderId}`)).body.order;
    expect(wire).toMatchObject({
      ticker: 'PRES-2024-DJT',
      book_side: 'ask',
      outcome_side: 'no',
      no_price_dollars: '0.1700',
      yes_price_dollars: '0.8300',
      fill_count_fp: '3.00',
      initial_count_fp: '3.00',
      remaining_count_fp: '0.00',
      taker_fill_cost_dollars: '0.3600', // 3 NO at 0.12
      taker_fees_dollars: '0.0300',
      status: 'executed',
    });
    // The fields Kalshi retired (integer counts and cents) and the deprecated direction are not sent.
    for (const gone of ['count', 'fill_count', 'yes_price', 'no_price', 'taker_fill_cost', 'side', 'action'])
      expect(wire).not.toHaveProperty(gone);
    const noFill = await kalshiAdapter.fills(ctx, { sinceMs: Date.now() - 60_000, venueOrderId: no.venueOrderId });
    expect(noFill).toEqual([expect.objectContaining({ symbol: NO.symbol, price: '0.12', qty: '3', feeUsd: '0.03' })]); // ⌈0.07×3×0.12×0.88⌉ = ⌈0.0222⌉
    // Both symbols of a market share its fills: read as YES, the NO buy is a sell of YES at 1 − 0.12.
    expect(await kalshiAdapter.fills(ctx, { sinceMs: Date.now() - 60_000, symbol: YES.symbol })).toEqual([
      expect.objectContaining({ venueOrderId: placed.venueOrderId, side: 'buy', price: '0.5', qty: '10' }),
      expect.objectContaining({ venueOrderId: no.venueOrderId, side: 'sell', price: '0.88', qty: '3' }),
    ]);
    marks.set(NO.symbol, '0.5');
  });

  it('a limit order rests, shows in orders(), fills as a maker (fee 0) once the mark crosses; another is canceled; canceling a filled one returns it filled', async () => {
    const { ctx } = await authorised();
    const resting = await kalshiAdapter.place(ctx, req({ type: 'limit', price: '0.3' }));
    expect(resting).toMatchObject({ status: 'open', filledQty: '0', price: '0.3', avgFillPrice: null });
    const other = await kalshiAdapter.place(
      ctx,
      req({ type: 'limit', price: '0.8', side: 'sell', symbol: NO.symbol, qty: '5' }),
    );
    expect(other).toMatchObject({ status: 'open', side: 'sell', symbol: NO.symbol, qty: '5' });
    expect((await kalshiAdapter.orders(ctx)).map((o) => o.venueOrderId).sort()).toEqual(
      [resting.venueOrderId, other.venueOrderId].sort(),
    );

    marks.set(YES.symbol, '0.29');
    await sim.poke();
    expect(await kalshiAdapter.status(ctx, YES.symbol, resting.venueOrderId)).toMatchObject({
      status: 'filled',
      filledQty: '10',
      avgFillPrice: '0.3',
    });
    expect(
      await kalshiAdapter.fills(ctx, { sinceMs: Date.now() - 60_000, venueOrderId: resting.venueOrderId }),
    ).toEqual([expect.objectContaining({ side: 'buy', qty: '10', price: '0.3', feeUsd: '0' })]);
    marks.set(YES.symbol, '0.5');

    expect(await kalshiAdapter.cancel(ctx, NO.symbol, other.venueOrderId)).toMatchObject({
      status: 'canceled',
      filledQty: '0',
    });
    expect(await kalshiAdapter.cancel(ctx, YES.symbol, resting.venueOrderId)).toMatchObject({ status: 'filled' });
    await expect(kalshiAdapter.cancel(ctx, YES.symbol, randomUUID())).rejects.toThrow('not found');
    expect(await kalshiAdapter.status(ctx, YES.symbol, randomUUID())).toBeNull();
  });

  it('IOC that cannot fill comes back canceled; post-only that would cross, fractional sizes, off-cent prices and stops are refused', async () => {
    const { ctx, member } = await authorised();
    expect(await kalshiAdapter.place(ctx, req({ type: 'limit', timeInForce: 'Ioc', price: '0.4' }))).toMatchObject({
      status: 'canceled',
      filledQty: '0',
    });
    await expect(kalshiAdapter.place(ctx, req({ type: 'limit', timeInForce: 'Alo', price: '0.6' }))).rejects.toThrow(
      'post only order would cross the book',
    );
    expect(await kalshiAdapter.place(ctx, req({ type: 'limit', timeInForce: 'Alo', price: '0.4' }))).toMatchObject({
      status: 'open',
    });
    expect(sim.orderCount(member)).toBe(2);
    await expect(kalshiAdapter.place(ctx, req({ qty: '1.5' }))).rejects.toThrow(
      /count must be a whole number of contracts/,
    );
    await expect(kalshiAdapter.place(ctx, req({ type: 'limit', price: '0.555' }))).rejects.toThrow(VenueRejected);
    await expect(kalshiAdapter.place(ctx, req({ type: 'stop', triggerPrice: '0.4' }))).rejects.toThrow(VenueRejected);
    expect(sim.orderCount(member)).toBe(2);
    // The venue itself refuses a fractional count, a count given as a bare number (the retired integer
    // field), an off-grid or out-of-range price and a missing self-trade prevention type (invalid_parameters);
    // the retired create route is gone.
    const order = {
      ticker: 'PRES-2024-DJT',
      side: 'bid',
      count: '1',
      price: '0.4000',
      time_in_force: 'good_till_canceled',
      self_trade_prevention_type: 'taker_at_cross',
    };
    const invalidParameters = {
      status: 400,
      body: { error: { code: 'invalid_parameters', message: 'invalid parameters' } },
    };
    for (const bad of [
      { count: '1.5' },
      { count: 1 },
      { price: '1.0000' },
      { price: '0.405' },
      { side: 'yes' },
      { self_trade_prevention_type: undefined },
    ])
      expect(await raw(ctx, 'POST', '/portfolio/events/orders', { body: { ...order, ...bad } })).toMatchObject(
        invalidParameters,
      );
    expect(sim.orderCount(member)).toBe(2);
    const legacy = await raw(ctx, 'POST', '/portfolio/orders', {
      body: { ticker: 'PRES-2024-DJT', side: 'yes', action: 'buy', count: 1, yes_price: 40 },
    });
    expect(legacy.status).toBe(404);
    expect((await raw(ctx, 'POST', '/portfolio/events/orders', { body: order })).status).toBe(201);
    expect(sim.orderCount(member)).toBe(3);
  });

  it('the simulator verifies every signature as Kalshi does: tampered, query-signed, prefix-less, stale, replayed, unknown, revoked and expired keys are 401; a read-only key cannot trade (403)', async () => {
    const { ctx, keyId, member } = await authorised();
    const ok = await raw(ctx, 'GET', '/portfolio/orders?limit=5');
    expect(ok.status).toBe(200);
    const auth401 = (details: string) => ({
      status: 401,
      body: { error: { code: 'authentication_error', message: 'authentication_error', details } },
    });
    // The exact same headers again: a replay.
    expect(await raw(ctx, 'GET', '/portfolio/orders?limit=5', { headers: ok.headers })).toMatchObject(
      auth401('replayed request'),
    );
    // Signed over the query, over the path without /trade-api/v2, or over another method/path.
    const ts = Date.now();
    expect(
      await raw(ctx, 'GET', '/portfolio/orders?limit=5', {
        ts,
        signed: `${ts}GET/trade-api/v2/portfolio/orders?limit=5`,
      }),
    ).toMatchObject(auth401('INVALID_SIGNATURE'));
    expect(await raw(ctx, 'GET', '/portfolio/orders', { ts, signed: `${ts}GET/portfolio/orders` })).toMatchObject(
      auth401('INVALID_SIGNATURE'),
    );
    expect(
      await raw(ctx, 'DELETE', `/portfolio/events/orders/${randomUUID()}`, {
        ts,
        signed: `${ts}GET/trade-api/v2/portfolio/orders`,
      }),
    ).toMatchObject(auth401('INVALID_SIGNATURE'));
    // A signature whose bytes were tampered with.
    const good = await raw(ctx, 'GET', '/portfolio/balance');
    expect(good.status).toBe(200);
    const sig = Buffer.from(good.headers['KALSHI-ACCESS-SIGNATURE'], 'base64');
    sig[10] ^= 1;
    expect(
      await raw(ctx, 'GET', '/portfolio/balance', {
        headers: {
          ...good.headers,
          'KALSHI-ACCESS-TIMESTAMP': String(Date.now()),
          'KALSHI-ACCESS-SIGNATURE': sig.toString('base64'),
        },
      }),
    ).toMatchObject(auth401('INVALID_SIGNATURE'));
    // A timestamp outside the window, correctly signed.
    expect(await raw(ctx, 'GET', '/portfolio/balance', { ts: Date.now() - 60_000 })).toMatchObject(
      auth401('timestamp outside the 30 s window'),
    );
    expect(await raw(ctx, 'GET', '/portfolio/balance', { ts: Date.now() + 60_000 })).toMatchObject(
      auth401('timestamp outside the 30 s window'),
    );
    // Unknown key id; missing headers.
    expect(
      await raw({ ...ctx, agent: { ...(ctx.agent as any), keyId: randomUUID() } }, 'GET', '/portfolio/balance'),
    ).toMatchObject(auth401('NOT_FOUND'));
    expect((await raw(ctx, 'GET', '/portfolio/balance', { headers: {} })).status).toBe(401);

    // Revoked: every later request fails, with the adapter surfacing VenueRejected.
    sim.revokeKey(keyId);
    await expectRejected(kalshiAdapter.place(ctx, req({})), 'authentication_error: NOT_FOUND');
    expect(sim.orderCount(member)).toBe(0);

    // Expired.
    const short = await authorised({ expiresAt: Date.now() + 300 });
    expect((await raw(short.ctx, 'GET', '/portfolio/balance')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 350));
    await expect(kalshiAdapter.orders(short.ctx)).rejects.toThrow('authentication_error: API key expired');

    // Read-only key: reads work, writes are 403.
    const ro = await authorised({ scopes: ['read'] });
    expect(await kalshiAdapter.orders(ro.ctx)).toEqual([]);
    await expectRejected(kalshiAdapter.place(ro.ctx, req({})), 'API key does not have the write scope');
    expect(sim.orderCount(ro.member)).toBe(0);
  });

  it('a lost acknowledgement: findByClientOrderId finds exactly one venue order; placing it again is order_already_exists', async () => {
    const { ctx, member } = await authorised();
    const r = req({ type: 'limit', price: '0.2' });
    const found = await placeWithLostAck(kalshiAdapter, sim, ctx, member, r);
    expect(found).toMatchObject({ clientOrderId: r.clientOrderId, status: 'open', price: '0.2', qty: '10' });
    expect(
      await kalshiAdapter.findByClientOrderId(ctx, r.symbol, kalshiAdapter.clientOrderId('int_NEVER_SENT')),
    ).toBeNull();
    await expect(kalshiAdapter.place(ctx, r)).rejects.toThrow('order already exists');
    expect(sim.orderCount(member)).toBe(1);
    expect((await kalshiAdapter.orders(ctx)).filter((o) => o.clientOrderId === r.clientOrderId)).toHaveLength(1);
  });

  it('rejectNext surfaces as VenueRejected with the reason; injected web orders show in orders() across pages', async () => {
    const { ctx, member } = await authorised();
    sim.rejectNext('insufficient balance');
    await expectRejected(kalshiAdapter.place(ctx, req({})), 'insufficient balance');
    expect(sim.orderCount(member)).toBe(0);
    const injected = { symbol: NO.symbol, side: 'buy', qty: '3', price: '0.1' } as const;
    const { venueOrderId } = await sim.injectOrder(member, injected);
    expect(await kalshiAdapter.orders(ctx)).toEqual([injectedOpenOrder(venueOrderId, injected)]);
    // More than one page (limit 200): every order comes back once.
    for (let i = 0; i < 204; i++)
      await sim.injectOrder(member, { symbol: YES.symbol, side: 'buy', qty: '1', price: '0.05' });
    const all = await kalshiAdapter.orders(ctx);
    expect(all).toHaveLength(205);
    expect(new Set(all.map((o) => o.venueOrderId)).size).toBe(205);
    // Another member sees none of them.
    expect(await kalshiAdapter.orders((await authorised()).ctx)).toEqual([]);
  });

  it('account: cash (funded, less what buys cost and fees) and the contracts held, valued as the balance reports them', async () => {
    const { ctx, member } = await authorised();
    sim.fund(member, '100');
    // 10 YES at the 50-cent ask: 5.00 paid, taker fee ⌈0.07 × 10 × 0.5 × 0.5⌉ = 18 cents.
    await kalshiAdapter.place(ctx, req({}));
    marks.set(YES.symbol, '0.6');
    try {
      expect(await kalshiAdapter.account(ctx)).toEqual({
        balanceUsd: '99.82',
        unrealizedPnlUsd: '1',
        equityUsd: '100.82',
        marginUsedUsd: '6',
        marginAvailableUsd: '94.82',
        positions: [predictionHolding(YES.symbol, '10', '0.5')],
      });
    } finally {
      marks.set(YES.symbol, '0.5');
    }
    // Another member holds nothing.
    expect((await kalshiAdapter.account((await authorised()).ctx)).positions).toEqual([]);
  });

  it('positions net as on Kalshi: a sell of YES goes out as an ask, closes YES contracts and reads back as a sell of YES (as a buy of NO without the symbol)', async () => {
    const { ctx, member } = await authorised();
    sim.fund(member, '100');
    await kalshiAdapter.place(ctx, req({})); // 10 YES at 0.50, fee 0.18
    const sold = await kalshiAdapter.place(ctx, req({ side: 'sell', qty: '4' }));
    // protective limit 0.45; the YES bid is 1 − the NO ask (0.50): fills 4 at 0.50, fee ⌈0.07 × 4 × 0.25⌉ = 0.07
    expect(sold).toMatchObject({
      side: 'sell',
      symbol: YES.symbol,
      price: '0.45',
      status: 'filled',
      avgFillPrice: '0.5',
    });
    expect(await kalshiAdapter.status(ctx, YES.symbol, sold.venueOrderId)).toMatchObject({
      side: 'sell',
      symbol: YES.symbol,
      price: '0.45',
      filledQty: '4',
      avgFillPrice: '0.5',
    });
    const since = Date.now() - 60_000;
    expect(
      await kalshiAdapter.fills(ctx, { sinceMs: since, symbol: YES.symbol, venueOrderId: sold.venueOrderId }),
    ).toEqual([expect.objectContaining({ symbol: YES.symbol, side: 'sell', qty: '4', price: '0.5', feeUsd: '0.07' })]);
    expect(await kalshiAdapter.fills(ctx, { sinceMs: since, venueOrderId: sold.venueOrderId })).toEqual([
      expect.objectContaining({ symbol: NO.symbol, side: 'buy', qty: '4', price: '0.5', feeUsd: '0.07' }),
    ]);
    // 100 − 5.00 − 0.18 + 2.00 − 0.07; 6 YES left at 0.50
    expect(await kalshiAdapter.account(ctx)).toMatchObject({
      balanceUsd: '99.75',
      marginAvailableUsd: '96.75',
      positions: [predictionHolding(YES.symbol, '6', '0.5')],
    });
  });
});

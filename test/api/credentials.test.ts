/**
 * Credential management over the API (issue 17 item 3; docs/api.md §2.1, §4.8, §5.2, §5.4, §7.2): an
 * operator with `credentials:manage` issues a trader credential (secret shown once, never listed), the
 * trader mints and composes; compose refuses orders outside the credential's envelope and allowlists with
 * named codes; a changed envelope holds from the next request; rotation kills the old secret and its
 * bearers; revocation refuses the next write; operator credentials get only scopes the issuer holds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal, fmt } from '../../domain/decimal.js';
import { ensureTenant } from '../../db/seed.js';
import { startStack, type Stack } from '../support/stack.js';
import { publish, recordedTick } from '../support/marks.js';
import { fillMarketOrders } from '../support/trading.js';

const BASE = '/api/v1/operator/credentials';

describe('credential management', () => {
  let s: Stack;
  let admin: string;
  let btcMark: Decimal;
  /** The trader credential issued over the API, as issuance answered it, and its bearer. */
  let issued: Record<string, any>;
  let traderToken: string;

  const mint = (apiKey: string, apiSecret: string) =>
    s.call('POST', '/api/auth/api-token', { body: { apiKey, apiSecret } });
  const compose = (token: string, order: Record<string, unknown>) =>
    s.call('POST', '/api/v1/oms/intents', {
      token,
      body: { venue: 'paper', symbol: 'BTC.PAPER', side: 'buy', type: 'market', qty: '0.01', ...order },
    });
  const usd = (fraction: string) => fmt(btcMark.mul(fraction).toDecimalPlaces(2));
  const publishMarks = async () => {
    const btc = await recordedTick('BTC.PAPER', 0.3);
    await publish(s.orm, btc);
    await publish(s.orm, await recordedTick('ETH.PAPER', 0.3));
    btcMark = btc.mark;
  };

  beforeAll(async () => {
    s = await startStack();
    await publishMarks();
    admin = (await s.operator(['credentials:manage', 'prop:manage'])).token;
  });
  afterAll(async () => s?.stop());

  it('issues a trader credential: the secret is answered once and never listed; the trader mints and composes', async () => {
    const res = await s.call('POST', BASE, {
      token: admin,
      body: {
        audience: 'trader',
        label: 'desk bot',
        envelope: { maxOrderNotionalUsd: usd('0.05'), maxPositionNotionalUsd: usd('0.07'), maxLeverage: 3 },
        allowedVenues: ['paper', 'paper'],
        allowedSymbols: ['BTC.PAPER', 'ETH.PAPER'],
        rateLimit: { perSecond: 20, burst: 5 },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    issued = res.body;
    expect(issued).toMatchObject({
      audience: 'trader',
      label: 'desk bot',
      tier: 'fullTrading',
      scopes: [],
      envelope: {
        maxOrderNotionalUsd: usd('0.05'),
        maxPositionNotionalUsd: usd('0.07'),
        maxLeverage: 3,
        dailyLossLimitUsd: null,
      },
      allowedVenues: ['paper'],
      allowedSymbols: ['BTC.PAPER', 'ETH.PAPER'],
      rateLimit: { perSecond: 20, burst: 5 },
      revokedAt: null,
    });
    expect(issued.apiKey).toMatch(/^tk_/);
    expect(issued.apiSecret.length).toBeGreaterThanOrEqual(32);
    expect(issued.accountId).toMatch(/^acc_/); // a new trader gets a paper account

    const list = await s.call('GET', `${BASE}?audience=trader`, { token: admin });
    expect(list.status).toBe(200);
    expect(list.body.data.map((c: { id: string }) => c.id)).toContain(issued.id);
    const one = await s.call('GET', `${BASE}/${issued.id}`, { token: admin });
    for (const body of [list.body, one.body]) {
      expect(JSON.stringify(body)).not.toContain(issued.apiSecret);
      expect(JSON.stringify(body)).not.toMatch(/apiSecret|secretHash|scrypt/);
    }

    const minted = await mint(issued.apiKey, issued.apiSecret);
    expect(minted).toMatchObject({ status: 200, body: { audience: 'trader', accountId: issued.accountId } });
    traderToken = minted.body.token;
    const composed = await compose(traderToken, {});
    expect(composed.status, JSON.stringify(composed.body)).toBe(201);
    expect(composed.headers.get('x-ratelimit-limit')).toBe('20'); // the credential's own rate limit
  });

  it("a credential issued for an existing account acts for that account's owner", async () => {
    const t = await s.trader();
    const res = await s.call('POST', BASE, {
      token: admin,
      body: { audience: 'trader', tier: 'readonly', accountId: t.accountId },
    });
    expect(res.body).toMatchObject({ ownerId: t.ownerId, accountId: t.accountId, tier: 'readonly' });
    const token = (await mint(res.body.apiKey, res.body.apiSecret)).body.token;
    const accounts = await s.call('GET', '/api/v1/accounts', { token });
    expect(accounts.body.accounts.map((a: { accountId: string }) => a.accountId)).toEqual([t.accountId]);
    expect(await compose(token, { accountId: t.accountId })).toMatchObject({
      status: 403,
      body: { error: 'tier_readonly' },
    });
    expect(
      await s.call('POST', BASE, { token: admin, body: { audience: 'trader', accountId: 'acc_missing' } }),
    ).toMatchObject({ status: 404, body: { error: 'account_not_found' } });
  });

  it('compose refuses orders outside the envelope and the allowlists with named codes; a reducing order passes', async () => {
    await publishMarks();
    const overOrder = await compose(traderToken, { qty: '0.1' });
    expect(overOrder).toMatchObject({
      status: 400,
      body: { error: 'envelope_order_notional', limitUsd: usd('0.05') },
    });
    expect(new Decimal(overOrder.body.notionalUsd).gt(usd('0.05'))).toBe(true);

    await fillMarketOrders(s, traderToken, 'BTC.PAPER', [['sell', '0.01']]); // flat after the first test's buy
    await fillMarketOrders(s, traderToken, 'BTC.PAPER', [['buy', '0.04']]);
    await publishMarks();
    const overPosition = await compose(traderToken, { qty: '0.04' }); // 0.08 BTC after the fill
    expect(overPosition).toMatchObject({
      status: 400,
      body: { error: 'envelope_position_notional', limitUsd: usd('0.07') },
    });
    expect((await compose(traderToken, { side: 'sell', qty: '0.04', reduceOnly: true })).status).toBe(201);

    expect(await compose(traderToken, { leverage: 5 })).toMatchObject({
      status: 400,
      body: { error: 'envelope_leverage', limit: 3, requested: 5 },
    });
    expect(await compose(traderToken, { symbol: 'SOL.PAPER' })).toMatchObject({
      status: 403,
      body: { error: 'symbol_not_allowed', symbol: 'SOL.PAPER', allowed: ['BTC.PAPER', 'ETH.PAPER'] },
    });
    expect(await compose(traderToken, { venue: 'hyperliquid', symbol: 'ETH.HL' })).toMatchObject({
      status: 403,
      body: { error: 'venue_not_allowed', venue: 'hyperliquid', allowed: ['paper'] },
    });
  });

  it("a changed envelope holds from the next order: today's loss past the daily limit stops new exposure", async () => {
    const patched = await s.call('PATCH', `${BASE}/${issued.id}`, {
      token: admin,
      body: { envelope: { dailyLossLimitUsd: '100', maxLeverage: null } },
    });
    expect(patched.body.envelope).toMatchObject({
      maxOrderNotionalUsd: usd('0.05'),
      maxLeverage: null,
      dailyLossLimitUsd: '100',
    });
    const now = Date.now();
    const loss = await s.call('POST', `/api/v1/accounts/${issued.accountId}/manual-trades`, {
      token: traderToken,
      body: {
        symbol: 'ETH.PAPER',
        side: 'long',
        qty: 1,
        entryPrice: 3000,
        exitPrice: 2850,
        entryTime: new Date(now - 3_600_000).toISOString(),
        exitTime: new Date(now).toISOString(),
      },
    });
    expect(loss.status).toBe(201);
    await publishMarks();
    const stopped = await compose(traderToken, { leverage: 5 });
    expect(stopped).toMatchObject({ status: 403, body: { error: 'daily_loss_limit', limitUsd: '100' } });
    expect(new Decimal(stopped.body.lossUsd).gte(100)).toBe(true);

    await s.call('PATCH', `${BASE}/${issued.id}`, { token: admin, body: { envelope: { dailyLossLimitUsd: null } } });
    expect((await compose(traderToken, { leverage: 5 })).status).toBe(201);
  });

  it('rotation answers a new secret once; the old secret and every bearer minted from it are refused', async () => {
    const rotated = await s.call('POST', `${BASE}/${issued.id}/rotate`, { token: admin });
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    expect(rotated.body).toMatchObject({ id: issued.id, apiKey: issued.apiKey, revokedAt: null });
    expect(rotated.body.apiSecret).not.toBe(issued.apiSecret);
    expect(rotated.body.secretRotatedAt).not.toBeNull();

    expect(await mint(issued.apiKey, issued.apiSecret)).toMatchObject({
      status: 401,
      body: { error: 'invalid_credentials' },
    });
    expect(await s.call('GET', '/api/v1/accounts', { token: traderToken })).toMatchObject({
      status: 401,
      body: { error: 'token_revoked' },
    });
    expect(await compose(traderToken, {})).toMatchObject({ status: 401, body: { error: 'token_revoked' } });

    const fresh = await mint(issued.apiKey, rotated.body.apiSecret);
    expect(fresh.status).toBe(200);
    traderToken = fresh.body.token;
    expect((await compose(traderToken, {})).status).toBe(201);
    // Same credential: the intents composed before the rotation are still its own.
    expect((await s.call('GET', '/api/v1/oms/intents', { token: traderToken })).body.intents.length).toBeGreaterThan(3);
  });

  it('revocation refuses the next write and every mint; it is idempotent, and a revoked credential cannot change', async () => {
    const revoked = await s.call('POST', `${BASE}/${issued.id}/revoke`, { token: admin });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedAt).not.toBeNull();
    expect(await compose(traderToken, {})).toMatchObject({ status: 401, body: { error: 'credential_revoked' } });
    const again = await s.call('POST', `${BASE}/${issued.id}/revoke`, { token: admin });
    expect(again.body.revokedAt).toBe(revoked.body.revokedAt);
    expect(await s.call('POST', `${BASE}/${issued.id}/rotate`, { token: admin })).toMatchObject({
      status: 409,
      body: { error: 'invalid_state' },
    });
    expect(await s.call('PATCH', `${BASE}/${issued.id}`, { token: admin, body: { tier: 'readonly' } })).toMatchObject({
      status: 409,
      body: { error: 'invalid_state' },
    });
  });

  it('only an operator holding credentials:manage manages credentials', async () => {
    const trader = await s.trader();
    expect(await s.call('GET', BASE, { token: trader.token })).toMatchObject({
      status: 403,
      body: { error: 'wrong_credential_audience', expected: 'operator', actual: 'trader' },
    });
    expect(await s.call('POST', BASE, { token: trader.token, body: { audience: 'trader' } })).toMatchObject({
      status: 403,
      body: { error: 'wrong_credential_audience' },
    });
    const config = (await s.operator(['tenant:config'])).token;
    for (const [method, path] of [
      ['GET', BASE],
      ['POST', `${BASE}/${trader.credentialId}/revoke`],
    ])
      expect(await s.call(method, path, { token: config })).toMatchObject({
        status: 403,
        body: { error: 'forbidden' },
      });
    await publishMarks();
    expect((await compose(trader.token, {})).status).toBe(201); // the refused revoke changed nothing
  });

  it('issues operator credentials with scopes the issuer holds, never more; a trader credential takes no scopes', async () => {
    const res = await s.call('POST', BASE, {
      token: admin,
      body: { audience: 'operator', label: 'risk desk', scopes: ['prop:manage'] },
    });
    expect(res).toMatchObject({
      status: 201,
      body: { audience: 'operator', scopes: ['prop:manage'], tier: null, accountId: null },
    });
    expect(res.body.apiKey).toMatch(/^ok_/);
    const token = (await mint(res.body.apiKey, res.body.apiSecret)).body.token;
    expect((await s.call('GET', '/api/v1/risk-profiles', { token })).status).toBe(200);
    expect(await s.call('GET', BASE, { token })).toMatchObject({ status: 403, body: { error: 'forbidden' } });

    expect(
      await s.call('POST', BASE, { token: admin, body: { audience: 'operator', scopes: ['tenant:config'] } }),
    ).toMatchObject({ status: 403, body: { error: 'forbidden', missing: ['tenant:config'] } });
    const wider = await s.operator(['tenant:config', 'prop:manage']);
    expect(await s.call('POST', `${BASE}/${wider.credentialId}/rotate`, { token: admin })).toMatchObject({
      status: 403,
      body: { error: 'forbidden', missing: ['tenant:config'] },
    });
    const traderWithScopes = await s.call('POST', BASE, {
      token: admin,
      body: { audience: 'trader', scopes: ['prop:manage'] },
    });
    expect(traderWithScopes).toMatchObject({ status: 400, body: { error: 'validation_failed' } });
    expect(
      await s.call('PATCH', `${BASE}/${res.body.id}`, { token: admin, body: { envelope: { maxLeverage: 2 } } }),
    ).toMatchObject({ status: 400, body: { error: 'validation_failed', detail: [{ code: 'trader_only' }] } });
    expect(
      await s.call('POST', BASE, {
        token: admin,
        body: { audience: 'trader', allowedSymbols: ['DOGE.PAPER'] },
      }),
    ).toMatchObject({ status: 400, body: { error: 'symbol_unknown' } });
  });

  it("another tenant's operator sees none of this tenant's credentials", async () => {
    const other = await ensureTenant(s.orm, { slug: `cred-other-${Date.now()}`, displayName: 'Other', origins: [] });
    const token = (await s.operator(['credentials:manage'], other.id)).token;
    const headers = { 'x-tenant-slug': other.slug };
    expect(await s.call('GET', `${BASE}/${issued.id}`, { token, headers })).toMatchObject({
      status: 404,
      body: { error: 'credential_not_found' },
    });
    expect(await s.call('POST', `${BASE}/${issued.id}/revoke`, { token, headers })).toMatchObject({
      status: 404,
      body: { error: 'credential_not_found' },
    });
    const own = (await s.call('GET', BASE, { token, headers })).body.data.map((c: { id: string }) => c.id);
    expect(own).not.toContain(issued.id);
  });
});

/**
 * Operator surfaces (issue 6; docs/api.md §4.8, §5.2-5.4): the scope matrix over every prefix, firm and
 * template validation, readiness with and without a deployer, tenant isolation, account suspension
 * at compose, risk-profile limits at compose, trading groups, and the authentication cache dropped at once
 * when a credential is revoked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeCredential, ensureTenant } from '../../db/seed.js';
import type { Scope } from '../../domain/gates.js';
import { PropAccount } from '../../db/entities.js';
import { startStack, type Stack } from '../support/stack.js';
import { publish, recordedTick } from '../support/marks.js';
import { STANDARD_TERMS } from '../support/prop-firm.js';

const SAFE = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const TOKEN = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';

describe('operator surfaces', () => {
  let s: Stack;
  const tokens: Record<string, string> = {};
  let traderAccount: string;
  const operator = (scopes: Scope[], tenantId?: string) => s.operator(scopes, tenantId);

  beforeAll(async () => {
    s = await startStack({ env: { PROP_DEPLOYER_KEY: `0x${'11'.repeat(32)}`, CHAIN_RPC_URL: 'http://127.0.0.1:1' } });
    tokens.firm = (await operator(['firm:operate'])).token;
    tokens.prop = (await operator(['prop:manage'])).token;
    tokens.both = (await operator(['firm:operate', 'prop:manage'])).token;
    tokens.none = (await operator([])).token;
    const t = await s.trader();
    tokens.trader = t.token;
    traderAccount = t.accountId!;
  });
  afterAll(async () => s?.stop());

  const MATRIX: [string, string, 'firm:operate' | 'prop:manage', unknown?][] = [
    ['GET', '/api/v1/firms', 'firm:operate'],
    ['GET', '/api/v1/prop-templates', 'prop:manage'],
    ['GET', '/api/v1/risk-profiles', 'prop:manage'],
    ['GET', '/api/v1/trading-groups', 'prop:manage'],
    ['GET', '/api/v1/prop-accounts', 'prop:manage'],
    ['PATCH', '/api/v1/accounts/{account}/suspension', 'prop:manage', { suspended: false }],
  ];
  const HOLDS: Record<string, Scope[]> = {
    firm: ['firm:operate'],
    prop: ['prop:manage'],
    both: ['firm:operate', 'prop:manage'],
    none: [],
  };

  it.each(MATRIX)('%s %s needs %s: every credential kind gets its answer', async (method, path, scope, body) => {
    for (const who of ['firm', 'prop', 'both', 'none', 'trader']) {
      const res = await s.call(method, path.replace('{account}', traderAccount), { token: tokens[who], body });
      if (who === 'trader')
        expect(res, who).toMatchObject({
          status: 403,
          body: { error: 'wrong_credential_audience', expected: 'operator', actual: 'trader' },
        });
      else if (HOLDS[who].includes(scope)) expect(res.status, `${who}: ${JSON.stringify(res.body)}`).toBe(200);
      else expect(res, who).toMatchObject({ status: 403, body: { error: 'forbidden' } });
    }
  });

  let firmId: string;
  it('creates, lists, reads and patches firms; validation errors name the fields; readiness lists every check', async () => {
    const bad = await s.call('POST', '/api/v1/firms', {
      token: tokens.firm,
      body: { name: '', ownerAddress: '0x1234', stablecoinAddress: TOKEN, chainId: 0 },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('validation_failed');
    expect(bad.body.detail.map((d: { path: string }) => d.path).sort()).toEqual([
      'body.chainId',
      'body.name',
      'body.ownerAddress',
    ]);
    const created = await s.call('POST', '/api/v1/firms', {
      token: tokens.firm,
      body: { name: 'Operator Test Firm', ownerAddress: SAFE, stablecoinAddress: TOKEN, chainId: 31337 },
    });
    expect(created).toMatchObject({
      status: 201,
      body: { name: 'Operator Test Firm', status: 'draft', instanceAddress: null },
    });
    firmId = created.body.id;
    const list = await s.call('GET', '/api/v1/firms?limit=1', { token: tokens.firm });
    expect(list.body).toMatchObject({ data: [{ id: firmId }], hasMore: false, nextCursor: null });
    expect(
      (await s.call('PATCH', `/api/v1/firms/${firmId}`, { token: tokens.firm, body: { name: 'Renamed' } })).body.name,
    ).toBe('Renamed');
    const readiness = await s.call('GET', `/api/v1/firms/${firmId}/readiness`, { token: tokens.firm });
    expect(readiness.body).toMatchObject({
      ready: false,
      checks: [
        { name: 'owner_address', ok: true },
        { name: 'stablecoin_address', ok: true },
        { name: 'template', ok: false },
        { name: 'chain_configured', ok: true },
        { name: 'deployer_configured', ok: true },
      ],
    });
  });

  it('a stack without a deployer reports deployer_configured false and refuses a live deploy with 503; the dry run still answers', async () => {
    const bare = await startStack();
    try {
      const token = (await bare.operator(['firm:operate', 'prop:manage'])).token;
      const firm = (
        await bare.call('POST', '/api/v1/firms', {
          token,
          body: { name: 'No deployer', ownerAddress: SAFE, stablecoinAddress: TOKEN, chainId: 31337 },
        })
      ).body;
      await bare.call('POST', '/api/v1/prop-templates', {
        token,
        body: {
          firmId: firm.id,
          name: 'T',
          priceUsd: '50',
          accountSizeUsd: '5000',
          profitTargetPct: '0.1',
          maxDailyLossPct: '0.05',
          maxDrawdownPct: '0.1',
          minTradingDays: 3,
          payoutSplitPct: '0.8',
        },
      });
      const readiness = await bare.call('GET', `/api/v1/firms/${firm.id}/readiness`, { token });
      expect(readiness.body.checks.find((c: { name: string }) => c.name === 'deployer_configured')).toMatchObject({
        ok: false,
      });
      expect(await bare.call('POST', `/api/v1/firms/${firm.id}/deploy`, { token, body: {} })).toMatchObject({
        status: 503,
        body: { error: 'deployer_unconfigured' },
      });
      const dry = await bare.call('POST', `/api/v1/firms/${firm.id}/deploy`, { token, body: { dryRun: true } });
      expect(dry.status).toBe(200);
      expect(dry.body.rules.templates).toHaveLength(1);
    } finally {
      await bare.stop();
    }
  });

  it('templates validate their amounts, fractions and references; PATCH changes one field', async () => {
    const bad = await s.call('POST', '/api/v1/prop-templates', {
      token: tokens.prop,
      body: {
        firmId,
        name: 'x',
        priceUsd: '-1',
        accountSizeUsd: '10000',
        profitTargetPct: '8',
        maxDailyLossPct: '0.05',
        maxDrawdownPct: '0.1',
        minTradingDays: 1,
        payoutSplitPct: '0.8',
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.detail.map((d: { path: string }) => d.path).sort()).toEqual([
      'body.priceUsd',
      'body.profitTargetPct',
    ]);
    expect(
      await s.call('POST', '/api/v1/prop-templates', {
        token: tokens.prop,
        body: {
          firmId,
          name: 'x',
          ...STANDARD_TERMS,
          riskProfileId: 'rp_missing',
        },
      }),
    ).toMatchObject({ status: 404, body: { error: 'risk_profile_not_found' } });
    const ok = await s.call('POST', '/api/v1/prop-templates', {
      token: tokens.prop,
      body: {
        firmId,
        name: 'Standard',
        ...STANDARD_TERMS,
      },
    });
    expect(ok).toMatchObject({ status: 201, body: { venue: 'paper', archived: false, profitTargetPct: '0.08' } });
    expect(
      (
        await s.call('PATCH', `/api/v1/prop-templates/${ok.body.id}`, {
          token: tokens.prop,
          body: { minTradingDays: 5 },
        })
      ).body.minTradingDays,
    ).toBe(5);
    expect((await s.call('GET', `/api/v1/firms/${firmId}/readiness`, { token: tokens.firm })).body.ready).toBe(true);
  });

  it("another tenant's operator sees none of this tenant's firms", async () => {
    const other = await ensureTenant(s.orm, { slug: `other-${Date.now()}`, displayName: 'Other', origins: [] });
    const token = (await s.operator(['firm:operate'], other.id)).token;
    const headers = { 'x-tenant-slug': other.slug };
    expect(await s.call('GET', `/api/v1/firms/${firmId}`, { token, headers })).toMatchObject({
      status: 404,
      body: { error: 'firm_not_found' },
    });
    expect((await s.call('GET', '/api/v1/firms', { token, headers })).body.data).toEqual([]);
  });

  it('a suspended account is refused at compose with the reason, and trades again once lifted', async () => {
    await publish(s.orm, await recordedTick('ETH.PAPER', 0.5));
    const order = {
      accountId: traderAccount,
      venue: 'paper',
      symbol: 'ETH.PAPER',
      side: 'buy',
      type: 'market',
      qty: '0.01',
    };
    const suspended = await s.call('PATCH', `/api/v1/accounts/${traderAccount}/suspension`, {
      token: tokens.prop,
      body: { suspended: true, reason: 'KYC review' },
    });
    expect(suspended.body).toMatchObject({ accountId: traderAccount, suspended: true, reason: 'KYC review' });
    const refused = await s.call('POST', '/api/v1/oms/intents', { token: tokens.trader, body: order });
    expect(refused).toMatchObject({ status: 403, body: { error: 'account_suspended' } });
    expect(refused.body.detail).toContain('KYC review');
    expect(
      (
        await s.call('PATCH', `/api/v1/accounts/${traderAccount}/suspension`, {
          token: tokens.prop,
          body: { suspended: false },
        })
      ).body.suspended,
    ).toBe(false);
    expect((await s.call('POST', '/api/v1/oms/intents', { token: tokens.trader, body: order })).status).toBe(201);
  });

  it("a challenge account's order that breaks its template's risk profile is refused at compose; a smaller one is not", async () => {
    const rp = await s.call('POST', '/api/v1/risk-profiles', {
      token: tokens.prop,
      body: { name: 'Small orders', maxOrderNotionalUsd: '50' },
    });
    const template = await s.call('POST', '/api/v1/prop-templates', {
      token: tokens.prop,
      body: { firmId, ...STANDARD_TERMS, name: 'Small orders', riskProfileId: rp.body.id },
    });
    expect(template.status).toBe(201);
    // The trader's account made a challenge account of that template (what a paid challenge does, without the chain).
    const t = await s.trader();
    const em = s.orm.em.fork();
    em.create(PropAccount, {
      id: `pa-${t.accountId}`,
      tenantId: s.tenant.id,
      firmId,
      templateId: template.body.id,
      accountId: t.accountId!,
      ownerId: t.ownerId,
      status: 'active',
      startingBalanceUsd: '10000',
      peakEquityUsd: '10000',
      dayStartEquityUsd: '10000',
    });
    await em.flush();
    const tick = await recordedTick('ETH.PAPER', 0.5);
    await publish(s.orm, tick);
    const order = (qty: string) => ({
      accountId: t.accountId,
      venue: 'paper',
      symbol: 'ETH.PAPER',
      side: 'buy',
      type: 'market',
      qty,
    });
    const big = await s.call('POST', '/api/v1/oms/intents', { token: t.token, body: order('0.1') });
    expect(big).toMatchObject({ status: 400, body: { error: 'risk_limit_exceeded' } });
    expect(big.body.detail).toContain('50');
    expect(tick.mark.times('0.01').lt(50)).toBe(true);
    expect((await s.call('POST', '/api/v1/oms/intents', { token: t.token, body: order('0.01') })).status).toBe(201);
    // Another trader's account is no challenge account: the same order is not refused.
    const plain = await s.trader();
    const same = { ...order('0.1'), accountId: plain.accountId };
    expect((await s.call('POST', '/api/v1/oms/intents', { token: plain.token, body: same })).status).toBe(201);
  });

  it('risk profiles and trading groups: CRUD, and a group in use cannot be deleted', async () => {
    const rp = await s.call('POST', '/api/v1/risk-profiles', {
      token: tokens.prop,
      body: { name: 'Tight', maxOrderNotionalUsd: '1000' },
    });
    expect(rp).toMatchObject({
      status: 201,
      body: { name: 'Tight', maxOrderNotionalUsd: '1000', maxPositionNotionalUsd: null },
    });
    expect(
      (
        await s.call('PUT', `/api/v1/risk-profiles/${rp.body.id}`, {
          token: tokens.prop,
          body: { name: 'Tight', maxOrderNotionalUsd: '2000', maxPositionNotionalUsd: '5000' },
        })
      ).body,
    ).toMatchObject({ maxOrderNotionalUsd: '2000', maxPositionNotionalUsd: '5000' });
    const tg = await s.call('POST', '/api/v1/trading-groups', {
      token: tokens.prop,
      body: { name: 'Low leverage', leverageCaps: { paper: 2 } },
    });
    expect(tg).toMatchObject({ status: 201, body: { leverageCaps: { paper: 2 } } });
    await s.call('POST', '/api/v1/prop-templates', {
      token: tokens.prop,
      body: {
        firmId,
        name: 'Grouped',
        ...STANDARD_TERMS,
        tradingGroupId: tg.body.id,
        riskProfileId: rp.body.id,
      },
    });
    expect(await s.call('DELETE', `/api/v1/trading-groups/${tg.body.id}`, { token: tokens.prop })).toMatchObject({
      status: 409,
      body: { error: 'invalid_state' },
    });
    expect(await s.call('GET', '/api/v1/trading-groups/tg_missing', { token: tokens.prop })).toMatchObject({
      status: 404,
      body: { error: 'trading_group_not_found' },
    });
    const spare = await s.call('POST', '/api/v1/risk-profiles', { token: tokens.prop, body: { name: 'Spare' } });
    expect((await s.call('DELETE', `/api/v1/risk-profiles/${spare.body.id}`, { token: tokens.prop })).body).toEqual({
      id: spare.body.id,
      deleted: true,
    });
  });

  it('revoking an operator credential drops its cached scopes at once: the next operator request is refused', async () => {
    const op = await operator(['firm:operate']);
    expect((await s.call('GET', '/api/v1/firms', { token: op.token })).status).toBe(200); // now cached
    await revokeCredential(s.orm, s.tenant.id, op.credentialId);
    const refused = await (async () => {
      for (let i = 0; i < 40; i++) {
        const res = await s.call('GET', '/api/v1/firms', { token: op.token });
        if (res.status !== 200) return res;
        await new Promise((r) => setTimeout(r, 25));
      }
      return null;
    })();
    expect(refused).toMatchObject({ status: 401, body: { error: 'credential_revoked' } });
  });
});

/**
 * The challenge catalogue (issue 21 item 2; docs/api.md §4.8 "Traders' side of the prop firm"):
 * `GET /api/v1/prop/offers` shows a trader what it can buy before it buys: every template of its
 * tenant's live firms with the terms and where the price is paid, and nothing of a draft or paused firm,
 * an archived template or another tenant. On anvil, with firms deployed and taken live through the API.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureTenant, issueCredential } from '../../db/seed.js';
import { startStack, type Stack } from '../support/stack.js';
import { chainEnv, draftFirm, goLive, STARTER_TERMS, type TestFirm } from '../support/prop-firm.js';

/** A second template's terms, with a decimal price. */
const PRO_TERMS = {
  name: 'Pro 50k',
  priceUsd: '250.5',
  accountSizeUsd: '50000',
  profitTargetPct: '0.1',
  maxDailyLossPct: '0.04',
  maxDrawdownPct: '0.08',
  minTradingDays: 5,
  payoutSplitPct: '0.9',
};

describe('the challenge catalogue', () => {
  const rpcUrl = inject('chainRpcUrl');
  let s: Stack;
  let op: string;
  let trader: string;
  let groupId: string;
  let live: TestFirm;
  let draft: TestFirm;
  let firmOnChain: { rulesHash: string; chainId: number };
  const other = { slug: '', token: '', firm: undefined as TestFirm | undefined };

  const offers = (query = '', token = trader, slug?: string) =>
    s.call('GET', `/api/v1/prop/offers${query}`, { token, headers: slug ? { 'x-tenant-slug': slug } : {} });
  const names = async (query = '') => (await offers(query)).body.data.map((o: { name: string }) => o.name);

  beforeAll(async () => {
    s = await startStack({ env: await chainEnv(rpcUrl) });
    op = (await s.operator(['firm:operate', 'prop:manage'])).token;
    trader = (await s.trader()).token;
    const group = await s.call('POST', '/api/v1/trading-groups', {
      token: op,
      body: { name: 'Pro leverage', leverageCaps: { paper: 5 } },
    });
    groupId = group.body.id;
    live = await draftFirm(s, {
      token: op,
      rpcUrl,
      name: 'Anvil Capital',
      templates: [STARTER_TERMS, { ...PRO_TERMS, tradingGroupId: groupId }, { ...STARTER_TERMS, name: 'Withdrawn' }],
    });
    expect((await s.call('DELETE', `/api/v1/prop-templates/${live.templateIds[2]}`, { token: op })).status).toBe(200);
    live = await goLive(s, live, { token: op });
    firmOnChain = (await s.call('GET', `/api/v1/firms/${live.firmId}`, { token: op })).body;
    draft = await draftFirm(s, { token: op, rpcUrl, name: 'Draft Capital', templates: [STARTER_TERMS] });

    // Another tenant with a live firm of its own.
    other.slug = `o-${s.tenant.slug.slice(2)}`;
    const tenant = await ensureTenant(s.orm, {
      slug: other.slug,
      displayName: 'Other',
      origins: [],
      plan: { propFirm: true },
    });
    const otherOp = (await s.operator(['firm:operate', 'prop:manage'], tenant.id)).token;
    const opts = { token: otherOp, slug: other.slug };
    other.firm = await goLive(
      s,
      await draftFirm(s, { ...opts, rpcUrl, name: 'Other Capital', templates: [{ ...STARTER_TERMS, name: 'Theirs' }] }),
      opts,
    );
    const cred = await issueCredential(s.orm, { tenantId: tenant.id, audience: 'trader', tier: 'fullTrading' });
    other.token = (
      await s.call('POST', '/api/auth/api-token', { body: { apiKey: cred.apiKey, apiSecret: cred.apiSecret } })
    ).body.token;
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('a trader sees every template of its live firm with the terms and where to pay, newest first, and nothing else', async () => {
    const res = await offers();
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const payment = { chainId: firmOnChain.chainId, stablecoin: live.stablecoin, instance: live.instance };
    /** The offer of template `i`: exactly the terms the operator set, where to pay and the committed rules. */
    const offer = (i: number, { name, ...terms }: typeof PRO_TERMS, amountUnits: string) => ({
      templateId: live.templateIds[i],
      firmId: live.firmId,
      firmName: 'Anvil Capital',
      name,
      ...terms,
      venue: 'paper',
      rulesHash: firmOnChain.rulesHash,
      payment: { ...payment, amountUnits },
      createdAt: expect.any(String),
    });
    expect(res.body).toEqual({
      data: [offer(1, PRO_TERMS, '250500000'), offer(0, STARTER_TERMS, '100000000')],
      nextCursor: null,
      hasMore: false,
    });
    // The operator's fields stay on the operator's surface (GET /api/v1/prop-templates).
    expect(JSON.stringify(res.body)).not.toContain(groupId);
    for (const shown of res.body.data)
      for (const field of ['tradingGroupId', 'riskProfileId', 'archived', 'id'])
        expect(shown).not.toHaveProperty(field);
  });

  it('pages with a cursor and narrows to one firm; a draft firm offers nothing', async () => {
    const first = await offers('?limit=1');
    expect(first.body).toMatchObject({ data: [{ name: 'Pro 50k' }], hasMore: true });
    const second = await offers(`?limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(second.body).toMatchObject({ data: [{ name: 'Starter 10k' }], hasMore: false, nextCursor: null });
    expect(await names(`?firmId=${live.firmId}`)).toEqual(['Pro 50k', 'Starter 10k']);
    expect(await names(`?firmId=${draft.firmId}`)).toEqual([]);
    expect(await names(`?firmId=${other.firm!.firmId}`)).toEqual([]);
    expect((await offers('?cursor=forged')).body).toMatchObject({ error: 'invalid_cursor' });
  });

  it('an offer is what the buy sells, at the price and into the instance it shows', async () => {
    const [offer] = (await offers()).body.data;
    const bought = await s.call('POST', '/api/v1/prop/challenges', {
      token: trader,
      body: { templateId: offer.templateId },
    });
    expect(bought.status, JSON.stringify(bought.body)).toBe(201);
    expect(bought.body).toMatchObject({
      templateId: offer.templateId,
      firmId: offer.firmId,
      status: 'pending_payment',
      startingBalanceUsd: offer.accountSizeUsd,
      deposit: {
        chainId: offer.payment.chainId,
        instance: offer.payment.instance,
        stablecoin: offer.payment.stablecoin,
        amountUsd: offer.priceUsd,
        amountUnits: offer.payment.amountUnits,
      },
    });
    // What the catalogue leaves out cannot be bought: the draft firm's template.
    expect(
      await s.call('POST', '/api/v1/prop/challenges', { token: trader, body: { templateId: draft.templateIds[0] } }),
    ).toMatchObject({ status: 409, body: { error: 'firm_not_live' } });
  });

  it('a paused firm offers nothing until it is live again', async () => {
    const status = (to: 'pause' | 'live') => s.call('POST', `/api/v1/firms/${live.firmId}/${to}`, { token: op });
    expect((await status('pause')).status).toBe(200);
    expect(await names()).toEqual([]);
    expect((await status('live')).status).toBe(200);
    expect(await names()).toEqual(['Pro 50k', 'Starter 10k']);
  });

  it("each tenant's traders see their own tenant's offers only", async () => {
    const theirs = await offers('', other.token, other.slug);
    expect(theirs.status, JSON.stringify(theirs.body)).toBe(200);
    expect(theirs.body.data).toEqual([expect.objectContaining({ name: 'Theirs', firmName: 'Other Capital' })]);
    expect(await names()).not.toContain('Theirs');
  });

  it('needs a trader: none is 401, an operator 403', async () => {
    expect(await s.call('GET', '/api/v1/prop/offers')).toMatchObject({ status: 401, body: { error: 'unauthorized' } });
    expect(await offers('', op)).toMatchObject({ status: 403, body: { error: 'wrong_credential_audience' } });
  });
});

/**
 * A tenant's configuration obeyed and labels that are true (issue 17 items 2 and 6; docs/api.md §2.4, §4.2,
 * §7.2): `venues.enabled` and `venues.symbols` decide what `/venues`, `/symbols/{venue}`, compose, smart
 * routing and market data offer; the plan's account limit, webhooks and prop firm are enforced with named
 * errors; the `smartRouting` and `propFirm` flags switch their features; the venue catalogue lists only
 * market types that have a symbol; discovery lists every route of the route table.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { Account, OrderIntent, WebhookEndpoint } from '../../db/entities.js';
import { scoped } from '../../db/orm.js';
import { ensureTenant, issueCredential } from '../../db/seed.js';
import { addAgent } from '../support/agents.js';
import { publishQuote } from '../support/marks.js';
import { signInWithSmartRouting } from '../support/siwe.js';
import { startStack, UNREACHABLE_VENUES, type Stack } from '../support/stack.js';
import { openRisk } from '../support/ws.js';

describe('tenant configuration obeyed', () => {
  let s: Stack;
  let trader: Awaited<ReturnType<Stack['trader']>>;
  let config: string;

  beforeAll(async () => {
    // Routed dispatches fail at once and never reach a venue.
    s = await startStack({ env: UNREACHABLE_VENUES });
    trader = await s.trader('fullTrading', { executionMode: 'routed' });
    config = (await s.operator(['tenant:config'])).token;
  });
  afterAll(async () => {
    await s?.stop();
  });

  const get = (path: string, token = trader.token) => s.call('GET', path, { token });
  const put = (section: string, body: unknown) =>
    s.call('PUT', `/api/v1/tenants/${s.tenant.id}/${section}`, { token: config, body });
  const refusal = (res: { status: number; body: { error?: string } }) => [res.status, res.body?.error];

  it('the venue catalogue lists only venues and market types that have a symbol', async () => {
    const { venues } = (await get('/api/v1/venues')).body;
    expect(venues.map((v: { slug: string }) => v.slug)).toEqual(['hyperliquid', 'aster', 'polymarket', 'kalshi']);
    for (const v of venues) {
      const symbols = (await get(`/api/v1/symbols/${v.slug}`)).body.symbols as { assetClass: string }[];
      expect(symbols.length, v.slug).toBeGreaterThan(0);
      expect(v.assetClasses, v.slug).toEqual([...new Set(symbols.map((x) => x.assetClass))]);
      expect(v.wired).toBe(true);
    }
    expect(venues.find((v: { slug: string }) => v.slug === 'hyperliquid').assetClasses).toEqual(['perp']);
  });

  describe('a tenant with a restricted venue set', () => {
    beforeAll(async () => {
      const res = await put('venues', {
        enabled: ['paper', 'hyperliquid', 'polymarket'],
        symbols: { hyperliquid: ['BTC.HL', 'ETH.HL'], polymarket: ['TRUMP-INAUGURATED-YES.PM', '511754-YES.PM'] },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    });

    it('sees only its venues and symbols in /venues and /symbols', async () => {
      const { venues } = (await get('/api/v1/venues')).body;
      expect(venues.map((v: { slug: string }) => v.slug)).toEqual(['hyperliquid', 'polymarket']);
      const symbols = async (venue: string) =>
        (await get(`/api/v1/symbols/${venue}`)).body.symbols.map((x: { symbol: string }) => x.symbol);
      expect(await symbols('hyperliquid')).toEqual(['BTC.HL', 'ETH.HL']);
      expect(await symbols('polymarket')).toEqual(['TRUMP-INAUGURATED-YES.PM']);
      expect(await symbols('paper')).toEqual(['BTC.PAPER', 'ETH.PAPER', 'SOL.PAPER']);
      expect(refusal(await get('/api/v1/symbols/aster'))).toEqual([403, 'venue_not_enabled']);
      expect(refusal(await get('/api/v1/symbols/kalshi'))).toEqual([403, 'venue_not_enabled']);
      expect(refusal(await get('/api/v1/symbols/b3'))).toEqual([404, 'not_found']);
    });

    it('compose refuses a venue or symbol it does not offer, with the code, and writes nothing', async () => {
      const em = scoped(s.orm, s.tenant.id);
      const before = await em.count(OrderIntent, { credentialId: trader.credentialId });
      const compose = (venue: string, symbol: string) =>
        s.call('POST', '/api/v1/oms/intents', {
          token: trader.token,
          body: { venue, symbol, side: 'buy', type: 'market', qty: '0.01' },
        });
      const disabled = await compose('aster', 'BTC.ASTER');
      expect(refusal(disabled)).toEqual([403, 'venue_not_enabled']);
      expect(disabled.body.detail).toMatch(/GET \/api\/v1\/venues/);
      expect(refusal(await compose('hyperliquid', 'SOL.HL'))).toEqual([403, 'symbol_not_enabled']);
      // An offered pair passes the tenant's check and meets the next one (this account has no agent).
      expect(refusal(await compose('hyperliquid', 'BTC.HL'))).toEqual([403, 'credential_missing_agent_wallet']);
      expect(await em.count(OrderIntent, { credentialId: trader.credentialId })).toBe(before);
    });

    it('market data refuses a venue or symbol it does not offer and serves one it does', async () => {
      expect(refusal(await get('/api/v1/market/quotes/aster/BTC.ASTER'))).toEqual([403, 'venue_not_enabled']);
      expect(refusal(await get('/api/v1/market/quotes/hyperliquid/SOL.HL'))).toEqual([403, 'symbol_not_enabled']);
      expect(refusal(await get('/api/v1/market/depth/hyperliquid/SOL.HL'))).toEqual([403, 'symbol_not_enabled']);
      expect(refusal(await get('/api/v1/market/depth/aster/BTC.ASTER/grouped'))).toEqual([403, 'venue_not_enabled']);
      expect(refusal(await get('/api/v1/market/tape/kalshi/PRES-2024-DJT-YES.KX'))).toEqual([403, 'venue_not_enabled']);
      expect(refusal(await get('/api/v1/market/candles/hyperliquid/SOL.HL?interval=1h'))).toEqual([
        403,
        'symbol_not_enabled',
      ]);
      const compute = await s.call('POST', '/api/v1/indicators/compute', {
        token: trader.token,
        body: { venue: 'aster', symbol: 'BTC.ASTER', interval: '1h', indicators: [{ id: 'e', name: 'ema' }] },
      });
      expect(refusal(compute)).toEqual([403, 'venue_not_enabled']);

      const candles = await get('/api/v1/market/candles/hyperliquid/BTC.HL?interval=1h&limit=5');
      expect(candles.status, JSON.stringify(candles.body)).toBe(200);
      const markets = (await get('/api/v1/market/polymarket/markets')).body.markets;
      expect(markets.flatMap((m: { outcomes: { symbol: string }[] }) => m.outcomes.map((o) => o.symbol))).toEqual([
        '511754-YES.PM',
      ]);
    });

    it('/ws/quotes and /ws/market on the tenant refuse a pair it does not offer; without a tenant every pair is served', async () => {
      const wsBase = s.api.baseUrl.replace('http', 'ws');
      const ask = async (channel: string, headers: Record<string, string>, topics: string[]) => {
        const ws = await openRisk(`${wsBase}/ws/${channel}`, headers);
        ws.send({ type: 'Subscribe', topics });
        const result = await ws.next((f) => f.type === 'Result');
        ws.close();
        return [result.ok, result.error ?? result.topics];
      };
      const tenant = { 'x-tenant-slug': s.tenant.slug };
      expect(await ask('quotes', tenant, ['paper:BTC.PAPER', 'aster:BTC.ASTER'])).toEqual([false, 'venue_not_enabled']);
      expect(await ask('quotes', tenant, ['hyperliquid:SOL.HL'])).toEqual([false, 'symbol_not_enabled']);
      expect(await ask('quotes', tenant, ['hyperliquid:BTC.HL'])).toEqual([true, ['hyperliquid:BTC.HL']]);
      expect(await ask('market', tenant, ['trades:hyperliquid:SOL.HL'])).toEqual([false, 'symbol_not_enabled']);
      expect(await ask('market', tenant, ['trades:hyperliquid:ETH.HL'])).toEqual([true, ['trades:hyperliquid:ETH.HL']]);
      // No tenant named: the platform tenant, which offers every venue.
      expect(await ask('quotes', {}, ['aster:BTC.ASTER'])).toEqual([true, ['aster:BTC.ASTER']]);
    });
  });

  describe('smart order routing', () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    let cookie: Record<string, string>;

    /** The recorded tick of `symbol` on `venue`, every ask moved up by `askMarkup` (a dearer book), stamped now. */
    const quote = (venue: 'hyperliquid' | 'aster', symbol: string, askMarkup = '0') =>
      publishQuote(s.orm, venue, symbol, askMarkup);
    const route = async () => {
      // Hyperliquid's asks 0.5 % dearer: wherever Aster is a candidate, it is the cheaper venue.
      await quote('hyperliquid', 'BTC.HL', '0.005');
      await quote('aster', 'BTC.ASTER');
      return s.call('POST', '/api/v1/oms/route-intents', {
        headers: cookie,
        body: { asset: 'BTC', side: 'buy', qty: '0.01', type: 'market' },
      });
    };
    const venuesOf = (candidates: { venue: string }[]) => candidates.map((c) => c.venue);

    beforeAll(async () => {
      for (const venue of ['hyperliquid', 'aster'])
        await addAgent(s.orm, s.tenant.id, trader.accountId!, venue, wallet.address);
      cookie = await signInWithSmartRouting(s, wallet, trader.accountId!);
    });

    it('ignores a venue the tenant does not enable, and routes to it once enabled', async () => {
      const without = await route();
      expect(without.status, JSON.stringify(without.body)).toBe(201);
      expect(without.body.decision).toMatchObject({ selectedVenue: 'hyperliquid', selectedSymbol: 'BTC.HL' });
      expect(venuesOf(without.body.decision.candidates)).toEqual(['hyperliquid', 'polymarket']);

      await put('venues', { enabled: ['paper', 'hyperliquid', 'aster', 'polymarket'] });
      const withAster = await route();
      expect(withAster.status, JSON.stringify(withAster.body)).toBe(201);
      expect(withAster.body.decision).toMatchObject({ selectedVenue: 'aster', selectedSymbol: 'BTC.ASTER' });
      expect(venuesOf(withAster.body.decision.candidates)).toEqual(['hyperliquid', 'aster', 'polymarket']);
    });

    it('does not list a symbol outside the venue’s list', async () => {
      await put('venues', { enabled: ['paper', 'hyperliquid', 'polymarket'], symbols: { hyperliquid: ['ETH.HL'] } });
      const res = await route();
      expect(refusal(res)).toEqual([400, 'asset_unknown']);
      expect(res.body.candidates).toEqual([
        { venue: 'hyperliquid', symbol: null, eligible: false, reason: 'asset_not_listed' },
        { venue: 'polymarket', symbol: null, eligible: false, reason: 'asset_not_listed' },
      ]);
    });

    it('is switched off by the smartRouting flag', async () => {
      await put('venues', {});
      await put('flags', { smartRouting: false });
      try {
        const off = await route();
        expect(refusal(off)).toEqual([403, 'feature_disabled']);
        expect(off.body.flag).toBe('smartRouting');
      } finally {
        await put('flags', {});
      }
      expect((await route()).status).toBe(201);
    });
  });

  it('the propFirm flag switches the challenge catalogue and its purchase; /api/features shows the flags', async () => {
    expect((await get('/api/v1/prop/offers')).status).toBe(200);
    expect((await s.call('GET', '/api/features')).body).toEqual({ smartRouting: true, propFirm: true });
    await put('flags', { propFirm: false, beta: true });
    try {
      expect((await s.call('GET', '/api/features')).body).toEqual({ smartRouting: true, propFirm: false, beta: true });
      expect(refusal(await get('/api/v1/prop/offers'))).toEqual([403, 'feature_disabled']);
      const buy = await s.call('POST', '/api/v1/prop/challenges', {
        token: trader.token,
        body: { templateId: 'tpl_unknown' },
      });
      expect(refusal(buy)).toEqual([403, 'feature_disabled']);
    } finally {
      await put('flags', {});
    }
    expect((await get('/api/v1/prop/offers')).status).toBe(200);
  });

  describe("the plan's limits", () => {
    let tenant: { id: string; slug: string };
    const headers = () => ({ 'x-tenant-slug': tenant.slug });
    const mint = async (cred: { apiKey: string; apiSecret: string }) =>
      (
        await s.call('POST', '/api/auth/api-token', {
          headers: headers(),
          body: { apiKey: cred.apiKey, apiSecret: cred.apiSecret },
        })
      ).body.token as string;

    beforeAll(async () => {
      tenant = await ensureTenant(s.orm, {
        slug: `plan-${s.tenant.slug.slice(2)}`,
        displayName: 'Small plan',
        origins: [],
        plan: { maxAccounts: 4, webhooks: false },
      });
    });

    it('refuses the account past maxAccounts, counting concurrent creations exactly', async () => {
      const owner = await issueCredential(s.orm, { tenantId: tenant.id, audience: 'trader', tier: 'fullTrading' });
      const token = await mint(owner);
      const open = (path = '/api/v1/accounts') =>
        s.call('POST', path, { token, headers: headers(), body: { name: 'more' } });
      expect((await open()).status).toBe(201); // 2 of 4
      const answers = await Promise.all([open(), open(), open(), open()]);
      expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 409, 409]);
      const refused = answers.find((a) => a.status === 409)!;
      expect(refused.body).toMatchObject({ error: 'plan_limit_reached', limit: 'maxAccounts', max: 4, held: 4 });
      expect(refusal(await open('/api/v1/sandbox/paper-account'))).toEqual([409, 'plan_limit_reached']);
      expect(await scoped(s.orm, tenant.id).count(Account, {})).toBe(4);
    });

    it('refuses webhooks, firms and the challenge catalogue the plan does not include', async () => {
      const op = await mint(
        await issueCredential(s.orm, {
          tenantId: tenant.id,
          audience: 'operator',
          scopes: ['tenant:config', 'firm:operate'],
        }),
      );
      const hook = await s.call('POST', '/api/v1/webhooks', {
        token: op,
        headers: headers(),
        body: { url: 'http://127.0.0.1:9/hook' },
      });
      expect(refusal(hook)).toEqual([403, 'plan_feature_unavailable']);
      expect(hook.body).toMatchObject({ feature: 'webhooks', plan: 'starter' });
      expect(await scoped(s.orm, tenant.id).count(WebhookEndpoint, {})).toBe(0);

      const firm = await s.call('POST', '/api/v1/firms', {
        token: op,
        headers: headers(),
        body: {
          name: 'Not in the plan',
          ownerAddress: '0x000000000000000000000000000000000000dEaD',
          stablecoinAddress: '0x000000000000000000000000000000000000bEEF',
          chainId: 31337,
        },
      });
      expect(refusal(firm)).toEqual([403, 'plan_feature_unavailable']);
      expect((await s.call('GET', '/api/v1/firms', { token: op, headers: headers() })).body.data).toEqual([]);

      const reader = await mint(
        await issueCredential(s.orm, { tenantId: tenant.id, audience: 'trader', tier: 'readonly', account: false }),
      );
      expect(refusal(await s.call('GET', '/api/v1/prop/offers', { token: reader, headers: headers() }))).toEqual([
        403,
        'plan_feature_unavailable',
      ]);
    });
  });

  it('discovery lists every route of the route table with its access', async () => {
    const catalog = (await (await fetch(`${s.api.baseUrl}/api/v1/discovery`)).json()) as {
      endpoints: {
        method: string;
        path: string;
        auth: boolean;
        audience: string | null;
        tier: string | null;
        scope: string | null;
      }[];
    };
    const openapi = (await (await fetch(`${s.api.baseUrl}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { security?: unknown[] }>>;
    };
    const operations = Object.entries(openapi.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    const listed = catalog.endpoints.map((e) => `${e.method} ${e.path}`);
    expect(listed.length).toBe(operations.length);
    expect(new Set(listed).size).toBe(listed.length);
    expect([...listed].sort()).toEqual([...operations].sort());

    const entry = (key: string) => catalog.endpoints.find((e) => `${e.method} ${e.path}` === key);
    expect(entry('POST /api/v1/oms/intents')).toMatchObject({ auth: true, audience: 'trader', tier: 'fullTrading' });
    expect(entry('POST /api/v1/oms/route-intents')).toMatchObject({ audience: 'trader', tier: 'fullTrading' });
    expect(entry('GET /api/v1/market/quotes/{venue}/{symbol}')).toMatchObject({ auth: true, audience: 'trader' });
    expect(entry('GET /api/v1/reports/orders')).toMatchObject({ auth: true, audience: 'trader' });
    expect(entry('POST /api/v1/webhooks')).toMatchObject({ audience: 'operator', scope: 'tenant:config' });
    expect(entry('GET /api/v1/tenants/me')).toMatchObject({ auth: true, audience: 'any' });
    expect(entry('GET /api/v1/discovery')).toMatchObject({ auth: false, audience: null, tier: null });
    // The tenant reads need a caller, and the OpenAPI document now says so.
    expect(openapi.paths['/api/v1/tenants/me'].get.security).toBeUndefined();
  });
});

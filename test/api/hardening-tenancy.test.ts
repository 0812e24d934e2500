/**
 * Issue 16, tenancy hardening, one regression per item; every refusal is checked for its status, its
 * `error` code and that nothing was written:
 * - 8: a host belongs to one tenant (`409 origin_taken`, also between concurrent claims and for a
 *   writer that bypasses the API: the database's unique `tenant_origin_hosts.host` holds it);
 * - 9: an account a trader opens itself stays in its trading group (else the tenant's default), and
 *   its deposit follows the tenant's deposit policy;
 * - 10: a tenant cannot write its own plan (`403 plan_change_forbidden`);
 * - 11: a credential of a suspended tenant is refused even when the request names another tenant;
 * - 15 (second half): account `settings` takes only its documented keys.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { Account, AccountBalance, Tenant } from '../../db/entities.js';
import { platformEm, scoped } from '../../db/orm.js';
import { createTradingGroup, ensureTenant, issueCredential } from '../../db/seed.js';
import { startStack, type Stack } from '../support/stack.js';

describe('tenancy hardening (issue 16: 8, 9, 10, 11, 15)', () => {
  let s: Stack;
  const sfx = randomBytes(4).toString('hex');

  beforeAll(async () => {
    s = await startStack({ worker: false });
  });
  afterAll(async () => s?.stop());

  /** A bearer for `cred`. */
  const mint = async (cred: { apiKey: string; apiSecret: string }) => {
    const res = await s.call('POST', '/api/auth/api-token', {
      body: { apiKey: cred.apiKey, apiSecret: cred.apiSecret },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.token as string;
  };
  const configOperator = async (tenantId: string) =>
    mint(await issueCredential(s.orm, { tenantId, audience: 'operator', scopes: ['tenant:config'] }));
  const tenantRow = (id: string) => platformEm(s.orm).findOneOrFail(Tenant, { id });
  const hostOwners = (host: string) =>
    platformEm(s.orm)
      .getConnection()
      .execute<{ tenant_id: string }[]>('select tenant_id from tenant_origin_hosts where host = ?', [host]);

  describe('8: an origin (host) belongs to one tenant', () => {
    it('a host another tenant registered is 409 origin_taken, whatever the scheme; nothing is written', async () => {
      const other = await ensureTenant(s.orm, { slug: `h8-other-${sfx}`, displayName: 'Other', origins: [] });
      const [mine, theirs] = [await configOperator(s.tenant.id), await configOperator(other.id)];
      const origin = `https://trade-${sfx}.h8.test`;
      const put = (token: string, id: string, slug: string, origins: string[]) =>
        s.call('PUT', `/api/v1/tenants/${id}/origins`, {
          token,
          headers: { 'x-tenant-slug': slug },
          body: { origins },
        });

      expect(await put(mine, s.tenant.id, s.tenant.slug, [origin])).toMatchObject({
        status: 200,
        body: { origins: [origin] },
      });
      const before = (await tenantRow(other.id)).origins;
      for (const claim of [origin, `http://trade-${sfx}.h8.test`, `HTTPS://TRADE-${sfx.toUpperCase()}.h8.test:443`]) {
        const res = await put(theirs, other.id, other.slug, [`https://own-${sfx}.h8.test`, claim]);
        expect(res.status, claim).toBe(409);
        expect(res.body.error).toBe('origin_taken');
        expect(res.body.detail).toEqual([expect.objectContaining({ path: 'body.origins', code: 'origin_taken' })]);
        expect((await tenantRow(other.id)).origins).toEqual(before);
        expect(await hostOwners(`own-${sfx}.h8.test`)).toEqual([]);
      }
      // Resolution by Origin finds the one owner; re-sending one's own origins is fine.
      const branding = await fetch(`${s.api.baseUrl}/api/branding`, { headers: { origin } });
      expect(((await branding.json()) as { displayName: string }).displayName).toBe(`Tenant ${s.tenant.slug.slice(2)}`);
      expect((await put(mine, s.tenant.id, s.tenant.slug, [origin])).status).toBe(200);
      expect(await hostOwners(`trade-${sfx}.h8.test`)).toEqual([{ tenant_id: s.tenant.id }]);
    });

    it('concurrent claims of one new host: exactly one wins, the other is 409', async () => {
      for (let round = 0; round < 4; round++) {
        const a = await ensureTenant(s.orm, { slug: `h8-a${round}-${sfx}`, displayName: 'A', origins: [] });
        const b = await ensureTenant(s.orm, { slug: `h8-b${round}-${sfx}`, displayName: 'B', origins: [] });
        const [ta, tb] = [await configOperator(a.id), await configOperator(b.id)];
        const origins = [`https://race${round}-${sfx}.h8.test`];
        const claim = (token: string, t: { id: string; slug: string }) =>
          s.call('PUT', `/api/v1/tenants/${t.id}/origins`, {
            token,
            headers: { 'x-tenant-slug': t.slug },
            body: { origins },
          });
        const results = await Promise.all([claim(ta, a), claim(tb, b)]);
        expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
        expect(results.find((r) => r.status === 409)?.body.error).toBe('origin_taken');
        const winner = results[0].status === 200 ? a : b;
        const loser = winner === a ? b : a;
        expect(await hostOwners(`race${round}-${sfx}.h8.test`)).toEqual([{ tenant_id: winner.id }]);
        expect((await tenantRow(loser.id)).origins).toEqual([]);
      }
    });

    it('the database refuses a taken host from any writer, not only the route', async () => {
      const origin = `https://direct-${sfx}.h8.test`;
      await ensureTenant(s.orm, { slug: `h8-first-${sfx}`, displayName: 'First', origins: [origin] });
      await expect(
        ensureTenant(s.orm, { slug: `h8-second-${sfx}`, displayName: 'Second', origins: [origin] }),
      ).rejects.toThrow(/tenant_origin_hosts/);
      expect(await platformEm(s.orm).count(Tenant, { slug: `h8-second-${sfx}` })).toBe(0);
    });
  });

  describe('9: self-opened accounts stay under the tenant’s rules', () => {
    const compose = (token: string, accountId: string, leverage: number) =>
      s.call('POST', '/api/v1/oms/intents', {
        token,
        body: { venue: 'paper', symbol: 'BTC.PAPER', side: 'buy', type: 'market', qty: '0.01', leverage, accountId },
      });
    const accountsOf = (ownerId: string) => scoped(s.orm, s.tenant.id).count(Account, { ownerId });

    it('a new account joins the trading group of the credential’s account: leverage 35 is refused on both', async () => {
      const group = await createTradingGroup(s.orm, s.tenant.id, 'capped-20', { paper: 20 });
      const cred = await issueCredential(s.orm, {
        tenantId: s.tenant.id,
        audience: 'trader',
        account: { tradingGroupId: group.id },
      });
      const token = await mint(cred);
      expect(await compose(token, cred.accountId!, 35)).toMatchObject({
        status: 400,
        body: { error: 'leverage_above_cap', cap: 20, requested: 35 },
      });
      const created = await s.call('POST', '/api/v1/accounts', { token, body: { name: 'second' } });
      expect(created).toMatchObject({ status: 201, body: { tradingGroupId: group.id } });
      expect(await compose(token, created.body.accountId, 35)).toMatchObject({
        status: 400,
        body: { error: 'leverage_above_cap', cap: 20, requested: 35 },
      });
      const sandbox = await s.call('POST', '/api/v1/sandbox/paper-account', { token, body: { name: 'third' } });
      expect(sandbox).toMatchObject({ status: 201, body: { tradingGroupId: group.id } });
    });

    it('a deposit above the tenant’s policy is 400 deposit_above_limit and writes nothing; the policy’s default applies', async () => {
      const t = await s.trader();
      const before = await accountsOf(t.ownerId);
      for (const path of ['/api/v1/accounts', '/api/v1/sandbox/paper-account']) {
        const res = await s.call('POST', path, {
          token: t.token,
          body: { name: 'rich', initialDepositUsd: '1000000.01' },
        });
        expect(res.status, path).toBe(400);
        expect(res.body).toMatchObject({
          error: 'validation_failed',
          detail: [{ path: 'body.initialDepositUsd', code: 'deposit_above_limit' }],
        });
      }
      expect(await accountsOf(t.ownerId)).toBe(before);
      const atMax = await s.call('POST', '/api/v1/accounts', {
        token: t.token,
        body: { initialDepositUsd: '1000000' },
      });
      expect(atMax.status).toBe(201);

      // The tenant sets its own policy and default group (tenant:config); a trader without a group gets it.
      const op = await configOperator(s.tenant.id);
      const group = await createTradingGroup(s.orm, s.tenant.id, 'tenant-default', { paper: 10 });
      const unknownGroup = await s.call('PUT', `/api/v1/tenants/${s.tenant.id}/accounts`, {
        token: op,
        body: { defaultTradingGroupId: 'tg_nope' },
      });
      expect(unknownGroup).toMatchObject({ status: 404, body: { error: 'trading_group_not_found' } });
      expect((await tenantRow(s.tenant.id)).accounts).toEqual({});
      expect(
        (
          await s.call('PUT', `/api/v1/tenants/${s.tenant.id}/accounts`, {
            token: op,
            body: { deposit: { defaultUsd: '5000', maxUsd: '1000000001' } },
          })
        ).status,
      ).toBe(400);
      const policy = await s.call('PUT', `/api/v1/tenants/${s.tenant.id}/accounts`, {
        token: op,
        body: { defaultTradingGroupId: group.id, deposit: { defaultUsd: '5000', maxUsd: '10000' } },
      });
      expect(policy).toMatchObject({
        status: 200,
        body: { defaultTradingGroupId: group.id, deposit: { defaultUsd: '5000', maxUsd: '10000' } },
      });
      const plain = await s.call('POST', '/api/v1/accounts', { token: t.token, body: {} });
      expect(plain).toMatchObject({ status: 201, body: { tradingGroupId: group.id } });
      const balance = await scoped(s.orm, s.tenant.id).findOneOrFail(AccountBalance, {
        accountId: plain.body.accountId,
        venue: 'paper',
      });
      expect(balance.balanceUsd).toBe('5000');
      expect(await compose(t.token, plain.body.accountId, 11)).toMatchObject({
        status: 400,
        body: { error: 'leverage_above_cap', cap: 10 },
      });
      const n = await accountsOf(t.ownerId);
      expect(
        await s.call('POST', '/api/v1/accounts', { token: t.token, body: { initialDepositUsd: '10000.5' } }),
      ).toMatchObject({ status: 400, body: { error: 'validation_failed' } });
      expect(await accountsOf(t.ownerId)).toBe(n);
    });
  });

  it('10: a tenant cannot change its own plan: 403 plan_change_forbidden, nothing written', async () => {
    const op = await configOperator(s.tenant.id);
    const before = (await tenantRow(s.tenant.id)).plan;
    for (const body of [{ name: 'enterprise', maxAccounts: 1000000, propFirm: true }, { name: 'nope' }, {}]) {
      const res = await s.call('PUT', `/api/v1/tenants/${s.tenant.id}/plan`, { token: op, body });
      expect(res.status, JSON.stringify(body)).toBe(403);
      expect(res.body.error).toBe('plan_change_forbidden');
    }
    expect((await tenantRow(s.tenant.id)).plan).toEqual(before);
    expect(await s.call('GET', `/api/v1/tenants/${s.tenant.id}/plan`, { token: op })).toMatchObject({
      status: 200,
      body: { name: 'starter' },
    });
  });

  it("11: a suspended tenant's credential is refused when the request names another tenant; nothing is written", async () => {
    const frozen = await ensureTenant(s.orm, { slug: `h8-frozen-${sfx}`, displayName: 'Frozen', origins: [] });
    const trader = await issueCredential(s.orm, { tenantId: frozen.id, audience: 'trader' });
    const operator = await issueCredential(s.orm, {
      tenantId: frozen.id,
      audience: 'operator',
      scopes: ['tenant:config'],
    });
    const [traderToken, opToken] = [await mint(trader), await mint(operator)];
    const em = platformEm(s.orm);
    const row = await em.findOneOrFail(Tenant, { id: frozen.id });
    row.suspended = true;
    await em.flush();
    try {
      const elsewhere = { 'x-tenant-slug': s.tenant.slug };
      const accountsBefore = await scoped(s.orm, frozen.id).count(Account, { ownerId: trader.ownerId });
      const calls: [string, string, string, unknown?][] = [
        ['GET', '/api/v1/accounts', traderToken],
        ['POST', '/api/v1/accounts', traderToken, { name: 'escape' }],
        ['POST', '/api/auth/bootstrap', traderToken],
        ['PUT', `/api/v1/tenants/${frozen.id}/flags`, opToken, { escaped: true }],
      ];
      for (const [method, path, token, body] of calls) {
        const res = await s.call(method, path, { token, headers: elsewhere, body });
        expect(res.status, `${method} ${path}`).toBe(410);
        expect(res.body.error).toBe('tenant_suspended');
      }
      expect(await scoped(s.orm, frozen.id).count(Account, { ownerId: trader.ownerId })).toBe(accountsBefore);
      expect((await tenantRow(frozen.id)).flags).toEqual({});
      expect(
        await s.call('POST', '/api/auth/api-token', { body: { apiKey: trader.apiKey, apiSecret: trader.apiSecret } }),
      ).toMatchObject({ status: 410, body: { error: 'tenant_suspended' } });
      // Bootstrap with the key and secret in the body, naming the active tenant: no handshake tokens.
      expect(
        await s.call('POST', '/api/auth/bootstrap', {
          headers: elsewhere,
          body: { apiKey: trader.apiKey, apiSecret: trader.apiSecret },
        }),
      ).toMatchObject({ status: 410, body: { error: 'tenant_suspended' } });
    } finally {
      row.suspended = false;
      await em.flush();
    }
    // Active again: the same token works from anywhere it worked before.
    expect((await s.call('GET', '/api/v1/accounts', { token: traderToken })).status).toBe(200);
  });

  it('15: account settings take only the documented keys (400 on another), nothing written', async () => {
    const t = await s.trader();
    const path = `/api/v1/accounts/${t.accountId}`;
    for (const settings of [{ smartRouting: true, isAdmin: true }, { __proto__x: 1 }, { tier: 'fullTrading' }]) {
      const res = await s.call('PATCH', path, { token: t.token, body: { name: 'renamed', settings } });
      expect(res.status, JSON.stringify(settings)).toBe(400);
      expect(res.body.error).toBe('validation_failed');
      expect(res.body.detail).toEqual([expect.objectContaining({ path: 'body.settings', code: 'unrecognized_keys' })]);
    }
    const stored = await scoped(s.orm, s.tenant.id).findOneOrFail(Account, { id: t.accountId! });
    expect([stored.name, stored.settings]).toEqual(['Paper account', {}]);
    expect(await s.call('PATCH', path, { token: t.token, body: { settings: { smartRouting: true } } })).toMatchObject({
      status: 200,
      body: { settings: { smartRouting: true } },
    });
  });
});

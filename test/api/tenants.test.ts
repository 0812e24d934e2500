/**
 * White-label tenants (issue 7, part; docs/api.md §2.4, §3.4, §4.1, §4.2, §5.6): signup → the mailed
 * token → verify → the operator credential works; slug rules and conflicts; tenant configuration
 * read by everyone of the tenant, written only with `tenant:config`; the unversioned public reads
 * resolved from the slug or a registered white-label host; a suspended tenant answers 410.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Tenant } from '../../db/entities.js';
import { platformEm } from '../../db/orm.js';
import { startStack, type Stack } from '../support/stack.js';

describe('tenants', () => {
  let s: Stack;
  let mailDir: string;
  const slug = `acme-${Date.now().toString(36)}`;

  beforeAll(async () => {
    mailDir = await mkdtemp(path.join(tmpdir(), 'mail-'));
    s = await startStack({ env: { MAIL_DIR: mailDir } });
  });
  afterAll(async () => {
    await s?.stop();
    await rm(mailDir, { recursive: true, force: true });
  });

  const mailTo = async (to: string, subject: RegExp) => {
    for (const f of await readdir(mailDir)) {
      const text = await readFile(path.join(mailDir, f), 'utf8');
      if (text.includes(`To: ${to}`) && subject.test(text)) return text;
    }
    return null;
  };

  it('signs up, mails a token, verifies into a tenant whose operator credential works; slugs are checked', async () => {
    const bad = await s.call('POST', '/api/public/tenants/signup', { body: { email: 'ops@acme.test', slug: 'Api' } });
    expect(bad.status).toBe(400);
    expect(
      (await s.call('POST', '/api/public/tenants/signup', { body: { email: 'ops@acme.test', slug: 'admin' } })).body
        .detail[0].message,
    ).toMatch(/reserved/);
    expect(
      await s.call('POST', '/api/public/tenants/signup', { body: { email: 'ops@acme.test', slug: s.tenant.slug } }),
    ).toMatchObject({ status: 409, body: { error: 'slug_taken' } });

    const pending = await s.call('POST', '/api/public/tenants/signup', { body: { email: 'ops@acme.test', slug } });
    expect(pending).toMatchObject({ status: 202, body: { slug, status: 'pending_verification' } });
    expect(
      await s.call('POST', '/api/public/tenants/signup', { body: { email: 'other@acme.test', slug } }),
    ).toMatchObject({ status: 409, body: { error: 'slug_taken' } });
    const mail = await mailTo('ops@acme.test', /Subject: Verify/);
    const token = /"token":"([A-Za-z0-9_-]+)"/.exec(mail ?? '')?.[1];
    expect(token).toBeTruthy();
    expect(await s.call('POST', '/api/public/tenants/verify', { body: { token: `${token}x` } })).toMatchObject({
      status: 400,
      body: { error: 'signup_token_invalid' },
    });

    const verified = await s.call('POST', '/api/public/tenants/verify', { body: { token } });
    expect(verified).toMatchObject({
      status: 201,
      body: {
        tenant: { slug },
        adminInvite: { email: 'ops@acme.test', role: 'admin' },
        operator: { scopes: ['firm:operate', 'prop:manage'] },
      },
    });
    expect(await s.call('POST', '/api/public/tenants/verify', { body: { token } })).toMatchObject({
      status: 400,
      body: { error: 'signup_token_invalid' },
    });
    const inviteMail = await mailTo('ops@acme.test', /Subject: You are the admin/);
    const inviteToken = /Admin invite token: ([A-Za-z0-9_-]+)/.exec(inviteMail ?? '')?.[1];
    const admin = await s.call('POST', '/api/public/tenants/invites/accept', { body: { token: inviteToken } });
    expect(admin).toMatchObject({
      status: 201,
      body: { tenant: { slug }, operator: { scopes: expect.arrayContaining(['tenant:config']) } },
    });
    expect((await s.call('POST', '/api/public/tenants/invites/accept', { body: { token: inviteToken } })).status).toBe(
      400,
    );
    const adminToken = (
      await s.call('POST', '/api/auth/api-token', {
        body: { apiKey: admin.body.operator.apiKey, apiSecret: admin.body.operator.apiSecret },
      })
    ).body.token;
    expect(
      (
        await s.call('PUT', `/api/v1/tenants/${verified.body.tenant.id}/flags`, {
          token: adminToken,
          headers: { 'x-tenant-slug': slug },
          body: { beta: true },
        })
      ).body,
    ).toEqual({ smartRouting: true, propFirm: true, beta: true }); // the platform's flags filled in (default on)

    const minted = await s.call('POST', '/api/auth/api-token', {
      body: { apiKey: verified.body.operator.apiKey, apiSecret: verified.body.operator.apiSecret },
    });
    expect(minted.status).toBe(200);
    const firms = await s.call('GET', '/api/v1/firms', {
      token: minted.body.token,
      headers: { 'x-tenant-slug': slug },
    });
    expect(firms).toMatchObject({ status: 200, body: { data: [] } });
    const me = await s.call('GET', '/api/v1/tenants/me', {
      token: minted.body.token,
      headers: { 'x-tenant-slug': slug },
    });
    expect(me.body).toMatchObject({
      id: verified.body.tenant.id,
      slug,
      theme: { defaultMode: 'dark', radiusPx: 6 },
      plan: { name: 'starter' },
    });
  });

  it('configuration: everyone of the tenant reads it, only tenant:config writes it; public reads follow the slug or a registered host', async () => {
    const trader = await s.trader();
    const op = (await s.operator(['tenant:config'])).token;
    const firmOp = (await s.operator(['firm:operate'])).token;
    const id = s.tenant.id;
    const theme = {
      light: { primary: '#ff6600' },
      dark: { primary: '#ffaa00', background: '#000000' },
      typography: { fontFamily: 'IBM Plex Sans', baseSizePx: 15 },
      radiusPx: 2,
      defaultMode: 'light',
    };

    expect(await s.call('PUT', `/api/v1/tenants/${id}/theme`, { token: trader.token, body: theme })).toMatchObject({
      status: 403,
      body: { error: 'wrong_credential_audience' },
    });
    expect(await s.call('PUT', `/api/v1/tenants/${id}/theme`, { token: firmOp, body: theme })).toMatchObject({
      status: 403,
      body: { error: 'forbidden' },
    });
    expect(
      (await s.call('PUT', `/api/v1/tenants/${id}/theme`, { token: op, body: { ...theme, radiusPx: 99 } })).status,
    ).toBe(400);
    const put = await s.call('PUT', `/api/v1/tenants/${id}/theme`, { token: op, body: theme });
    expect(put.body).toMatchObject({
      light: { primary: '#ff6600', background: '#ffffff' },
      dark: { primary: '#ffaa00', background: '#000000' },
      radiusPx: 2,
      defaultMode: 'light',
    });
    expect((await s.call('GET', `/api/v1/tenants/${id}/theme`, { token: trader.token })).body.light.primary).toBe(
      '#ff6600',
    );
    await s.call('PUT', `/api/v1/tenants/${id}/branding`, {
      token: op,
      body: { displayName: 'Acme Trade', supportEmail: 'help@acme.test', logoUrl: 'https://acme.test/logo.svg' },
    });
    await s.call('PUT', `/api/v1/tenants/${id}/flags`, { token: op, body: { smartRouting: true, propFirm: false } });
    expect(await s.call('GET', `/api/v1/tenants/ten_other/branding`, { token: trader.token })).toMatchObject({
      status: 403,
      body: { error: 'forbidden' },
    });

    // Unversioned, no credential: by slug, and by a registered white-label host.
    expect((await s.call('GET', '/api/branding')).body).toMatchObject({
      displayName: 'Acme Trade',
      supportEmail: 'help@acme.test',
    });
    expect((await s.call('GET', '/api/features')).body).toEqual({ smartRouting: true, propFirm: false });
    expect(
      (
        await s.call('PUT', `/api/v1/tenants/${id}/origins`, {
          token: op,
          body: { origins: ['https://trade.acme-white.test', 'not an origin'] },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await s.call('PUT', `/api/v1/tenants/${id}/origins`, {
          token: op,
          body: { origins: ['https://trade.acme-white.test'] },
        })
      ).body,
    ).toEqual({ origins: ['https://trade.acme-white.test'] });
    const byHost = await fetch(`${s.api.baseUrl}/api/theme`, { headers: { origin: 'https://trade.acme-white.test' } });
    expect(((await byHost.json()) as { light: { primary: string } }).light.primary).toBe('#ff6600');
  });

  it('a suspended tenant still resolves and answers 410 tenant_suspended', async () => {
    const em = platformEm(s.orm);
    const t = await em.findOneOrFail(Tenant, { id: s.tenant.id });
    t.suspended = true;
    await em.flush();
    try {
      expect(await s.call('GET', '/api/branding')).toMatchObject({ status: 410, body: { error: 'tenant_suspended' } });
    } finally {
      t.suspended = false;
      await em.flush();
    }
  });
});

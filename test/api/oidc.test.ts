/**
 * Social sign-in (issue 22; docs/api.md §5.1 "Social sign-in") against a real OpenID provider (simulators/oidc.ts:
 * oidc-provider, real RS256 ID tokens and JWKS), the whole redirect flow driven by a cookie-keeping fetch browser
 * (test/support/oidc.ts): the start redirect (PKCE S256, state, nonce), the provider's sign-in page, the callback and
 * the `service_session` cookie; the hostile cases — a forged state, a state from another browser, a replayed callback,
 * a replayed code, a wrong nonce, an expired ID token, a token of another issuer, a foreign signature, a provider
 * that is down, a person cancelling at the provider — each refused with its code and nothing written: a state no
 * login started as the JSON error, any other refusal as a redirect back to the page with `?signin_error=<code>` (what
 * a person in a browser sees); the join policies; the email magic link (single
 * use, 15 minutes, through the mail outbox); linking a wallet (SIWE) and an email to a trader, listing and removing
 * identities.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { platformEm } from '../../db/orm.js';
import { startStack, type Stack } from '../support/stack.js';
import { siwe } from '../support/siwe.js';
import { TestBrowser, addProvider, startTestProvider, TEST_CLIENT, type Hop } from '../support/oidc.js';
import type { RunningOidcProvider } from '../../simulators/oidc.js';

describe('OpenID Connect sign-in per tenant', () => {
  let s: Stack;
  let idp: RunningOidcProvider;
  let op: string;
  const conn = () => platformEm(s.orm).getConnection();
  const count = async (table: string, where = 'true', params: unknown[] = []) =>
    Number((await conn().execute<{ n: string }[]>(`select count(*) as n from ${table} where ${where}`, params))[0].n);

  beforeAll(async () => {
    s = await startStack({
      worker: false,
      env: { OIDC_ALLOW_INSECURE: 'true', MAIL_DIR: mkdtempSync(path.join(os.tmpdir(), 'oidc-mail-')) },
    });
    idp = await startTestProvider(s, ['demo', 'partner', 'invite', 'down-later']);
    op = (await s.operator(['tenant:config'])).token;
    await addProvider(s, op, { slug: 'demo', issuer: idp.issuer });
  });
  afterAll(async () => {
    await idp?.stop();
    await s?.stop();
  });

  it('the operator configures providers; the secret is sealed and never shown; bad definitions are refused', async () => {
    const list = await s.call('GET', '/api/v1/sign-in/providers', { token: op });
    expect(list.status).toBe(200);
    expect(list.body.data[0]).toMatchObject({
      slug: 'demo',
      kind: 'oidc',
      issuer: idp.issuer,
      clientId: TEST_CLIENT.clientId,
      hasClientSecret: true,
      scopes: ['openid', 'email', 'profile'],
      startPath: '/api/auth/oidc/demo/start',
    });
    const [row] = await conn().execute<{ sealed_client_secret: string }[]>(
      `select sealed_client_secret from signin_providers where tenant_id = ? and slug = 'demo'`,
      [s.tenant.id],
    );
    expect(row.sealed_client_secret).toMatch(/^test1\./);
    expect(row.sealed_client_secret).not.toContain(TEST_CLIENT.clientSecret);

    const noClient = await s.call('POST', '/api/v1/sign-in/providers', {
      token: op,
      body: { slug: 'broken', kind: 'oidc', displayName: 'Broken', issuer: idp.issuer, joinPolicy: 'open' },
    });
    expect([noClient.status, noClient.body.error, noClient.body.detail[0].path]).toEqual([
      400,
      'validation_failed',
      'body.clientId',
    ]);
    const again = await s.call('POST', '/api/v1/sign-in/providers', {
      token: op,
      body: { slug: 'demo', kind: 'oidc', displayName: 'Again', issuer: idp.issuer, clientId: 'x', joinPolicy: 'open' },
    });
    expect([again.status, again.body.error]).toEqual([409, 'signin_provider_exists']);
    expect(await count('signin_providers', 'tenant_id = ?', [s.tenant.id])).toBe(1);

    const trader = await s.trader();
    const refused = await s.call('GET', '/api/v1/sign-in/providers', { token: trader.token });
    expect(refused.status).toBe(403);
    const options = await s.call('GET', '/api/auth/providers');
    expect(options.body).toEqual({
      providers: [{ slug: 'demo', kind: 'oidc', displayName: 'Provider demo', startPath: '/api/auth/oidc/demo/start' }],
    });
  });

  it('start redirects to the provider with state, nonce and a S256 code challenge, the state bound to the browser', async () => {
    const b = new TestBrowser(s);
    const start = await b.request('GET', `${s.api.baseUrl}/api/auth/oidc/demo/start?returnTo=/trade`);
    expect(start.status).toBe(302);
    const to = new URL(start.location!);
    expect(`${to.origin}`).toBe(idp.issuer);
    const q = to.searchParams;
    expect(q.get('client_id')).toBe(TEST_CLIENT.clientId);
    expect(q.get('response_type')).toBe('code');
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(q.get('nonce')).toMatch(/^[\w-]{20,}$/);
    expect(q.get('redirect_uri')).toBe(`${s.api.baseUrl}/api/auth/oidc/demo/callback`);
    expect(b.cookie(s.api.baseUrl, 'service_oidc_state')).toBe(q.get('state'));

    const offsite = await b.request('GET', `${s.api.baseUrl}/api/auth/oidc/demo/start?returnTo=//evil.example/`);
    expect([offsite.status, offsite.body.error]).toEqual([400, 'validation_failed']);
    const unknown = await b.request('GET', `${s.api.baseUrl}/api/auth/oidc/nope/start`);
    expect([unknown.status, unknown.body.error]).toEqual([404, 'signin_provider_not_found']);
  });

  it('the first sign-in creates the trader and its default account; the next one signs the same trader in', async () => {
    const b = new TestBrowser(s);
    const back = await b.signIn('demo', 'alice', '?returnTo=/trade');
    expect([back.status, back.location]).toEqual([302, `${s.api.baseUrl}/trade`]);
    const cookie = b.sessionHeaders();
    const accounts = await s.call('GET', '/api/v1/accounts', { headers: cookie });
    expect(accounts.status).toBe(200);
    expect(accounts.body.accounts).toHaveLength(1);
    const ids = await s.call('GET', '/api/auth/identities', { headers: cookie });
    expect(ids.body.identities).toEqual([
      expect.objectContaining({ kind: 'oidc', issuer: idp.issuer, subject: 'alice', email: 'alice@partner.test' }),
    ]);
    // The session acts as a trader: no operator surface.
    expect((await s.call('GET', '/api/v1/sign-in/providers', { headers: cookie })).status).toBe(403);

    const again = new TestBrowser(s);
    expect((await again.signIn('demo', 'alice')).status).toBe(302);
    const secondCookie = again.sessionHeaders();
    const second = await s.call('GET', '/api/v1/accounts', { headers: secondCookie });
    expect(second.body.accounts.map((a: { accountId: string }) => a.accountId)).toEqual(
      accounts.body.accounts.map((a: { accountId: string }) => a.accountId),
    );
    expect(await count('trader_identities', 'tenant_id = ? and subject = ?', [s.tenant.id, 'alice'])).toBe(1);

    const out = await again.request('POST', `${s.api.baseUrl}/api/auth/oidc/logout`);
    expect(out.body).toEqual({ ok: true });
    expect(again.cookie(s.api.baseUrl, 'service_session')).toBeUndefined();
    const after = await s.call('GET', '/api/v1/accounts', { headers: secondCookie });
    expect(after.status).toBe(401);
  });

  /** What a refused callback must leave: no session, no identity of `user`. */
  async function nothingWritten(b: TestBrowser, user: string) {
    expect(b.cookie(s.api.baseUrl, 'service_session')).toBeUndefined();
    expect(await count('trader_identities', 'tenant_id = ? and subject = ?', [s.tenant.id, user])).toBe(0);
  }

  /** A refused browser sign-in: `302` back to `page` (the login's `returnTo`) with `signin_error=<code>`. */
  function backWithError(hop: Hop, page: string, code: string) {
    expect([hop.status, hop.location], JSON.stringify(hop.body)).toEqual([
      302,
      `${s.api.baseUrl}${page}?signin_error=${code}`,
    ]);
  }

  it('a forged state answers 401 oidc_state_invalid; a state of another browser and a replayed callback go back to the page with it', async () => {
    const b = new TestBrowser(s);
    const callback = new URL(await b.authorize('demo', 'eve', '?returnTo=/trade'));
    const forged = new URL(callback);
    forged.searchParams.set('state', 'forged-state-value');
    const r1 = await b.request('GET', forged.href);
    expect([r1.status, r1.body.error]).toEqual([401, 'oidc_state_invalid']);
    await nothingWritten(b, 'eve');

    const other = new TestBrowser(s); // a victim's browser handed the attacker's callback: no state cookie
    backWithError(await other.request('GET', callback.href), '/trade', 'oidc_state_invalid');
    await nothingWritten(other, 'eve');

    const b2 = new TestBrowser(s);
    const ok = await b2.authorize('demo', 'frank');
    const state = new URL(ok).searchParams.get('state')!;
    expect((await b2.request('GET', ok)).status).toBe(302);
    b2.setCookie(s.api.baseUrl, 'service_oidc_state', state);
    b2.setCookie(s.api.baseUrl, 'service_session', undefined);
    backWithError(await b2.request('GET', ok), '/', 'oidc_state_invalid');
    expect(b2.cookie(s.api.baseUrl, 'service_session')).toBeUndefined();
  });

  it('a person who cancels at the provider goes back to the page with oidc_authorization_denied', async () => {
    const b = new TestBrowser(s);
    const callback = new URL(await b.cancel('demo', '?returnTo=/trade'));
    expect(callback.searchParams.get('error')).toBe('access_denied');
    backWithError(await b.request('GET', callback.href), '/trade', 'oidc_authorization_denied');
    expect(b.cookie(s.api.baseUrl, 'service_session')).toBeUndefined();
    expect(b.cookie(s.api.baseUrl, 'service_oidc_state')).toBeUndefined();
  });

  it('a replayed code is refused by the provider (oidc_code_invalid)', async () => {
    const b = new TestBrowser(s);
    const first = new URL(await b.authorize('demo', 'carol'));
    expect((await b.request('GET', first.href)).status).toBe(302);
    const sessions = await count('sessions', 'tenant_id = ?', [s.tenant.id]);

    const attacker = new TestBrowser(s);
    const fresh = new URL(await attacker.authorize('demo', 'eve'));
    fresh.searchParams.set('code', first.searchParams.get('code')!);
    backWithError(await attacker.request('GET', fresh.href), '/', 'oidc_code_invalid');
    expect(await count('sessions', 'tenant_id = ?', [s.tenant.id])).toBe(sessions);
  });

  const hostile: [string, Parameters<RunningOidcProvider['tamper']>[0]][] = [
    ['a wrong nonce', { claims: (c) => ({ ...c, nonce: 'not-the-nonce' }) }],
    [
      'an expired ID token',
      {
        claims: (c) => ({ ...c, iat: Math.floor(Date.now() / 1000) - 7200, exp: Math.floor(Date.now() / 1000) - 3600 }),
      },
    ],
    ['a token of another issuer', { claims: (c) => ({ ...c, iss: 'http://127.0.0.1:9/other-issuer' }) }],
    ['another audience', { claims: (c) => ({ ...c, aud: 'some-other-client' }) }],
    ['a signature by a key the provider does not publish', { claims: (c) => c, signWith: 'foreign' }],
  ];
  it.each(hostile)('%s is refused (oidc_id_token_invalid) and nothing is written', async (_, tamper) => {
    const b = new TestBrowser(s);
    const callback = await b.authorize('demo', 'eve');
    idp.tamper(tamper);
    try {
      backWithError(await b.request('GET', callback), '/', 'oidc_id_token_invalid');
    } finally {
      idp.tamper(null);
    }
    await nothingWritten(b, 'eve');
  });

  it('a provider that is down answers 502 oidc_provider_unavailable at start; at the callback the page is told', async () => {
    await addProvider(s, op, { slug: 'nowhere', issuer: 'http://127.0.0.1:9' });
    const b = new TestBrowser(s);
    const res = await b.request('GET', `${s.api.baseUrl}/api/auth/oidc/nowhere/start`);
    expect([res.status, res.body.error]).toEqual([502, 'oidc_provider_unavailable']);
    expect(
      await count(
        'signin_transactions',
        'tenant_id = ? and provider_id in (select id from signin_providers where slug = ?)',
        [s.tenant.id, 'nowhere'],
      ),
    ).toBe(0);

    const later = await startTestProvider(s, ['down-later']);
    await addProvider(s, op, { slug: 'down-later', issuer: later.issuer });
    const callback = await b.authorize('down-later', 'eve');
    await later.stop();
    backWithError(await b.request('GET', callback), '/', 'oidc_provider_unavailable');
    await nothingWritten(b, 'eve');
  });

  it('join policies: email domains, then invitations', async () => {
    await addProvider(s, op, {
      slug: 'partner',
      issuer: idp.issuer,
      joinPolicy: 'email_domains',
      emailDomains: ['partner.test'],
    });
    const grace = new TestBrowser(s);
    backWithError(await grace.signIn('partner', 'grace', '?returnTo=/trade'), '/trade', 'signin_not_allowed');
    await nothingWritten(grace, 'grace');
    backWithError(await new TestBrowser(s).signIn('partner', 'mallory'), '/', 'signin_not_allowed');

    await addProvider(s, op, { slug: 'invite', issuer: idp.issuer, joinPolicy: 'invite_only' });
    backWithError(await new TestBrowser(s).signIn('invite', 'grace'), '/', 'signin_not_allowed');
    const existing = await s.trader();
    const invite = await s.call('POST', '/api/v1/sign-in/invites', {
      token: op,
      body: { email: 'Grace@Elsewhere.test', ownerId: existing.ownerId },
    });
    expect([invite.status, invite.body.email]).toEqual([201, 'grace@elsewhere.test']);
    const b = new TestBrowser(s);
    expect((await b.signIn('invite', 'grace')).status).toBe(302);
    const accounts = await s.call('GET', '/api/v1/accounts', { headers: b.sessionHeaders() });
    expect(accounts.body.accounts.map((a: { accountId: string }) => a.accountId)).toEqual([existing.accountId]);
  });

  it('email magic link: mailed through the outbox, single use, 15 minutes', async () => {
    const email = await s.call('POST', '/api/v1/sign-in/providers', {
      token: op,
      body: { slug: 'email', kind: 'email', displayName: 'Email', joinPolicy: 'open' },
    });
    expect(email.status).toBe(201);
    const b = new TestBrowser(s);
    const sent = await b.request('POST', `${s.api.baseUrl}/api/auth/email/start`, {
      json: { email: 'Dana@Mail.test', returnTo: '/trade' },
    });
    expect([sent.status, sent.body.sent]).toEqual([202, true]);
    expect(Date.parse(sent.body.expiresAt) - Date.now()).toBeGreaterThan(14 * 60_000);
    const link = await mailedLink('dana@mail.test');
    const used = await b.request('GET', link);
    expect([used.status, used.location]).toEqual([302, `${s.api.baseUrl}/trade`]);
    expect((await s.call('GET', '/api/v1/accounts', { headers: b.sessionHeaders() })).body.accounts).toHaveLength(1);
    const again = new TestBrowser(s);
    backWithError(await again.request('GET', link), '/trade', 'magic_link_invalid');
    expect(again.cookie(s.api.baseUrl, 'service_session')).toBeUndefined();

    await b.request('POST', `${s.api.baseUrl}/api/auth/email/start`, { json: { email: 'dana@mail.test' } });
    const late = await mailedLink('dana@mail.test');
    await conn().execute(`update magic_links set expires_at = now() - interval '1 second' where used_at is null`);
    backWithError(await new TestBrowser(s).request('GET', late), '/', 'magic_link_invalid');

    // A token no link was mailed with has no page to go back to: the JSON error.
    const forged = new URL(late);
    forged.searchParams.set('token', 'not-a-mailed-token');
    const unknown = await new TestBrowser(s).request('GET', forged.href);
    expect([unknown.status, unknown.body.error]).toEqual([401, 'magic_link_invalid']);
  });

  /** The newest link mailed to `to` (from the outbox). */
  async function mailedLink(to: string): Promise<string> {
    const [mail] = await conn().execute<{ body: string }[]>(
      `select body from mail_outbox where to_address = ? order by created_at desc limit 1`,
      [to],
    );
    return /(http\S+\/api\/auth\/email\/verify\?token=\S+)/.exec(mail.body)![1];
  }

  it('a signed-in trader links a wallet and an email, lists and removes its identities', async () => {
    const b = new TestBrowser(s);
    expect((await b.signIn('demo', 'alice')).status).toBe(302);
    const cookie = b.sessionHeaders();
    const [owner] = await conn().execute<{ owner_id: string }[]>(
      `select owner_id from trader_identities where tenant_id = ? and subject = 'alice'`,
      [s.tenant.id],
    );

    const wallet = privateKeyToAccount(generatePrivateKey());
    const linked = await s.call('POST', '/api/auth/identities/wallet', {
      headers: cookie,
      body: await siwe(s, wallet),
    });
    expect([linked.status, linked.body.kind, linked.body.subject]).toEqual([
      201,
      'wallet',
      wallet.address.toLowerCase(),
    ]);
    // The wallet now signs in with SIWE as the same trader.
    const viaWallet = await s.call('POST', '/api/auth/siwe/verify', { body: await siwe(s, wallet) });
    expect(viaWallet.status, JSON.stringify(viaWallet.body)).toBe(200);
    const accounts = await s.call('GET', '/api/v1/accounts', { headers: cookie });
    expect(viaWallet.body.accountId).toBe(accounts.body.accounts[0].accountId);

    // Another trader cannot take the wallet.
    const other = new TestBrowser(s);
    expect((await other.signIn('demo', 'carol')).status).toBe(302);
    const taken = await s.call('POST', '/api/auth/identities/wallet', {
      headers: other.sessionHeaders(),
      body: await siwe(s, wallet),
    });
    expect([taken.status, taken.body.error]).toEqual([409, 'identity_linked_elsewhere']);

    const mail = await b.request('POST', `${s.api.baseUrl}/api/auth/email/start`, {
      json: { email: 'alice.private@mail.test', link: true },
    });
    expect(mail.status).toBe(202);
    const linkedMail = await b.request('GET', await mailedLink('alice.private@mail.test'));
    expect(linkedMail.status).toBe(302);

    const list = await s.call('GET', '/api/auth/identities', { headers: cookie });
    expect(list.body.identities.map((i: { kind: string }) => i.kind)).toEqual(['oidc', 'wallet', 'email']);
    const mailIdentity = list.body.identities[2];
    const [{ n }] = await conn().execute<{ n: string }[]>(
      `select count(*) as n from trader_identities where owner_id = ?`,
      [owner.owner_id],
    );
    expect(Number(n)).toBe(3);

    // Remove the social identity: the session it opened ends; the wallet's SIWE session goes on.
    const oidcIdentity = list.body.identities[0];
    const removed = await s.call('DELETE', `/api/auth/identities/${oidcIdentity.id}`, { headers: cookie });
    expect(removed.body).toEqual({ ok: true });
    expect((await s.call('GET', '/api/auth/identities', { headers: cookie })).status).toBe(401);
    const walletCookie = { cookie: viaWallet.headers.getSetCookie()[0].split(';')[0] };
    const rest = await s.call('GET', '/api/auth/identities', { headers: walletCookie });
    expect(rest.body.identities.map((i: { kind: string }) => i.kind)).toEqual(['wallet', 'email']);
    const unknown = await s.call('DELETE', `/api/auth/identities/${oidcIdentity.id}`, { headers: walletCookie });
    expect([unknown.status, unknown.body.error]).toEqual([404, 'identity_not_found']);
    expect((await s.call('DELETE', `/api/auth/identities/${mailIdentity.id}`, { headers: walletCookie })).status).toBe(
      200,
    );
    const walletIdentity = rest.body.identities[0];
    const last = await s.call('DELETE', `/api/auth/identities/${walletIdentity.id}`, { headers: walletCookie });
    expect([last.status, last.body.error]).toEqual([409, 'identity_last']);
  });
});

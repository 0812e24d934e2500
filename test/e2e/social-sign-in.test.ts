/**
 * Social sign-in on the branded page (issue 22; docs/api.md §5.1 "Social sign-in") end to end in headless Chromium
 * (Debian's `chromium`, driven by playwright-core), against the real stack and a real OpenID provider
 * (simulators/oidc.ts: oidc-provider with its own sign-in page, a button per user). A tenant on its own host
 * (`http://<slug>.localhost:<port>`, a registered origin) gets a provider from its operator through
 * `POST /api/v1/sign-in/providers`; a person opens the page, presses "Sign in with Partner ID", chooses a user on the
 * provider's page and lands back on the branded page signed in, with the `service_session` cookie that then works for
 * trader API calls. A person who presses Cancel at the provider lands back on the page with the reason shown and no
 * session. Screenshots are kept in `.data/artifacts/social-sign-in/`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ensureTenant } from '../../db/seed.js';
import { buildWeb } from '../../scripts/lib/web-build.js';
import type { RunningOidcProvider } from '../../simulators/oidc.js';
import { startStack, type Stack } from '../support/stack.js';
import { addProvider, startTestProvider, TEST_USERS } from '../support/oidc.js';
import { CHROMIUM, CHROMIUM_ARGS as BASE_ARGS } from '../support/chromium.js';

const ARTIFACTS = path.resolve(import.meta.dirname, '../../.data/artifacts/social-sign-in');
/** The shared flags, and `*.localhost` (the tenant's host) resolved to this machine. */
const CHROMIUM_ARGS = [...BASE_ARGS, '--host-resolver-rules=MAP *.localhost 127.0.0.1'];
/** The provider's slug and the name its button shows. */
const PROVIDER = { slug: 'partner-id', displayName: 'Partner ID' };

describe('social sign-in on the branded page in headless Chromium', () => {
  let s: Stack;
  let idp: RunningOidcProvider;
  let browser: Browser;
  let tenant: { id: string; slug: string; url: string };
  const contexts: BrowserContext[] = [];

  /** A fresh browser profile (own cookies) on the tenant's page, signed out. */
  async function open(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${tenant.url}/`);
    await page.getByTestId('brand').waitFor();
    return { context, page };
  }

  /** Presses the provider's button on the page and waits for the provider's own sign-in page. */
  async function toProvider(page: Page): Promise<void> {
    await page.getByRole('button', { name: `Sign in with ${PROVIDER.displayName}` }).click();
    await page.waitForURL((u) => u.href.startsWith(`${idp.issuer}/interaction/`));
    expect(await page.title()).toBe('Demo ID: sign in');
  }

  /** The `service_session` cookie the browser holds for the tenant's host, if any. */
  const sessionCookie = async (context: BrowserContext) =>
    (await context.cookies(tenant.url)).find((c) => c.name === 'service_session');
  const shot = (page: Page, name: string) =>
    page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    await buildWeb({ quiet: true });
    s = await startStack({ worker: false, env: { OIDC_ALLOW_INSECURE: 'true' } });
    const port = new URL(s.api.baseUrl).port;
    const slug = `social-${randomBytes(4).toString('hex')}`;
    const url = `http://${slug}.localhost:${port}`;
    const row = await ensureTenant(s.orm, { slug, displayName: 'Social Exchange', origins: [url] });
    tenant = { id: row.id, slug, url };
    // The browser starts on the tenant's origin, so the API registers the callback there.
    idp = await startTestProvider(s, [PROVIDER.slug], TEST_USERS, url);
    const op = (await s.operator(['tenant:config'], tenant.id)).token;
    await addProvider(s, op, { ...PROVIDER, issuer: idp.issuer, tenantSlug: slug });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await idp?.stop();
    await s?.stop();
  });

  it('a person signs in with the provider, lands back signed in, and the cookie works for the trader API', async () => {
    const { context, page } = await open();
    expect(await page.getByTestId('brand').textContent()).toBe('Social Exchange');
    await toProvider(page);
    await shot(page, 'provider-sign-in-page');
    await page.getByRole('button', { name: /^Continue as Alice/ }).click();

    // Back on the branded page, signed in: the header names the account and who signed in.
    await page.waitForURL(`${tenant.url}/`);
    await expect.poll(() => page.getByTestId('signed-in-as').textContent()).toContain(TEST_USERS.alice.email);
    expect(await page.getByRole('region', { name: 'Sign in' }).count()).toBe(0);
    await shot(page, 'signed-in');

    const cookie = await sessionCookie(context);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect((await context.cookies(tenant.url)).map((c) => c.name)).not.toContain('service_oidc_state');

    // The same cookie is a trader session on the API: the trader's one account, the one the page shows.
    const headers = { cookie: `service_session=${cookie!.value}`, 'x-tenant-slug': tenant.slug };
    const accounts = await s.call('GET', '/api/v1/accounts', { headers });
    expect(accounts.status, JSON.stringify(accounts.body)).toBe(200);
    expect(accounts.body.accounts).toHaveLength(1);
    const shown = await page.getByTestId('signed-in-as').textContent();
    expect(shown).toBe(`${accounts.body.accounts[0].name} · ${TEST_USERS.alice.email}`);
    const identities = await s.call('GET', '/api/auth/identities', { headers });
    expect(identities.body.identities).toEqual([
      expect.objectContaining({ kind: 'oidc', issuer: idp.issuer, subject: 'alice', email: TEST_USERS.alice.email }),
    ]);

    // A reload keeps the session; Sign out ends it on the API too.
    await page.reload();
    await expect.poll(() => page.getByTestId('signed-in-as').textContent()).toBe(shown);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: `Sign in with ${PROVIDER.displayName}` }).waitFor();
    expect((await s.call('GET', '/api/v1/accounts', { headers })).status).toBe(401);
  });

  it('a person who cancels at the provider lands back on the page, told why, and not signed in', async () => {
    const { context, page } = await open();
    await toProvider(page);
    const back = page.waitForURL(`${tenant.url}/?signin_error=oidc_authorization_denied`);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await back;

    const alert = page.getByRole('region', { name: 'Sign in' }).getByRole('alert');
    await expect
      .poll(() => alert.textContent())
      .toBe('oidc_authorization_denied: the sign-in was cancelled or refused at the provider.');
    // The reason is dropped from the address bar; the buttons are there to try again.
    await expect.poll(() => page.url()).toBe(`${tenant.url}/`);
    expect(await page.getByRole('button', { name: `Sign in with ${PROVIDER.displayName}` }).isEnabled()).toBe(true);
    expect(await page.getByTestId('signed-in-as').count()).toBe(0);
    expect(await sessionCookie(context)).toBeUndefined();
    await shot(page, 'cancelled');

    // Trying again from there signs in.
    await toProvider(page);
    await page.getByRole('button', { name: /^Continue as Carol/ }).click();
    await expect.poll(() => page.getByTestId('signed-in-as').textContent()).toContain(TEST_USERS.carol.email);
    expect(await sessionCookie(context)).toBeDefined();
  });
});

/**
 * The branded trading page (issue 7) end to end in headless Chromium (Debian's `chromium`, driven
 * by playwright-core), against the real stack: two tenants on their own hosts
 * (`http://<slug>.localhost:<port>`, registered origins, docs/api.md §5.6) with different themes set by
 * their operators through `PUT /api/v1/tenants/{id}/theme|branding`. One trader signs in with an
 * API key, the other with a wallet (SIWE, a real secp256k1 signature behind an injected EIP-1193
 * provider). Marks, candles (one continuous series ending at the mark), the ticket, working orders,
 * positions and fills are checked on the page as a trader sees them, and so is the Challenges panel: the offers of the tenant's live prop firm (deployed on
 * anvil through the API), bought with Buy and paid on-chain as the page says. Screenshots are kept in `.data/artifacts/trading-page/`.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Hex } from 'viem';
import { Decimal } from '../../domain/decimal.js';
import { ensureTenant, issueCredential } from '../../db/seed.js';
import { loadRecordedCandles } from '../../modules/market/feeds/candles.js';
import { buildWeb } from '../../scripts/lib/web-build.js';
import { startStack, type Stack } from '../support/stack.js';
import { addAgent } from '../support/agents.js';
import { publish, recordedTick } from '../support/marks.js';
import { chainEnv, draftFirm, fundedKey, goLive, STARTER_TERMS } from '../support/prop-firm.js';
import { approveStablecoin, depositChallenge, mintStablecoin } from '../../modules/prop/chain/index.js';
import { CHROMIUM, CHROMIUM_ARGS as BASE_ARGS } from '../support/chromium.js';

const ARTIFACTS = path.resolve(import.meta.dirname, '../../.data/artifacts/trading-page');
/** The shared flags, and `*.localhost` (the tenants' hosts) resolved to this machine. */
const CHROMIUM_ARGS = [...BASE_ARGS, '--host-resolver-rules=MAP *.localhost 127.0.0.1'];

/** An injected EIP-1193 provider for one account; `personal_sign` calls the test's `__walletSign` binding. */
const WALLET_PROVIDER = `window.ethereum = {
  async request({ method, params }) {
    if (method === 'eth_requestAccounts' || method === 'eth_accounts') return ['__ADDRESS__'];
    if (method === 'eth_chainId') return '0xa4b1';
    if (method === 'personal_sign') return window.__walletSign(params[0]);
    throw new Error('unsupported ' + method);
  },
};`;

interface TenantUnderTest {
  id: string;
  slug: string;
  url: string;
  operatorToken: string;
}

describe('branded trading page in headless Chromium', () => {
  let s: Stack;
  let browser: Browser;
  let alpha: TenantUnderTest;
  let beta: TenantUnderTest;
  const cspViolations: string[] = [];
  const wallet = privateKeyToAccount(generatePrivateKey());
  const rpcUrl = inject('chainRpcUrl');

  /** A tenant on its own host with an operator holding `tenant:config`, branded and themed through the API. */
  async function tenant(name: string, branding: object, theme: object): Promise<TenantUnderTest> {
    const port = new URL(s.api.baseUrl).port;
    const slug = `${name}-${s.tenant.slug.slice(2)}`;
    const url = `http://${slug}.localhost:${port}`;
    const row = await ensureTenant(s.orm, { slug, displayName: name, origins: [url], plan: { propFirm: true } });
    const op = await issueCredential(s.orm, { tenantId: row.id, audience: 'operator', scopes: ['tenant:config'] });
    const operatorToken = (
      await s.call('POST', '/api/auth/api-token', { body: { apiKey: op.apiKey, apiSecret: op.apiSecret } })
    ).body.token;
    const t = { id: row.id, slug, url, operatorToken };
    await configure(t, 'branding', branding);
    await configure(t, 'theme', theme);
    return t;
  }
  async function configure(t: TenantUnderTest, section: string, body: object) {
    const res = await s.call('PUT', `/api/v1/tenants/${t.id}/${section}`, {
      token: t.operatorToken,
      body,
      headers: { 'x-tenant-slug': t.slug },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }

  /** A fresh browser profile (own cookies) on a tenant's page; `wallet`: an injected EIP-1193 provider. */
  async function open(
    t: TenantUnderTest,
    opts: { wallet?: boolean } = {},
  ): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    if (opts.wallet) {
      await context.exposeBinding('__walletSign', (_source, hex: Hex) => wallet.signMessage({ message: { raw: hex } }));
      // The wallet (EIP-1193) the page finds at window.ethereum; personal_sign is answered by the key above.
      await context.addInitScript({ content: WALLET_PROVIDER.replace('__ADDRESS__', wallet.address) });
    }
    const page = await context.newPage();
    page.on('console', (m) => m.text().includes('Content Security Policy') && cspViolations.push(m.text()));
    await page.goto(`${t.url}/`);
    await page.getByTestId('brand').waitFor();
    return { context, page };
  }

  // Evaluated in the page (strings: this file is compiled without the DOM library).
  const cssVar = (page: Page, name: string) =>
    page.evaluate<string>(
      `getComputedStyle(document.documentElement).getPropertyValue(${JSON.stringify(name)}).trim()`,
    );
  const bodyBackground = (page: Page) => page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
  const shot = (page: Page, name: string) =>
    page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
  const rows = (page: Page, table: string) => page.getByTestId(table).locator('tbody tr');
  /** A fullTrading trader credential of tenant `t` with a paper account `name` funded with `depositUsd` (USD). */
  const fullTrader = (t: TenantUnderTest, name: string, depositUsd: string) =>
    issueCredential(s.orm, { tenantId: t.id, audience: 'trader', tier: 'fullTrading', account: { name, depositUsd } });

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    await buildWeb({ quiet: true });
    s = await startStack({ env: await chainEnv(rpcUrl) });
    await loadRecordedCandles(s.config.databaseUrl);
    for (const symbol of ['BTC.PAPER', 'ETH.PAPER', 'SOL.PAPER']) await publish(s.orm, await recordedTick(symbol, 0.5));
    alpha = await tenant(
      'alpha',
      { displayName: 'Alpha Exchange', supportEmail: 'help@alpha.example' },
      {
        dark: { primary: '#f97316', background: '#101010' },
        typography: { fontFamily: 'Georgia, serif', baseSizePx: 15 },
        radiusPx: 2,
        defaultMode: 'dark',
      },
    );
    beta = await tenant(
      'beta',
      { displayName: 'Beta Markets' },
      { light: { primary: '#7c3aed', background: '#fafaf9' }, radiusPx: 14, defaultMode: 'light' },
    );
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
    await s?.stop();
  });

  it('serves each tenant its own brand and theme on its own host, and no page on an unregistered host', async () => {
    const a = await open(alpha);
    const b = await open(beta);
    expect(await a.page.getByTestId('brand').textContent()).toBe('Alpha Exchange');
    expect(await a.page.title()).toBe('Alpha Exchange · Trade');
    expect(await cssVar(a.page, '--color-primary')).toBe('#f97316');
    expect(await cssVar(a.page, '--font-family')).toBe('Georgia, serif');
    expect(await bodyBackground(a.page)).toBe('rgb(16, 16, 16)');
    expect(await a.page.getByText('help@alpha.example').count()).toBe(1);

    expect(await b.page.getByTestId('brand').textContent()).toBe('Beta Markets');
    expect(await cssVar(b.page, '--color-primary')).toBe('#7c3aed');
    expect(await cssVar(b.page, '--radius')).toBe('14px');
    expect(await bodyBackground(b.page)).toBe('rgb(250, 250, 249)');
    await shot(a.page, 'alpha-sign-in');
    await shot(b.page, 'beta-sign-in');
    await a.context.close();
    await b.context.close();

    const context = await browser.newContext();
    const stranger = await (await context.newPage()).goto(`http://nobody.localhost:${new URL(s.api.baseUrl).port}/`);
    expect(stranger!.status()).toBe(404);
    expect(await stranger!.json()).toMatchObject({ error: 'unknown_tenant_origin' });
    await context.close();
  });

  it('an API-key trader sees live marks and candles, works and cancels a limit order, and fills a market order', async () => {
    const trader = await fullTrader(alpha, 'Alpha paper', '100000');
    const { context, page } = await open(alpha);
    await page.getByLabel('API key').fill(trader.apiKey);
    await page.getByLabel('API secret').fill(trader.apiSecret);
    await page.getByRole('button', { name: 'Sign in with API key' }).click();
    await expect.poll(() => page.getByTestId('signed-in-as').textContent()).toContain(trader.apiKey);

    // Marks from /ws/quotes, and a new mark shows without a reload.
    const first = await recordedTick('BTC.PAPER', 0.5);
    await expect.poll(() => page.getByTestId('mark-price-BTC.PAPER').textContent()).toBe(first.mark.toString());
    const next = await recordedTick('BTC.PAPER', 0.51);
    await publish(s.orm, next);
    await expect.poll(() => page.getByTestId('mark-price-BTC.PAPER').textContent()).toBe(next.mark.toString());

    // Candles: the 1m series is drawn.
    await expect
      .poll(async () => Number(await page.getByTestId('chart').getAttribute('data-bars')))
      .toBeGreaterThan(100);

    // A refused order says why, in the API's words.
    await page.getByLabel('Size (contracts)').fill('0');
    await page.getByRole('button', { name: 'Buy BTC.PAPER' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/^validation_failed: qty: /);

    // A limit buy 10 % under the mark rests as a working order; Cancel removes it.
    const limit = next.mark.times(0.9).toDecimalPlaces(0, Decimal.ROUND_DOWN).toString();
    await page.getByLabel('Type').selectOption('limit');
    await page.getByLabel('Size (contracts)').fill('0.01');
    await page.getByLabel('Limit price (USD)').fill(limit);
    await page.getByRole('button', { name: 'Buy BTC.PAPER' }).click();
    await expect.poll(() => rows(page, 'working-orders').count()).toBe(1);
    expect(await rows(page, 'working-orders').first().textContent()).toContain(limit);
    const open1 = await s.call('GET', `/api/v1/accounts/${trader.accountId}/open-orders`, {
      token: (
        await s.call('POST', '/api/auth/api-token', { body: { apiKey: trader.apiKey, apiSecret: trader.apiSecret } })
      ).body.token,
      headers: { 'x-tenant-slug': alpha.slug },
    });
    expect(open1.body.orders).toEqual([
      expect.objectContaining({ symbol: 'BTC.PAPER', price: limit, orderStatus: 'open', remainingQty: '0.01' }),
    ]);
    await shot(page, 'alpha-working-order');
    await rows(page, 'working-orders').first().getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => rows(page, 'working-orders').count()).toBe(0);

    // A market buy fills: its state, the fill and the position arrive over /ws/risk.
    await page.getByLabel('Type').selectOption('market');
    await page.getByRole('button', { name: 'Buy BTC.PAPER' }).click();
    await expect
      .poll(() => page.getByTestId('intent-status').getAttribute('data-state'), { timeout: 20_000 })
      .toBe('filled');
    await expect.poll(() => rows(page, 'fills').count()).toBe(1);
    expect(await rows(page, 'fills').first().textContent()).toMatch(/BTC\.PAPERbuy0\.01/);
    await expect.poll(() => rows(page, 'positions').count()).toBe(1);
    expect(await rows(page, 'positions').first().textContent()).toMatch(/BTC\.PAPERlong0\.01/);
    await shot(page, 'alpha-filled');

    // A reload keeps this tab signed in and seeds the same state from REST.
    const seeded = page.waitForResponse((r) => r.url().includes('/api/v1/market/candles/paper/BTC.PAPER?'));
    await page.reload();
    await expect.poll(() => rows(page, 'positions').count()).toBe(1);
    expect(await rows(page, 'fills').count()).toBe(1);

    // The chart is one series (docs/api.md §2.9): the recorded history on the replay clock, rebased to meet
    // the mark's bar; one bar a minute with no gap, no cliff, and the newest bar closes at the mark shown.
    const chart = page.getByTestId('chart');
    await expect.poll(() => chart.getAttribute('data-last-close')).toBe(next.mark.toFixed());
    expect(await page.getByTestId('mark-price-BTC.PAPER').textContent()).toBe(next.mark.toString());
    const [bars, firstTime, lastTime] = await Promise.all(
      ['data-bars', 'data-first-time', 'data-last-time'].map(async (a) => Number(await chart.getAttribute(a))),
    );
    expect(bars).toBe(240);
    expect((lastTime - firstTime) / 60 + 1).toBe(bars);
    const drawn: { open: string; close: string }[] = (await (await seeded).json()).bars;
    expect(drawn).toHaveLength(bars);
    const cliffs = drawn
      .slice(1)
      .filter((b, i) => new Decimal(b.open).minus(drawn[i].close).abs().div(drawn[i].close).gt('0.005'));
    expect(cliffs).toEqual([]);
    await shot(page, 'alpha-chart');
    await context.close();
  });

  it('a wallet trader signs in with SIWE and trades through the cookie session, fills live over /ws/risk', async () => {
    const trader = await fullTrader(beta, 'Beta paper', '50000');
    await addAgent(s.orm, beta.id, trader.accountId!, 'hyperliquid', wallet.address);
    const { context, page } = await open(beta, { wallet: true });
    await page.getByRole('button', { name: 'Connect wallet' }).click();
    await expect.poll(() => page.getByTestId('signed-in-as').textContent()).toContain(wallet.address);
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === 'service_session')).toMatchObject({ httpOnly: true, sameSite: 'Lax' });

    await page.getByTestId('mark-ETH.PAPER').click();
    await page.getByLabel('Size (contracts)').fill('0.5');
    await page.getByRole('radio', { name: 'Sell / Short' }).click();
    await page.getByRole('button', { name: 'Sell ETH.PAPER' }).click();
    await expect
      .poll(() => page.getByTestId('intent-status').getAttribute('data-state'), { timeout: 20_000 })
      .toBe('filled');
    await expect.poll(() => rows(page, 'positions').count()).toBe(1);
    expect(await rows(page, 'positions').first().textContent()).toMatch(/ETH\.PAPERshort-0\.5/);
    await expect.poll(() => rows(page, 'fills').count()).toBe(1);
    await shot(page, 'beta-wallet-filled');

    // Close the position from its row: a reduce-only market buy.
    await rows(page, 'positions').first().getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => rows(page, 'positions').count(), { timeout: 20_000 }).toBe(0);
    await expect.poll(() => rows(page, 'fills').count()).toBe(2);
    await context.close();
  });

  it('a trader sees the challenges of the live prop firm, buys one, is shown the deposit to send, and sees it activate once paid', async () => {
    const op = (await s.operator(['firm:operate', 'prop:manage'], alpha.id)).token;
    const opts = { token: op, slug: alpha.slug };
    const firm = await goLive(
      s,
      await draftFirm(s, { ...opts, rpcUrl, name: 'Alpha Prop', templates: [STARTER_TERMS] }),
      opts,
    );
    const trader = await issueCredential(s.orm, { tenantId: alpha.id, audience: 'trader', tier: 'readonly' });
    const { context, page } = await open(alpha);
    await page.getByLabel('API key').fill(trader.apiKey);
    await page.getByLabel('API secret').fill(trader.apiSecret);
    await page.getByRole('button', { name: 'Sign in with API key' }).click();

    // The offer with its terms, as GET /api/v1/prop/offers answers them (fractions shown as percentages).
    await expect.poll(() => rows(page, 'offers').count(), { timeout: 20_000 }).toBe(1);
    const cells = await rows(page, 'offers').first().locator('td').allTextContents();
    expect(cells).toEqual([
      'Alpha Prop',
      'Starter 10k',
      '100',
      '10000',
      '6 %',
      '3 %',
      '6 %',
      '4',
      '85 %',
      'paper',
      'Buy',
    ]);

    // Buy: the challenge waits for its price, and the page shows what the buy answered the wallet must send.
    await rows(page, 'offers').first().getByRole('button', { name: 'Buy' }).click();
    await expect.poll(() => rows(page, 'challenges').first().getAttribute('data-status')).toBe('pending_payment');
    const token = (
      await s.call('POST', '/api/auth/api-token', { body: { apiKey: trader.apiKey, apiSecret: trader.apiSecret } })
    ).body.token;
    const mine = await s.call('GET', '/api/v1/prop/challenges', { token, headers: { 'x-tenant-slug': alpha.slug } });
    expect(mine.body.data).toHaveLength(1);
    const { deposit } = mine.body.data[0];
    expect(deposit).toMatchObject({ instance: firm.instance, stablecoin: firm.stablecoin, amountUnits: '100000000' });
    const shown = page.getByTestId('deposit');
    expect(await shown.locator('li').allTextContents()).toEqual(deposit.calls);
    expect(await shown.textContent()).toContain(
      `100 USD (100000000 units of ${firm.stablecoin}, chain ${deposit.chainId})`,
    );
    await shot(page, 'alpha-challenge-bought');

    // Paid from a wallet exactly as shown: the challenge turns active on the page, the instructions go.
    const payer = await fundedKey(rpcUrl);
    const units = BigInt(deposit.amountUnits);
    await mintStablecoin(rpcUrl, firm.funderKey, firm.stablecoin, privateKeyToAccount(payer).address, units);
    await approveStablecoin(rpcUrl, payer, firm.stablecoin, firm.instance!, units);
    await depositChallenge(rpcUrl, payer, firm.instance!, deposit.propAccountRef, units);
    await expect
      .poll(() => rows(page, 'challenges').first().getAttribute('data-status'), { timeout: 20_000 })
      .toBe('active');
    expect(await page.getByTestId('deposit').count()).toBe(0);
    await context.close();
  });

  it('theme changes show on the page', async () => {
    const { context, page } = await open(alpha);
    expect(await cssVar(page, '--color-primary')).toBe('#f97316');
    await configure(alpha, 'theme', { dark: { primary: '#0ea5e9', background: '#001020' }, defaultMode: 'dark' });
    // The page reads the theme again whenever the tab becomes visible.
    await page.evaluate(`document.dispatchEvent(new Event('visibilitychange'))`);
    await expect.poll(() => cssVar(page, '--color-primary')).toBe('#0ea5e9');
    expect(await bodyBackground(page)).toBe('rgb(0, 16, 32)');
    await shot(page, 'alpha-retheme');
    // A fresh load shows it too; the other tenant is untouched.
    await page.reload();
    await page.getByTestId('brand').waitFor();
    expect(await cssVar(page, '--color-primary')).toBe('#0ea5e9');
    const b = await open(beta);
    expect(await cssVar(b.page, '--color-primary')).toBe('#7c3aed');
    await b.context.close();
    await context.close();
    expect(cspViolations).toEqual([]);
  });
});

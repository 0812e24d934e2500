/**
 * The API reference site (api/routes/docs-site.ts, README "Documentation"), against a real api:
 * `GET /docs` (Redoc's page on the api's own OpenAPI document), the renderer bundle served by the api
 * from the `redoc` npm package, `GET /docs/asyncapi` (the channels and frames rendered server-side),
 * a path traversal on the asset route, no outside URL on either page, and `/docs` rendered in headless
 * Chromium (Debian's `chromium`, as test/e2e/trading-page.test.ts) with every request outside the api
 * refused: Redoc draws the operations under the page's CSP and asks for nothing outside.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { CHANNELS } from '../../api/asyncapi.js';
import { REDOC_BUNDLE_PATH } from '../../api/routes/docs-site.js';
import { startStack, type Stack } from '../support/stack.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../support/chromium.js';

/** A GET without any tenant header or credential, as a browser opening the page sends it. */
async function get(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, text: bytes.toString('utf8'), bytes };
}

/** Every http(s) URL in `html` that is not under `base`. */
function outsideUrls(html: string, base: string): string[] {
  return [...html.matchAll(/https?:\/\/[^\s"'<>)]*/g)].map((m) => m[0]).filter((u) => !u.startsWith(base));
}

describe('API reference site', () => {
  let s: Stack;
  let browser: Browser | undefined;
  beforeAll(async () => {
    s = await startStack({ worker: false });
  });
  afterAll(async () => {
    await browser?.close();
    await s?.stop();
  });

  it('GET /docs is an HTML page loading our Redoc bundle on our OpenAPI document, under a self-only CSP', async () => {
    const r = await get(`${s.api.baseUrl}/docs`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    expect(REDOC_BUNDLE_PATH).toMatch(/^\/docs\/assets\/redoc-\d+\.\d+\.\d+\.standalone\.js$/);
    expect(r.text).toContain(`<script src="${REDOC_BUNDLE_PATH}"></script>`);
    expect(r.text).toContain('spec-url="/api/v1/openapi.json"');
    expect(r.text).toContain('href="/docs/asyncapi"');
    expect(outsideUrls(r.text, s.api.baseUrl)).toEqual([]);
    const csp = r.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toMatch(/https?:|unsafe-eval/);
    expect(r.headers.get('cache-control')).toBe('no-cache');
  });

  it('serves the renderer bundle as JavaScript, cached for a year, gzipped when accepted', async () => {
    const gz = await fetch(`${s.api.baseUrl}${REDOC_BUNDLE_PATH}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(gz.status).toBe(200);
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    const text = await gz.text(); // fetch decodes the gzip
    expect(gz.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(gz.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(text.length).toBeGreaterThan(500_000);
    expect(text).toContain('Redoc');

    const plain = await get(`${s.api.baseUrl}${REDOC_BUNDLE_PATH}`, { 'accept-encoding': 'identity' });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(plain.text).toBe(text);
  });

  it('the asset route serves only its listed files: traversal and other names are 404', async () => {
    for (const p of [
      '/docs/assets/..%2f..%2fpackage.json',
      '/docs/assets/..%2f..%2f..%2fpackage.json',
      '/docs/assets/%2e%2e%2fdocs-site.ts',
      '/docs/assets/redoc.standalone.js',
      '/docs/assets/constructor',
    ])
      expect((await get(`${s.api.baseUrl}${p}`)).status, p).toBe(404);
  });

  it('GET /docs/asyncapi lists each channel with its frames, direction and fields, and loads nothing', async () => {
    const r = await get(`${s.api.baseUrl}/docs/asyncapi`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    for (const channel of ['/ws/market', '/ws/quotes', '/ws/risk'])
      expect(r.text).toContain(`<h2><code>${channel}</code></h2>`);
    for (const c of CHANNELS)
      for (const f of c.frames) expect(r.text, `${c.path} ${f.name}`).toContain(`<code>${f.name}</code>`);
    // One frame of each channel, with its direction and a field.
    const row = (channel: string, frame: string) =>
      new RegExp(`<tr id="${channel}-${frame}">[\\s\\S]*?</tr>`).exec(r.text)?.[0] ?? '';
    expect(row('ws_market', 'L2-Book')).toContain('server → client');
    expect(row('ws_market', 'L2-Book')).toContain('<code>bids</code>');
    expect(row('ws_quotes', 'Quote')).toContain('<code>mark</code>: USD');
    expect(row('ws_risk', 'Authenticate')).toContain('client → server');
    expect(row('ws_risk', 'Authenticate')).toContain('<code>token</code>');
    expect(r.text).not.toContain('<script');
    expect(outsideUrls(r.text, s.api.baseUrl)).toEqual([]);
    const csp = r.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'/);
  });

  it('discovery names both pages', async () => {
    const r = await s.call('GET', '/api/v1/discovery');
    expect(r.body.docs).toEqual({ openapi: `${s.api.baseUrl}/docs`, asyncapi: `${s.api.baseUrl}/docs/asyncapi` });
  });

  it('Redoc renders the operations in headless Chromium with nothing fetched outside the api and no CSP violation', async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    const page = await browser.newPage();
    const outside: string[] = [];
    const problems: string[] = [];
    await page.route('**/*', async (route) => {
      const url = route.request().url();
      if (url.startsWith(s.api.baseUrl) || url.startsWith('blob:') || url.startsWith('data:')) await route.continue();
      else {
        outside.push(url);
        await route.abort();
      }
    });
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(`${s.api.baseUrl}/docs`);
    // The spec's title, then an operation of the document (its operationId is the anchor Redoc links).
    await page.getByRole('heading', { name: /Multi-venue trading platform API/ }).waitFor({ timeout: 30_000 });
    await page.locator('[id$="composeIntent"]').first().waitFor({ state: 'attached', timeout: 30_000 });
    expect(await page.locator('[data-section-id^="operation/"]').count()).toBeGreaterThan(100);
    await page.goto(`${s.api.baseUrl}/docs/asyncapi`);
    await page.getByRole('heading', { name: '/ws/risk' }).waitFor();
    // The one outside URL Redoc has, its footer logo on its CDN, is refused by the CSP before any request leaves.
    expect(outside).toEqual([]);
    expect(
      problems.filter((p) => !p.startsWith("Loading the image 'https://cdn.redoc.ly/redoc/logo-mini.svg'")),
    ).toEqual([]);
  });
});

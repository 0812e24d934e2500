/**
 * Social sign-in in the tests (docs/api.md §5.1 "Social sign-in"; issue 22): the dev OpenID provider
 * (simulators/oidc.ts) registered for a stack, and a small browser over fetch — a cookie jar per host and path,
 * redirects followed by hand — that walks the whole authorisation code flow: the API's start redirect, the provider's
 * authorisation endpoint, its sign-in page (a user chosen by its button), the redirect back with `code` and `state`,
 * and the API's callback. Every answer of the API is checked against the OpenAPI document (test/support/contract.ts).
 */
import { expect } from 'vitest';
import { checkResponse } from './contract.js';
import type { Stack } from './stack.js';
import { startOidcProvider, type OidcUser, type RunningOidcProvider } from '../../simulators/oidc.js';

/** The client every test provider registers. */
export const TEST_CLIENT = { clientId: 'platform-test', clientSecret: 'test-client-secret-0123456789' };

/** The demo users of the test providers (account id → user). */
export const TEST_USERS: Record<string, OidcUser> = {
  alice: { email: 'alice@partner.test', name: 'Alice' },
  bob: { email: 'bob@elsewhere.test', name: 'Bob' },
  carol: { email: 'carol@partner.test', name: 'Carol' },
  eve: { email: 'eve@elsewhere.test', name: 'Eve' },
  frank: { email: 'frank@elsewhere.test', name: 'Frank' },
  grace: { email: 'grace@elsewhere.test', name: 'Grace' },
  mallory: { email: 'mallory@partner.test', name: 'Mallory', emailVerified: false },
};

/** The callback URL the API gives a provider `slug` on the stack's public base URL. */
export const callbackUrlOf = (s: Stack, slug: string) => `${s.api.baseUrl}/api/auth/oidc/${slug}/callback`;

/**
 * Starts a dev provider whose client redirects to the callbacks of `slugs` on `origin`: the stack's public base URL by
 * default, a tenant's registered origin for a browser on that tenant's host (the API picks the origin the browser
 * started from, modules/auth/commands/oidc.ts `pageOrigin`).
 */
export function startTestProvider(
  s: Stack,
  slugs: string[],
  users = TEST_USERS,
  origin = s.api.baseUrl,
): Promise<RunningOidcProvider> {
  return startOidcProvider({
    clients: [{ ...TEST_CLIENT, redirectUris: slugs.map((slug) => `${origin}/api/auth/oidc/${slug}/callback`) }],
    users,
  });
}

/**
 * Adds an `oidc` provider `slug` at `issuer` to the stack's tenant (or the tenant `tenantSlug`) through
 * `POST /api/v1/sign-in/providers` with the operator bearer `operatorToken`; expects `201` and answers the provider
 * view. `displayName` defaults to `Provider <slug>`.
 */
export async function addProvider(
  s: Stack,
  operatorToken: string,
  p: {
    slug: string;
    issuer: string;
    joinPolicy?: string;
    emailDomains?: string[];
    displayName?: string;
    tenantSlug?: string;
  },
) {
  const res = await s.call('POST', '/api/v1/sign-in/providers', {
    token: operatorToken,
    ...(p.tenantSlug ? { headers: { 'x-tenant-slug': p.tenantSlug } } : {}),
    body: {
      slug: p.slug,
      kind: 'oidc',
      displayName: p.displayName ?? `Provider ${p.slug}`,
      issuer: p.issuer,
      clientId: TEST_CLIENT.clientId,
      clientSecret: TEST_CLIENT.clientSecret,
      joinPolicy: p.joinPolicy ?? 'open',
      ...(p.emailDomains ? { emailDomains: p.emailDomains } : {}),
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** One answer the browser received. */
export interface Hop {
  status: number;
  location: string | null;
  body: any;
  url: string;
}

/** A cookie as the jar keeps it. */
interface JarCookie {
  value: string;
  path: string;
}

/**
 * A browser over fetch: cookies per host and path (`Set-Cookie` with an empty value or `Max-Age=0`/a past `Expires`
 * deletes), no automatic redirects. Requests to the stack's api carry `X-Tenant-Slug` (its hosts are not the tenant's
 * registered origins) and their answers are checked against the OpenAPI document.
 */
export class TestBrowser {
  private readonly jar = new Map<string, Map<string, JarCookie>>();

  constructor(private readonly s: Stack) {}

  /** The cookie `name` the jar holds for `url`'s host, if any. */
  cookie(url: string, name: string): string | undefined {
    return this.jar.get(new URL(url).host)?.get(name)?.value;
  }

  /** Sets (or with `undefined`, drops) a cookie for `url`'s host on path `/`. */
  setCookie(url: string, name: string, value: string | undefined): void {
    const host = new URL(url).host;
    const cookies = this.jar.get(host) ?? new Map<string, JarCookie>();
    if (value === undefined) cookies.delete(name);
    else cookies.set(name, { value, path: '/' });
    this.jar.set(host, cookies);
  }

  /** Sends one request; stores the cookies of the answer. `form`: an urlencoded POST body. */
  async request(method: string, url: string, o: { form?: Record<string, string>; json?: unknown } = {}): Promise<Hop> {
    const u = new URL(url);
    const headers: Record<string, string> = {};
    const sent = [...(this.jar.get(u.host)?.entries() ?? [])].filter(([, c]) => u.pathname.startsWith(c.path));
    if (sent.length) headers.cookie = sent.map(([n, c]) => `${n}=${c.value}`).join('; ');
    const api = url.startsWith(this.s.api.baseUrl);
    if (api) headers['x-tenant-slug'] = this.s.tenant.slug;
    let body: string | undefined;
    if (o.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(o.form).toString();
    } else if (o.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(o.json);
    }
    if (api) await this.s.api.notices.settle();
    const res = await fetch(url, { method, headers, body, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) this.store(u, line);
    const text = await res.text();
    const contentType = res.headers.get('content-type');
    const parsed = text && /[/+]json\b/.test(contentType ?? '') ? JSON.parse(text) : text;
    if (api)
      await checkResponse({ method, path: u.pathname + u.search, status: res.status, contentType, body: parsed });
    const location = res.headers.get('location');
    return { status: res.status, location: location ? new URL(location, url).href : null, body: parsed, url };
  }

  /** Stores one `Set-Cookie` line answered for `u`. */
  private store(u: URL, line: string): void {
    const [pair, ...attrs] = line.split(';').map((p) => p.trim());
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    const attr = (k: string) => attrs.find((a) => a.toLowerCase().startsWith(`${k}=`))?.slice(k.length + 1);
    const expires = attr('expires');
    const gone = !value || attr('max-age') === '0' || (expires !== undefined && Date.parse(expires) < Date.now());
    const cookies = this.jar.get(u.host) ?? new Map<string, JarCookie>();
    if (gone) cookies.delete(name);
    else cookies.set(name, { value, path: attr('path') ?? '/' });
    this.jar.set(u.host, cookies);
  }

  /** Follows redirects from `url` while they stay off `stopAt` (a URL prefix); answers the last hop. */
  async follow(url: string, stopAt: string): Promise<Hop> {
    let hop = await this.request('GET', url);
    for (let i = 0; i < 10 && hop.location && !hop.location.startsWith(stopAt); i++)
      hop = await this.request('GET', hop.location);
    return hop;
  }

  /**
   * Starts a sign-in with provider `slug` (`query`: the start route's query), signs `user` in at the provider, and
   * answers the URL the provider sends the browser back to (the API's callback, not yet requested).
   * @throws Error when a step answers what a provider never should.
   */
  async authorize(slug: string, user: string, query = ''): Promise<string> {
    return this.atProvider(slug, query, (uid, pageUrl) =>
      this.request('POST', new URL(`/interaction/${uid}/login`, pageUrl).href, { form: { user } }),
    );
  }

  /**
   * Starts a sign-in with provider `slug` and presses Cancel on the provider's sign-in page; answers the URL the
   * provider sends the browser back to (the API's callback with `error=access_denied` and the state, not yet requested).
   */
  async cancel(slug: string, query = ''): Promise<string> {
    return this.atProvider(slug, query, (uid, pageUrl) =>
      this.request('POST', new URL(`/interaction/${uid}/abort`, pageUrl).href),
    );
  }

  /**
   * Starts a sign-in with provider `slug`, follows it to the provider's sign-in page, answers it with `choose` (the
   * page's interaction uid and URL → the provider's `303`), and answers the callback URL the provider sends back to.
   */
  private async atProvider(
    slug: string,
    query: string,
    choose: (uid: string, pageUrl: string) => Promise<Hop>,
  ): Promise<string> {
    const start = await this.request('GET', `${this.s.api.baseUrl}/api/auth/oidc/${slug}/start${query}`);
    expect(start.status, JSON.stringify(start.body)).toBe(302);
    const callback = callbackUrlOf(this.s, slug);
    const page = await this.follow(start.location!, callback);
    expect(page.status, String(page.body)).toBe(200);
    const uid = /action="\/interaction\/([\w-]+)\/login"/.exec(String(page.body))![1];
    const login = await choose(uid, page.url);
    expect(login.status).toBe(303);
    const back = login.location!.startsWith(callback) ? login : await this.follow(login.location!, callback);
    expect(back.location, String(back.body)).toMatch(new RegExp(`^${callback.replace(/[.?]/g, '\\$&')}\\?`));
    return back.location!;
  }

  /** The whole flow: {@link authorize}, then the API's callback. Answers the callback's hop. */
  async signIn(slug: string, user: string, query = ''): Promise<Hop> {
    return this.request('GET', await this.authorize(slug, user, query));
  }

  /** Request headers carrying this browser's session cookie for the stack's api: `{ cookie: 'service_session=…' }`. */
  sessionHeaders(): Record<string, string> {
    const token = this.cookie(this.s.api.baseUrl, 'service_session');
    expect(token, 'a service_session cookie').toBeTruthy();
    return { cookie: `service_session=${token}` };
  }
}

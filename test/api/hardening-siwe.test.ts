/**
 * Issue 16 items 1 and 13, on the real api (no worker: sign-in needs none):
 * - SIWE is bound to the tenant's registered origins and the API's public base URL, never to the
 *   request's `Host` or `X-Forwarded-Host` (a phishing site relaying a victim's signature controls
 *   both); `TRUST_PROXY` decides only whether forwarding headers are honoured at all (here: the
 *   `Secure` flag of the session cookie behind a TLS-terminating proxy).
 * - A Kalshi agent's `owner` is nobody's signature, so it links no wallet: a victim's sign-in never
 *   lands in the account of an attacker who named the victim's wallet as the owner of a Kalshi agent.
 * Requests go out through node:http so that `Host` is sent exactly as written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { platformEm } from '../../db/orm.js';
import { issueCredential } from '../../db/seed.js';
import { startStack, type Stack } from '../support/stack.js';
import { addAgent } from '../support/agents.js';

interface Reply {
  status: number;
  body: any;
  cookie: string | undefined;
}

/** POSTs `body` as JSON to the stack's api with exactly `headers` (Host included when given; else the socket's). */
function post(s: Stack, path: string, headers: Record<string, string>, body?: unknown): Promise<Reply> {
  const port = (s.api.server.address() as AddressInfo).port;
  const payload = body === undefined ? '' : JSON.stringify(body);
  const sent = { host: `127.0.0.1:${port}`, 'content-type': 'application/json', ...headers };
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', headers: sent, setHost: false });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        const cookie = res.headers['set-cookie']?.find((c) => c.startsWith('service_session='));
        resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined, cookie });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** A fresh nonce of the stack's tenant. */
async function nonceOf(s: Stack): Promise<string> {
  return (await post(s, '/api/auth/siwe/nonce', { 'x-tenant-slug': s.tenant.slug })).body.nonce;
}

/** `wallet`'s signed EIP-4361 message for `domain` and `uri`, with `nonce`. */
async function signed(wallet: PrivateKeyAccount, domain: string, uri: string, nonce: string) {
  const message = createSiweMessage({ domain, uri, address: wallet.address, version: '1', chainId: 1, nonce });
  return { message, signature: await wallet.signMessage({ message }) };
}

/** What a sign-in attempt left behind: the wallet's sessions, and whether the nonce was used. */
async function traces(s: Stack, wallet: PrivateKeyAccount, nonce: string) {
  const conn = platformEm(s.orm).getConnection();
  const [sessions] = await conn.execute<{ n: string }[]>(
    `select count(*) as n from sessions where wallet_address = ?`,
    [wallet.address.toLowerCase()],
  );
  const [n] = await conn.execute<{ consumed_at: Date | null }[]>(
    `select consumed_at from siwe_nonces where nonce = ?`,
    [nonce],
  );
  return { sessions: Number(sessions.n), nonceUsed: n.consumed_at !== null };
}

describe('SIWE domain binding (issue 16 item 1), TRUST_PROXY off (the default)', () => {
  let s: Stack;
  let registered: string; // the tenant's registered origin
  let apiOrigin: string; // PUBLIC_BASE_URL's default, http://HOST:PORT
  let accountId: string;
  const wallet = privateKeyToAccount(generatePrivateKey());

  beforeAll(async () => {
    s = await startStack({ worker: false });
    registered = `http://${s.tenant.slug}.test`;
    apiOrigin = s.api.baseUrl;
    accountId = (await s.trader()).accountId!;
    await addAgent(s.orm, s.tenant.id, accountId, 'hyperliquid', wallet.address);
  });
  afterAll(async () => s?.stop());

  const relays: [string, Record<string, string>][] = [
    ['Host: evil.example', { host: 'evil.example' }],
    ['X-Forwarded-Host: evil.example', { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' }],
  ];
  it.each(relays)(
    'a message for evil.example relayed with %s is refused with 401, and nothing is written',
    async (_, relay) => {
      const nonce = await nonceOf(s);
      const body = await signed(wallet, 'evil.example', 'https://evil.example/login', nonce);
      const res = await post(s, '/api/auth/siwe/verify', { 'x-tenant-slug': s.tenant.slug, ...relay }, body);
      expect([res.status, res.body.error]).toEqual([401, 'siwe_domain_mismatch']);
      expect(res.body).toMatchObject({
        field: 'domain',
        expected: [`${s.tenant.slug}.test`, new URL(apiOrigin).host],
        actual: 'evil.example',
      });
      expect(res.body.detail).toMatch(/evil\.example.*not a registered origin/);
      expect(res.cookie).toBeUndefined();
      expect(await traces(s, wallet, nonce)).toEqual({ sessions: 0, nonceUsed: false });
    },
  );

  it('a registered domain with a uri elsewhere is refused too', async () => {
    const nonce = await nonceOf(s);
    const body = await signed(wallet, `${s.tenant.slug}.test`, 'https://evil.example/', nonce);
    const res = await post(s, '/api/auth/siwe/verify', { 'x-tenant-slug': s.tenant.slug }, body);
    expect([res.status, res.body.error]).toEqual([401, 'siwe_domain_mismatch']);
    expect(res.body).toMatchObject({
      field: 'uri',
      expected: [registered, apiOrigin],
      actual: 'https://evil.example/',
    });
    expect(await traces(s, wallet, nonce)).toEqual({ sessions: 0, nonceUsed: false });
  });

  it('a message for the registered origin signs in from that origin, with the nonce a refusal left unused', async () => {
    const nonce = await nonceOf(s);
    const foreign = await signed(wallet, 'evil.example', 'https://evil.example/', nonce);
    expect(
      (await post(s, '/api/auth/siwe/verify', { host: 'evil.example', 'x-tenant-slug': s.tenant.slug }, foreign))
        .status,
    ).toBe(401);

    const body = await signed(wallet, `${s.tenant.slug}.test`, `${registered}/trade`, nonce);
    // A browser on the tenant's own host: the tenant resolves from Origin, no slug header.
    const res = await post(s, '/api/auth/siwe/verify', { origin: registered, host: `${s.tenant.slug}.test` }, body);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ walletAddress: wallet.address.toLowerCase(), accountId, tier: 'fullTrading' });
    expect(res.cookie).toMatch(/httponly/i);
    expect(await traces(s, wallet, nonce)).toEqual({ sessions: 1, nonceUsed: true });
  });

  it('a message for the API’s own public URL signs in; X-Forwarded-Proto is ignored (no Secure cookie over http)', async () => {
    const body = await signed(wallet, new URL(apiOrigin).host, apiOrigin, await nonceOf(s));
    const res = await post(
      s,
      '/api/auth/siwe/verify',
      { 'x-tenant-slug': s.tenant.slug, 'x-forwarded-proto': 'https' },
      body,
    );
    expect([res.status, res.body.accountId]).toEqual([200, accountId]);
    expect(res.cookie).not.toMatch(/secure/i);
  });
});

describe('SIWE domain binding with TRUST_PROXY=on and a PUBLIC_BASE_URL', () => {
  let s: Stack;
  const publicUrl = 'https://api.platform.test';
  const wallet = privateKeyToAccount(generatePrivateKey());

  beforeAll(async () => {
    s = await startStack({ worker: false, env: { TRUST_PROXY: 'on', PUBLIC_BASE_URL: publicUrl } });
    // s.call and s.trader() would fetch PUBLIC_BASE_URL, which resolves nowhere: the credential straight from the seed.
    const { accountId } = await issueCredential(s.orm, { tenantId: s.tenant.id, audience: 'trader' });
    await addAgent(s.orm, s.tenant.id, accountId!, 'hyperliquid', wallet.address);
  });
  afterAll(async () => s?.stop());

  it('a trusted proxy’s X-Forwarded-Host still cannot make evil.example, nor the socket’s own host, a SIWE origin', async () => {
    const port = (s.api.server.address() as AddressInfo).port;
    for (const domain of ['evil.example', `127.0.0.1:${port}`]) {
      const nonce = await nonceOf(s);
      const body = await signed(wallet, domain, `http://${domain}/`, nonce);
      const res = await post(
        s,
        '/api/auth/siwe/verify',
        { 'x-tenant-slug': s.tenant.slug, 'x-forwarded-host': domain },
        body,
      );
      expect([res.status, res.body.error, res.body.actual]).toEqual([401, 'siwe_domain_mismatch', domain]);
      expect(res.body.expected).toEqual([`${s.tenant.slug}.test`, 'api.platform.test']);
      expect(await traces(s, wallet, nonce)).toEqual({ sessions: 0, nonceUsed: false });
    }
  });

  it('a message for PUBLIC_BASE_URL signs in, and the forwarded https makes the cookie Secure', async () => {
    const body = await signed(wallet, 'api.platform.test', `${publicUrl}/`, await nonceOf(s));
    const res = await post(
      s,
      '/api/auth/siwe/verify',
      { 'x-tenant-slug': s.tenant.slug, 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.platform.test' },
      body,
    );
    expect(res.status).toBe(200);
    expect(res.cookie).toMatch(/; secure/i);
  });
});

/** The key id Kalshi shows the attacker when the agent's public key is registered on the attacker's account. */
const KALSHI_KEY_ID = '0b4c2f4e-8a51-4d3e-9a7b-2f0c6a1d9e11';

describe('a Kalshi agent’s owner links no wallet (issue 16 item 13)', () => {
  let s: Stack;
  let attacker: Awaited<ReturnType<Stack['trader']>>;
  let victim: Awaited<ReturnType<Stack['trader']>>;
  const victimWallet = privateKeyToAccount(generatePrivateKey());

  beforeAll(async () => {
    s = await startStack({ worker: false });
    attacker = await s.trader();
    victim = await s.trader();
    await attackersKalshiAgent();
  });
  afterAll(async () => s?.stop());

  const signIn = async () =>
    post(
      s,
      '/api/auth/siwe/verify',
      { 'x-tenant-slug': s.tenant.slug },
      await signed(victimWallet, new URL(s.api.baseUrl).host, s.api.baseUrl, await nonceOf(s)),
    );

  /**
   * The attacker creates a Kalshi agent naming the victim's wallet as its owner (accepted: Kalshi owners
   * are any string) and authorises it with a key registered on the attacker's own Kalshi account. No
   * Kalshi here: the row is made active exactly as the authorisation activity does after Kalshi accepts the key.
   */
  async function attackersKalshiAgent(): Promise<void> {
    const created = await post(
      s,
      `/api/v1/accounts/${attacker.accountId}/agents`,
      { 'x-tenant-slug': s.tenant.slug, authorization: `Bearer ${attacker.token}` },
      { venue: 'kalshi', owner: victimWallet.address },
    );
    expect([created.status, created.body.owner]).toEqual([201, victimWallet.address]);
    await platformEm(s.orm)
      .getConnection()
      .execute(
        `update agent_wallets set status = 'active', authorization_signature = ?, agent_address = ?, authorized_at = now() + interval '1 minute' where id = ?`,
        [KALSHI_KEY_ID, KALSHI_KEY_ID, created.body.agentId],
      );
  }

  it('a victim with no linked account is refused, not signed in as the attacker', async () => {
    const res = await signIn();
    expect([res.status, res.body.error]).toEqual([403, 'wallet_not_linked']);
    expect(res.cookie).toBeUndefined();
  });

  it('a victim whose wallet signed its own agent lands in its own account, though the attacker’s agent is newer', async () => {
    await addAgent(s.orm, s.tenant.id, victim.accountId!, 'hyperliquid', victimWallet.address);
    const res = await signIn();
    expect([res.status, res.body.accountId]).toEqual([200, victim.accountId]);
    const mine = await s.call('GET', '/api/v1/accounts', { headers: { cookie: res.cookie!.split(';')[0] } });
    expect(mine.body.accounts.map((a: { accountId: string }) => a.accountId)).toEqual([victim.accountId]);
  });
});

/**
 * Sign-In with Ethereum through the API (docs/api.md §5.1), the way a browser wallet does it: a fresh
 * nonce, an EIP-4361 message for the API host, the wallet's signature, and the `service_session` cookie.
 */
import { expect } from 'vitest';
import type { PrivateKeyAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import type { Stack } from './stack.js';

/**
 * A signed EIP-4361 message (Arbitrum chain id 42161, statement "Sign in to trade") for the stack's API host
 * (or `domain`) with a fresh nonce of the stack's tenant (or `nonce`), signed by `account` (or `signer`).
 * Returns the body of `POST /api/auth/siwe/verify`: `{ message, signature }`.
 */
export async function siwe(
  s: Stack,
  account: PrivateKeyAccount,
  o: { domain?: string; nonce?: string; signer?: PrivateKeyAccount } = {},
) {
  const nonce = o.nonce ?? (await s.call('POST', '/api/auth/siwe/nonce')).body.nonce;
  const message = createSiweMessage({
    domain: o.domain ?? new URL(s.api.baseUrl).host,
    address: account.address,
    statement: 'Sign in to trade',
    uri: s.api.baseUrl,
    version: '1',
    chainId: 42161,
    nonce,
  });
  const signature = await (o.signer ?? account).signMessage({ message });
  return { message, signature };
}

/** The whole `Set-Cookie` line of the `service_session` cookie in `headers` (undefined when none is set). */
export const sessionCookieOf = (headers: Headers) =>
  headers.getSetCookie().find((c) => c.startsWith('service_session='))!;

/** Request headers sending a `Set-Cookie` line back: `{ cookie: 'service_session=…' }` (attributes dropped). */
export const withCookie = (setCookie: string) => ({ cookie: setCookie.split(';')[0] });

/**
 * Signs `wallet` in (it must own an authorised agent of the stack's tenant); expects `200` and returns the
 * request headers carrying its session cookie, `{ cookie: 'service_session=…' }`.
 */
export async function signIn(s: Stack, wallet: PrivateKeyAccount): Promise<Record<string, string>> {
  const verified = await s.call('POST', '/api/auth/siwe/verify', { body: await siwe(s, wallet) });
  expect(verified.status, JSON.stringify(verified.body)).toBe(200);
  return withCookie(sessionCookieOf(verified.headers));
}

/**
 * Signs `wallet` in ({@link signIn}) and switches smart routing on for the account `accountId` through
 * `PATCH /api/v1/accounts/{id}` with the session (expects `200`); returns the session's cookie headers.
 */
export async function signInWithSmartRouting(
  s: Stack,
  wallet: PrivateKeyAccount,
  accountId: string,
): Promise<Record<string, string>> {
  const cookie = await signIn(s, wallet);
  const on = await s.call('PATCH', `/api/v1/accounts/${accountId}`, {
    headers: cookie,
    body: { settings: { smartRouting: true } },
  });
  expect(on.status).toBe(200);
  return cookie;
}

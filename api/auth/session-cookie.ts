/**
 * The `service_session` cookie (docs/api.md §5.1): how every browser sign-in (SIWE, OpenID Connect, the
 * email magic link) sets it and how every logout ends it; {@link setCookie} sets and clears any cookie of ours
 * (this one, the OpenID login state of modules/auth/routes/auth/oidc.ts).
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { ApiContext } from '../context.js';
import { SESSION_COOKIE, SESSION_TTL_MS, revokeSession } from './session.js';

/** A browser cookie of ours: its name, the path it is sent to, and how long it lives (ms). */
export interface BrowserCookie {
  name: string;
  path: string;
  maxAgeMs: number;
}

/** The session cookie: path `/`, {@link SESSION_TTL_MS} (24 h). */
const SESSION: BrowserCookie = { name: SESSION_COOKIE, path: '/', maxAgeMs: SESSION_TTL_MS };

/** The session cookie's `Set-Cookie` header, as the routes document it. */
export const SESSION_SET_COOKIE =
  'service_session=<opaque>; HttpOnly; SameSite=Lax; Path=/; Max-Age=86400 (+ Secure over https)';

/**
 * Sets `cookie` to `value` for its `maxAgeMs` (HttpOnly, SameSite=Lax, Secure on HTTPS, its path), or clears it when
 * `value` is null, with the same attributes (a browser replaces a cookie only by one of the same name, path and Secure).
 */
export function setCookie(
  ctx: Pick<ApiContext, 'cookies' | 'secure'>,
  cookie: BrowserCookie,
  value: string | null,
): void {
  ctx.cookies.set(cookie.name, value, {
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.secure,
    path: cookie.path,
    ...(value && { maxAge: cookie.maxAgeMs }),
    overwrite: true,
  });
}

/** Sets the session cookie to `token` for 24 h (see {@link setCookie}), or clears it when `token` is null. */
export function setSessionCookie(ctx: Pick<ApiContext, 'cookies' | 'secure'>, token: string | null): void {
  setCookie(ctx, SESSION, token);
}

/** Revokes the session of the request's cookie, if any, and clears the cookie (a request without one: nothing to end). */
export async function endSession(orm: MikroORM, ctx: Pick<ApiContext, 'cookies' | 'secure'>): Promise<void> {
  const token = ctx.cookies.get(SESSION_COOKIE);
  if (token) await revokeSession(orm, token);
  setSessionCookie(ctx, null);
}

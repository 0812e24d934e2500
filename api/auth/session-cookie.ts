/**
 * The `service_session` cookie (docs/api.md §5.1): how every browser sign-in (SIWE, OpenID Connect, the
 * email magic link) sets it and how every logout ends it.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { ApiContext } from '../context.js';
import { SESSION_COOKIE, SESSION_TTL_MS, revokeSession } from './session.js';

/**
 * Sets the session cookie to `token` for {@link SESSION_TTL_MS} (24 h; HttpOnly, SameSite=Lax, Secure on HTTPS,
 * path `/`), or clears it when `token` is null.
 */
export function setSessionCookie(ctx: Pick<ApiContext, 'cookies' | 'secure'>, token: string | null): void {
  ctx.cookies.set(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.secure,
    path: '/',
    ...(token && { maxAge: SESSION_TTL_MS }),
    overwrite: true,
  });
}

/** Revokes the session of the request's cookie, if any, and clears the cookie (a request without one: nothing to end). */
export async function endSession(orm: MikroORM, ctx: Pick<ApiContext, 'cookies' | 'secure'>): Promise<void> {
  const token = ctx.cookies.get(SESSION_COOKIE);
  if (token) await revokeSession(orm, token);
  setSessionCookie(ctx, null);
}

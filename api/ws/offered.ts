/**
 * Which pairs a market-data socket's tenant offers (docs/api.md §2.4, §6.1; issue 17): `/ws/quotes` and
 * `/ws/market` are public, and a socket whose handshake names a tenant (X-Tenant-Slug, Origin or Host,
 * resolved as REST resolves them; none: the platform tenant) is offered only that tenant's
 * `venues.enabled` and `venues.symbols`. A handshake naming no registered tenant is offered every pair:
 * the market data is public, and a tenant's list is what it offers its own traders. The tenant's rules
 * are read once per socket, at its first subscription, through the api's authentication cache.
 */
import type { IncomingMessage } from 'node:http';
import { pairRefusal, type TenantRules } from '../../domain/tenant/entitlements.js';
import type { AuthCache } from '../auth/auth-cache.js';
import { tenantOf } from '../middleware/tenant.js';

/** `pairs` the socket's tenant does not offer, each with its refusal code (`venue_not_enabled`, `symbol_not_enabled`). */
export type OfferCheck = (
  pairs: { topic: string; venue: string; symbol: string }[],
) => Promise<{ topic: string; error: string }[]>;

/** The check of one socket, from its handshake request. */
export function offeredPairs(auth: Pick<AuthCache, 'tenants' | 'tenantRules'>, req: IncomingMessage): OfferCheck {
  let rules: Promise<TenantRules | null> | undefined;
  return async (pairs) => {
    rules ??= tenantOf(auth.tenants, (h) => String(req.headers[h] ?? '')).then(
      (tenant) => auth.tenantRules(tenant.id),
      () => null,
    );
    const held = await rules;
    if (!held) return [];
    return pairs.flatMap(({ topic, venue, symbol }) => {
      const refusal = pairRefusal(held.venues, venue, symbol);
      return refusal ? [{ topic, error: refusal.code }] : [];
    });
  };
}

/** The `Result` frame refusing `refused` topics (the first one's code; every topic named). */
export function notOffered(refused: { topic: string; error: string }[]) {
  return {
    type: 'Result',
    ok: false,
    error: refused[0].error,
    detail: `not offered by this tenant: ${refused.map((r) => r.topic).join(', ')}; GET /api/v1/symbols/{venue} lists what it offers`,
  };
}

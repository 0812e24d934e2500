/**
 * Tenant resolution, exactly as docs/api.md §5.6, as a pure function over a lookup:
 * 1. `X-Tenant-Slug` naming a real tenant (an unknown slug falls through silently);
 * 2. `Origin`, or `Host` when there is no `Origin`, matched against registered origins;
 * 3. the platform tenant, only when the request carries neither `Origin` nor `Host`
 *    (a request from the platform's own registered origin already matched in step 2).
 * Otherwise `404 unknown_tenant_origin`. Suspension (`410`) is checked by the caller after.
 */
import { ApiError } from './errors.js';

/** What resolution needs of a tenant. */
export interface TenantRef {
  id: string;
  slug: string;
  suspended: boolean;
}

/** Read access to the tenants table. `byOrigins` matches any of the given exact origins. */
export interface TenantLookup {
  bySlug(slug: string): Promise<TenantRef | null>;
  byOrigins(origins: string[]): Promise<TenantRef | null>;
  platform(): Promise<TenantRef | null>;
}

/** The request headers resolution reads (absent = undefined or empty). */
export interface TenantHints {
  slug?: string;
  origin?: string;
  host?: string;
}

/** Normalises an Origin header (`scheme://host[:port]`, lower case, no path); null if malformed. */
export function normaliseOrigin(origin: string): string | null {
  try {
    const u = new URL(origin);
    return u.origin === 'null' ? null : u.origin.toLowerCase();
  } catch {
    return null;
  }
}

/**
 * Resolves the tenant of a request.
 * @throws ApiError `404 unknown_tenant_origin` when no rule applies.
 */
export async function resolveTenant(hints: TenantHints, lookup: TenantLookup): Promise<TenantRef> {
  if (hints.slug) {
    const bySlug = await lookup.bySlug(hints.slug);
    if (bySlug) return bySlug;
  }
  if (hints.origin) {
    const origin = normaliseOrigin(hints.origin);
    const match = origin ? await lookup.byOrigins([origin]) : null;
    if (match) return match;
    throw new ApiError(
      'unknown_tenant_origin',
      `origin ${hints.origin} is not registered on any tenant; send X-Tenant-Slug`,
    );
  }
  if (hints.host) {
    const host = hints.host.toLowerCase();
    const match = await lookup.byOrigins([`http://${host}`, `https://${host}`]);
    if (match) return match;
    throw new ApiError(
      'unknown_tenant_origin',
      `host ${hints.host} is not registered on any tenant; send X-Tenant-Slug`,
    );
  }
  const platform = await lookup.platform();
  if (platform) return platform;
  throw new ApiError('unknown_tenant_origin', 'no platform tenant is configured');
}

/**
 * Schemas of `/api/v1/tenants/*` and the public reads `/api/branding`, `/api/theme`, `/api/features`
 * (docs/api.md §2.4, §4.2), documented in the OpenAPI document; the sections are domain/tenant/config.ts's.
 */
import { z } from 'zod';
import {
  accountsSchema,
  brandingSchema,
  flagsSchema,
  planSchema,
  themeSchema,
  venuesSchema,
} from '../../../domain/tenant/config.js';

export const tenantParams = z.object({ id: z.string().min(1).max(255) });

export const originsBody = z
  .object({
    origins: z
      .array(z.string().min(1).max(255))
      .max(50)
      .meta({ description: 'Origins such as `https://trade.acme.com`' }),
  })
  .meta({ id: 'TenantOrigins' });

/** The branding as served: its display name defaults to the tenant's, so it is always there. */
export const brandingView = brandingSchema.extend({ displayName: z.string() }).meta({ id: 'Branding' });

/** `GET /api/v1/tenants/me` (modules/tenants/presenters/tenants.ts `tenantView`): every section, defaults filled. */
export const tenantView = z
  .object({
    id: z.string(),
    slug: z.string(),
    displayName: z.string(),
    origins: z.array(z.string()),
    branding: brandingView,
    theme: themeSchema,
    flags: flagsSchema,
    venues: venuesSchema,
    plan: planSchema,
    accounts: accountsSchema,
    fees: z
      .object({ makerBps: z.string(), takerBps: z.string() })
      .meta({ description: 'Fee schedule, basis points as decimal strings' }),
  })
  .meta({ id: 'Tenant' });

/** `PUT /api/v1/tenants/{id}/origins`: the registered origins. */
export const originsView = z.object({ origins: z.array(z.string()) });

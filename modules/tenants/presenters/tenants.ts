/** A tenant as the API shows it (docs/api.md §2.4, §4.2; sections and defaults: domain/tenant/config.ts). */
import { readSection } from '../../../domain/tenant/config.js';
import type { TenantRow } from '../../../db/entities.js';

/** Every section of a tenant, defaults filled; the branding's display name defaults to the tenant's. */
export function tenantView(t: TenantRow) {
  return {
    id: t.id,
    slug: t.slug,
    displayName: t.displayName,
    origins: t.origins,
    branding: {
      ...readSection('branding', t.branding),
      displayName: readSection('branding', t.branding).displayName ?? t.displayName,
    },
    theme: readSection('theme', t.theme),
    flags: readSection('flags', t.flags),
    venues: readSection('venues', t.venues),
    plan: readSection('plan', t.plan),
    accounts: readSection('accounts', t.accounts),
    fees: t.feeSchedule,
  };
}

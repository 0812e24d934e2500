/**
 * What a tenant's configuration lets its traders and operators do (docs/api.md §2.4; issue 17): the
 * venues and symbols it offers (`venues.enabled`, `venues.symbols`), the feature flags that switch a
 * platform feature ({@link FEATURE_FLAGS}) and the plan's switches ({@link PLAN_FEATURES}) and account
 * limit. Each check answers the refusal, or null when allowed. Pure: the caller reads the sections
 * (domain/tenant/config.ts `readSection`).
 */
import { ApiError } from '../errors.js';
import type { z } from 'zod';
import {
  readSection,
  FEATURE_FLAGS,
  PLAN_FEATURES,
  type FeatureFlag,
  type PlanFeature,
  type flagsSchema,
  type planSchema,
  type venuesSchema,
} from './config.js';

/** The `venues` section as read (defaults filled). */
export type TenantVenues = z.infer<typeof venuesSchema>;
/** The `flags` section as read. */
export type TenantFlags = z.infer<typeof flagsSchema>;
/** The `plan` section as read. */
export type TenantPlan = z.infer<typeof planSchema>;

/** The sections of a tenant that decide what it is offered, defaults filled. */
export interface TenantRules {
  venues: TenantVenues;
  flags: TenantFlags;
  plan: TenantPlan;
}

/** Where a tenant's rules are read (the api's authentication cache: api/auth/auth-cache.ts). */
export interface TenantRulesReader {
  /** The rules of tenant `tenantId`. */
  tenantRules(tenantId: string): Promise<TenantRules>;
}

/** The rules of a tenant row's stored sections (JSON as stored; defaults filled). */
export function rulesOf(row: { venues: unknown; flags: unknown; plan: unknown }): TenantRules {
  return {
    venues: readSection('venues', row.venues),
    flags: readSection('flags', row.flags),
    plan: readSection('plan', row.plan),
  };
}

/** True when `venue` is one of the tenant's `venues.enabled`. */
export function venueEnabled(venues: TenantVenues, venue: string): boolean {
  return venues.enabled.includes(venue);
}

/** True when the venue is enabled and `symbol` is in its `venues.symbols` list (no list: every symbol). */
export function symbolEnabled(venues: TenantVenues, venue: string, symbol: string): boolean {
  const only = Object.hasOwn(venues.symbols, venue) ? venues.symbols[venue] : undefined;
  return venueEnabled(venues, venue) && (!only || only.includes(symbol));
}

/** The entries of `list` (a venue's symbols) the tenant offers, in their order; none when the venue is not enabled. */
export function enabledSymbols<S extends { symbol: string }>(
  venues: TenantVenues,
  venue: string,
  list: readonly S[],
): S[] {
  return list.filter((s) => symbolEnabled(venues, venue, s.symbol));
}

/** `403 venue_not_enabled` for a venue the tenant does not offer, else null. */
export function venueRefusal(venues: TenantVenues, venue: string): ApiError | null {
  return venueEnabled(venues, venue)
    ? null
    : new ApiError(
        'venue_not_enabled',
        `venue ${venue} is not enabled for this tenant; GET /api/v1/venues lists the venues it offers`,
      );
}

/**
 * The refusal of a venue/symbol pair the tenant does not offer: `403 venue_not_enabled`, or
 * `403 symbol_not_enabled` for a symbol outside the venue's `venues.symbols` list; null when offered.
 */
export function pairRefusal(venues: TenantVenues, venue: string, symbol: string): ApiError | null {
  const venueNo = venueRefusal(venues, venue);
  if (venueNo) return venueNo;
  return symbolEnabled(venues, venue, symbol)
    ? null
    : new ApiError(
        'symbol_not_enabled',
        `symbol ${symbol} of ${venue} is not enabled for this tenant; GET /api/v1/symbols/${venue} lists those it offers`,
      );
}

/** `403 feature_disabled` when the tenant turned `flag` off, else null. */
export function flagRefusal(flags: TenantFlags, flag: FeatureFlag): ApiError | null {
  return flags[flag] === false
    ? new ApiError('feature_disabled', `${FEATURE_FLAGS[flag]} is switched off for this tenant (flag ${flag})`, {
        flag,
      })
    : null;
}

/** `403 plan_feature_unavailable` when the plan does not include `feature`, else null. */
export function planFeatureRefusal(plan: TenantPlan, feature: PlanFeature): ApiError | null {
  return plan[feature]
    ? null
    : new ApiError(
        'plan_feature_unavailable',
        `the ${plan.name} plan of this tenant does not include ${PLAN_FEATURES[feature]}`,
        { feature, plan: plan.name },
      );
}

/** `409 plan_limit_reached` when the tenant already holds `held` of the plan's `maxAccounts` accounts, else null. */
export function accountLimitRefusal(plan: TenantPlan, held: number): ApiError | null {
  return held < plan.maxAccounts
    ? null
    : new ApiError(
        'plan_limit_reached',
        `the ${plan.name} plan of this tenant allows ${plan.maxAccounts} accounts and it holds ${held}`,
        { limit: 'maxAccounts', max: plan.maxAccounts, held },
      );
}

/**
 * Access gates as tables (docs/api.md §5.3-5.5): audience, tier and operator scope. The api's gate
 * middleware looks a route's requirement up here; nothing else decides access.
 */
import { ApiError } from './errors.js';

/** Trader tiers, weakest first (docs/api.md §5.5). */
export const TIERS = ['readonly', 'liquidation', 'fullTrading'] as const;
export type Tier = (typeof TIERS)[number];

/** Credential audiences (docs/api.md §2.1). */
export const AUDIENCES = ['trader', 'operator'] as const;
export type Audience = (typeof AUDIENCES)[number];

/** Operator scopes (docs/api.md §5.4). */
export const SCOPES = [
  'prop:manage',
  'firm:operate',
  'tenant:config',
  'accounts:intervene',
  'credentials:manage',
] as const;
export type Scope = (typeof SCOPES)[number];

/** Tier needed by each OMS write (docs/api.md §5.5); reads need no tier. */
export const OMS_WRITE_TIER = {
  intents: 'fullTrading',
  cancel: 'liquidation',
  'cancel-all': 'liquidation',
  flatten: 'liquidation',
  modify: 'fullTrading',
  reverse: 'fullTrading',
  chase: 'fullTrading',
  'brackets/attach': 'fullTrading',
  'brackets/attach-to-position': 'fullTrading',
  'brackets/modify': 'fullTrading',
} as const satisfies Record<string, Tier>;
export type OmsWrite = keyof typeof OMS_WRITE_TIER;

const rank = (t: Tier) => TIERS.indexOf(t);

/**
 * Refuses a tier below `needed`: `403 tier_readonly` when the credential is `readonly`,
 * `403 tier_insufficient` otherwise; `detail` names the tier held and the tier needed.
 */
export function checkTier(held: Tier, needed: Tier): ApiError | null {
  if (rank(held) >= rank(needed)) return null;
  const code = held === 'readonly' ? 'tier_readonly' : 'tier_insufficient';
  return new ApiError(code, `credential tier is ${held}; this route needs ${needed}`, { held, needed });
}

/** Refuses the wrong audience: `403 wrong_credential_audience` with `expected` and `actual`. */
export function checkAudience(actual: Audience, expected: Audience): ApiError | null {
  if (actual === expected) return null;
  return new ApiError('wrong_credential_audience', `this surface is for ${expected} credentials`, { expected, actual });
}

/** Refuses a missing operator scope: `403 forbidden`. */
export function checkScope(held: readonly string[], needed: Scope): ApiError | null {
  return held.includes(needed) ? null : new ApiError('forbidden', `missing scope ${needed}`);
}

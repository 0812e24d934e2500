/**
 * A tenant's configuration obeyed (docs/api.md §2.4; issue 17): the checks the other contexts call where
 * a tenant's venues, symbols, flags and plan decide. The rules are domain/tenant/entitlements.ts; they are
 * read through a {@link TenantRulesReader} (the api's authentication cache, which holds them in memory
 * until NOTIFY `tenant_changed`), except the account limit, which counts under a lock.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { readSection, type FeatureFlag, type PlanFeature } from '../../../domain/tenant/config.js';
import {
  accountLimitRefusal,
  flagRefusal,
  pairRefusal,
  planFeatureRefusal,
  type TenantRulesReader,
} from '../../../domain/tenant/entitlements.js';

/**
 * Refuses a venue/symbol pair the tenant does not offer (compose, market data; docs/api.md §2.4).
 * @throws ApiError `403 venue_not_enabled`, `403 symbol_not_enabled`.
 */
export async function assertPairEnabled(
  rules: TenantRulesReader,
  tenantId: string,
  venue: string,
  symbol: string,
): Promise<void> {
  const refusal = pairRefusal((await rules.tenantRules(tenantId)).venues, venue, symbol);
  if (refusal) throw refusal;
}

/**
 * Refuses a feature the tenant's plan does not include; with `flag`, also one the tenant switched off.
 * @throws ApiError `403 plan_feature_unavailable`, `403 feature_disabled`.
 */
export async function assertPlanFeature(
  reader: TenantRulesReader,
  tenantId: string,
  feature: PlanFeature,
  flag?: FeatureFlag,
): Promise<void> {
  const rules = await reader.tenantRules(tenantId);
  const refusal = planFeatureRefusal(rules.plan, feature) ?? (flag ? flagRefusal(rules.flags, flag) : null);
  if (refusal) throw refusal;
}

/**
 * Refuses one more account past the plan's `maxAccounts`. Call it in the transaction `tx` that creates
 * the account: it locks the tenant row (`for no key update`), so concurrent creations are counted one
 * after the other and the limit holds exactly. @throws ApiError `409 plan_limit_reached`.
 */
export async function assertAccountRoom(tx: EntityManager, tenantId: string): Promise<void> {
  const [row] = await tx.execute<{ plan: unknown }[]>(`select plan from tenants where id = ? for no key update`, [
    tenantId,
  ]);
  const [{ n }] = await tx.execute<{ n: number }[]>(`select count(*)::int as n from accounts where tenant_id = ?`, [
    tenantId,
  ]);
  const refusal = accountLimitRefusal(readSection('plan', row?.plan), n);
  if (refusal) throw refusal;
}

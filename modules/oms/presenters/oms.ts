/**
 * OMS answers that are not a stored row (docs/api.md §4.4): the batch plan of flatten and reverse.
 * Intents themselves are shown by db/views.ts `intentToView`.
 */
import type { BatchPlan } from '../workflows/batch.definitions.js';

/** A planned batch as flatten and reverse answer it (oms.schemas.ts `batchPlanView`): each leg with the side and size of its order. */
export function batchPlanView(plan: BatchPlan) {
  return {
    ...plan,
    legs: plan.legs.map((l) => ({
      n: l.n,
      action: l.action,
      intentId: l.intentId,
      symbol: l.symbol,
      ...(l.intent ? { side: l.intent.side, qty: l.intent.qty } : {}),
    })),
  };
}

/**
 * Activity result shapes shared with workflows (workflows import these types only).
 */
import type { IntentState } from '../domain/oms/intent.js';

/** Outcome of the pre-dispatch risk check. `reason` is a stable snake_case code. */
export type RiskVerdict = { ok: true } | { ok: false; reason: string };

/** What a dispatch or a resting-order check left the intent in. `resting` = a working order is open. */
export interface DispatchOutcome {
  state: IntentState;
  resting: boolean;
  venueOrderId: string | null;
  reason?: string;
  /** Filled so far (contracts) and average fill price (USD), decimal strings. */
  filledQty?: string;
  avgFillPrice?: string | null;
}

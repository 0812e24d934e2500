/**
 * Smart-routing decisions as the API shows them (docs/api.md §2.11, §4.5; sor.schemas.ts `decisionView`).
 */
import { Decimal, fmt } from '../../../domain/decimal.js';
import type { SorVenue } from '../../../domain/sor/cost.js';
import type { CandidateView } from '../../../domain/sor/decide.js';

/** A stored decision row (`sor_decisions`); numerics arrive as strings. */
export interface DecisionRow {
  id: string;
  account_id: string;
  intent_id: string;
  asset: string;
  side: 'buy' | 'sell';
  qty: string;
  selected_venue: SorVenue;
  selected_symbol: string;
  candidates: CandidateView[];
  eligible_count: number;
  estimated_cost_usd: string;
  estimated_cost_bps: string;
  selected_all_in_price: string;
  mark: string;
  next_best_venue: SorVenue | null;
  next_best_cost_usd: string | null;
  next_best_cost_bps: string | null;
  next_best_all_in_price: string | null;
  savings_usd: string | null;
  created_at: Date;
}

const canon = (v: string) => fmt(new Decimal(v));

/** The API view of a stored decision (decimal strings canonical, time ISO 8601). */
export function toDecisionView(r: DecisionRow) {
  return {
    decisionId: r.id,
    intentId: r.intent_id,
    accountId: r.account_id,
    asset: r.asset,
    side: r.side,
    qty: canon(r.qty),
    selectedVenue: r.selected_venue,
    selectedSymbol: r.selected_symbol,
    mark: canon(r.mark),
    estimatedCostUsd: canon(r.estimated_cost_usd),
    estimatedCostBps: canon(r.estimated_cost_bps),
    estimatedAllInPrice: canon(r.selected_all_in_price),
    nextBest:
      r.next_best_venue && r.next_best_cost_usd && r.next_best_cost_bps && r.next_best_all_in_price
        ? {
            venue: r.next_best_venue,
            estimatedCostUsd: canon(r.next_best_cost_usd),
            estimatedCostBps: canon(r.next_best_cost_bps),
            allInPrice: canon(r.next_best_all_in_price),
          }
        : null,
    savingsVsNextBestUsd: r.savings_usd == null ? null : canon(r.savings_usd),
    candidates: r.candidates,
    decidedAt: new Date(r.created_at).toISOString(),
  };
}

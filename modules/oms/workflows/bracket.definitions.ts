/**
 * Contract of the bracket workflow `bracket-<bracketId>` (modules/oms/workflows/bracket.ts, docs/api.md §3.3): its id,
 * input and view, the `attach` and `moveBracket` Updates and the `bracket` Query.
 */
import { defineQuery, defineUpdate } from '@temporalio/workflow';

/** Workflow id of a bracket: `bracket-<bracketId>`; attach uses the parent intent id as bracket id. */
export const bracketWorkflowId = (bracketId: string) => `bracket-${bracketId}`;

/** A take-profit / stop-loss pair protecting a parent intent's fill, or an open position. */
export interface BracketInput {
  bracketId: string;
  tenantId: string;
  accountId: string;
  credentialId: string;
  venue: string;
  symbol: string;
  /** Attach: the parent intent; attach-to-position: null (protects the position as it is). */
  parentIntentId: string | null;
  /** Trigger prices, USD decimal strings; at least one. */
  tpPrice: string | null;
  slPrice: string | null;
}

/** A bracket as the API shows it. `staged` while the parent is unfilled; legs arm on its fill. */
export interface BracketView {
  bracketId: string;
  accountId: string;
  parentIntentId: string | null;
  state: 'staged' | 'armed' | 'closed' | 'canceled';
  staged: boolean;
  symbol: string;
  tpPrice: string | null;
  slPrice: string | null;
  /** The working orders of the armed legs (reduce-only take_profit and stop). */
  legs: { tp: string | null; sl: string | null };
  /** Which leg filled, once one did (the other is canceled: OCO). */
  filledLeg: 'tp' | 'sl' | null;
}

/** Update sent with the bracket's start: answers the bracket (staged or armed). */
export const attachUpdate = defineUpdate<BracketView>('attach');
/** Update: move the legs' trigger prices (cancel-replace of an armed leg). `invalid_state` once closed. */
export const moveBracketUpdate = defineUpdate<BracketView, [{ tpPrice?: string; slPrice?: string }]>('moveBracket');
/** Query: the bracket now. */
export const bracketQuery = defineQuery<BracketView>('bracket');

/**
 * Contract of the flatten / reverse batch workflow `batch-<batchId>` (modules/oms/workflows/batch.ts, docs/api.md §3.1):
 * its id, input, plan and outcome, and the `plan` Update.
 */
import { defineUpdate } from '@temporalio/workflow';
import type { IntentState } from '../../../domain/oms/intent.js';
import type { IntentWorkflowInput } from './intent.definitions.js';

/** Workflow id of a flatten or reverse batch: `batch-<batchId>`. */
export const batchWorkflowId = (batchId: string) => `batch-${batchId}`;

/** A flatten (every position of the account) or a reverse (one symbol) request. */
export interface BatchInput {
  batchId: string;
  kind: 'flatten' | 'reverse';
  tenantId: string;
  accountId: string;
  credentialId: string;
  /** Reverse only: the venue-suffixed symbol whose position flips. */
  symbol?: string;
}

/** One leg, in order: cancels, then closes, then opens (docs/api.md §3.1). */
export interface BatchLeg {
  n: number;
  action: 'cancel' | 'close' | 'open';
  intentId: string;
  symbol: string;
  /** For close and open legs: the intent the leg composes (a market order). */
  intent?: IntentWorkflowInput;
}

/** The planned batch, as flatten and reverse answer it. */
export interface BatchPlan {
  batchId: string;
  kind: BatchInput['kind'];
  accountId: string;
  legs: BatchLeg[];
}

/** How each leg ended. */
export interface BatchOutcome {
  batchId: string;
  legs: { n: number; intentId: string; action: BatchLeg['action']; state: IntentState }[];
}

/** Update sent with the batch's start: answers the planned legs (early return). */
export const planUpdate = defineUpdate<BatchPlan>('plan');

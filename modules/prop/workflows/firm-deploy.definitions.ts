/**
 * Contract of a firm's deployment `firm-deploy-<firmId>` (modules/prop/workflows/firm-deploy.ts, docs/api.md §1 custody
 * rules, §3.5, §4.8): its id, input and status, the `firmDeploy` Query and the `firmStatus` Update.
 */
import { defineQuery, defineUpdate } from '@temporalio/workflow';

/** Workflow id of a firm's deployment and its go-live/pause lifecycle: `firm-deploy-<firmId>`. */
export const firmDeployWorkflowId = (firmId: string) => `firm-deploy-${firmId}`;

/**
 * Input of `firmDeployWorkflow`. `pollMs`: receipt polling interval (ms; default 1000).
 * `deployed`: set by the workflow itself when it continues as new (its history reached its bound, or
 * Temporal suggested a fresh one): the status it carries on; a run started with it deploys nothing and
 * only takes the `live` / `paused` transitions. `historyBound`: events a run's history may reach before
 * it continues as new (workflows/continue-as-new.ts; unset: the worker's `WORKFLOW_HISTORY_BOUND`).
 */
export interface FirmDeployInput {
  tenantId: string;
  firmId: string;
  pollMs?: number;
  deployed?: FirmDeployStatus;
  historyBound?: number;
}

/** The steps of a firm deploy, in order; `live` and `paused` follow by Update. */
export type FirmDeployStep =
  'signing' | 'broadcast' | 'confirming' | 'verifying' | 'deployed' | 'live' | 'paused' | 'failed';

/** What the `firmDeploy` Query answers: the current step, the transaction hashes and the instance. */
export interface FirmDeployStatus {
  firmId: string;
  step: FirmDeployStep;
  /** The platform deployer (gas only; never the owner). */
  deployer: string | null;
  nonce: number | null;
  txHashes: { deploy: string | null };
  instanceAddress: string | null;
  rulesHash: string | null;
  confirmations: number;
  blockNumber: string | null;
  gasUsed: string | null;
  error: string | null;
}

/** Query: the deploy's current step and transaction hashes. */
export const firmDeployQuery = defineQuery<FirmDeployStatus>('firmDeploy');

/**
 * Update: `live` (from `deployed` or `paused`) or `paused` (from `live`). The validator refuses any
 * other transition with an ApplicationFailure of type `invalid_state`.
 */
export const firmStatusUpdate = defineUpdate<FirmDeployStatus, [{ to: 'live' | 'paused' }]>('firmStatus');

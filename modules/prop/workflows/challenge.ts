/**
 * `challenge-<propAccountId>` (docs/api.md §3.5; docs/architecture.md "Temporal model"): waits for the challenge
 * deposit on the firm's PropInstance, then watches the account's rules — on its timer (`pollMs`,
 * default 5 s) and at once when a fill of the account signals `evaluate` — until it passes or
 * breaches. A breach makes the account terminal and flattens its positions through the OMS batch
 * (child workflow `batch-<batchId>`); a pass moves no money and records the payout ceiling.
 * Continues as new (with its input; the new run reads the deposit and rules again) when Temporal suggests
 * it or, since the patch `challenge-history-bound`, once its history reaches its bound (`historyBound`,
 * default the worker's `WORKFLOW_HISTORY_BOUND`), in either wait. States: `pending_payment` → `active` →
 * `passed` | `breached`; an operator suspension, reset or promotion ends the watch (`stopped`).
 */
import {
  condition,
  continueAsNew,
  executeChild,
  proxyActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../../../activities/index.js';
import { searchAttributes } from '../../../workflows/shared.definitions.js';
import { HistoryBound } from '../../../workflows/continue-as-new.js';
import { batchWorkflowId } from '../../oms/workflows/batch.definitions.js';
import { challengeQuery, evaluateSignal, type ChallengeInput, type ChallengeStatus } from './challenge.definitions.js';
import { batchWorkflow } from '../../oms/workflows/batch.js';

const { checkChallengeDeposit, evaluateChallengeRules, breachFlattenInput } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '30 seconds', backoffCoefficient: 2 },
});

/** Patch id of continuing as new at the history bound (issue 14), also while the deposit is awaited; before it only when Temporal suggested it, once active. */
const BOUND_PATCH = 'challenge-history-bound';

export async function challengeWorkflow(input: ChallengeInput): Promise<ChallengeStatus> {
  const pollMs = input.pollMs ?? 5000;
  let status: ChallengeStatus = {
    propAccountId: input.propAccountId,
    status: 'pending_payment',
    depositTxHash: null,
    breachReason: null,
    payoutCeilingUsd: null,
    flattenBatchId: null,
  };
  let wake = false;
  setHandler(challengeQuery, () => status);
  setHandler(evaluateSignal, () => void (wake = true));

  let history: HistoryBound | undefined;
  /** Since BOUND_PATCH (consulted at the first look): the run's history reached its bound, or Temporal suggests a fresh one. */
  const pastBound = async () => {
    history ??= new HistoryBound(BOUND_PATCH, input.historyBound);
    return history.reached && (await history.check());
  };
  const continued = () => ({ ...input, ...history?.carried() });

  status = await checkChallengeDeposit(input.tenantId, input.propAccountId);
  while (status.status === 'pending_payment') {
    await sleep(pollMs);
    status = await checkChallengeDeposit(input.tenantId, input.propAccountId);
    // Before the patch this wait had no bound; a run from before it consults the patch here and keeps waiting.
    if (status.status === 'pending_payment' && (await pastBound()))
      await continueAsNew<typeof challengeWorkflow>(continued());
  }

  for (;;) {
    const { outcome, status: next } = await evaluateChallengeRules(input.tenantId, input.propAccountId);
    status = next;
    if (outcome === 'breached') {
      const batch = await breachFlattenInput(input.tenantId, input.propAccountId);
      await executeChild(batchWorkflow, {
        workflowId: batchWorkflowId(batch.batchId),
        args: [batch],
        typedSearchAttributes: searchAttributes(batch),
      });
      return status;
    }
    if (outcome !== 'active') return status;
    if (workflowInfo().continueAsNewSuggested || (await pastBound()))
      await continueAsNew<typeof challengeWorkflow>(continued());
    wake = false;
    await condition(() => wake, pollMs);
  }
}

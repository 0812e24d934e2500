/**
 * `challenge-<propAccountId>` (docs/api.md §3.5; docs/architecture.md "Temporal model"): waits for the challenge
 * deposit on the firm's PropInstance, then watches the account's rules — on its timer (`pollMs`,
 * default 5 s) and at once when a fill of the account signals `evaluate` — until it passes or
 * breaches. A breach makes the account terminal and flattens its positions through the OMS batch
 * (child workflow `batch-<batchId>`); a pass moves no money and records the payout ceiling.
 * Continues as new when the history grows long. States: `pending_payment` → `active` →
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
import { batchWorkflowId } from '../../oms/workflows/batch.definitions.js';
import { challengeQuery, evaluateSignal, type ChallengeInput, type ChallengeStatus } from './challenge.definitions.js';
import { batchWorkflow } from '../../oms/workflows/batch.js';

const { checkChallengeDeposit, evaluateChallengeRules, breachFlattenInput } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '30 seconds', backoffCoefficient: 2 },
});

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

  status = await checkChallengeDeposit(input.tenantId, input.propAccountId);
  while (status.status === 'pending_payment') {
    await sleep(pollMs);
    status = await checkChallengeDeposit(input.tenantId, input.propAccountId);
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
    if (workflowInfo().continueAsNewSuggested) await continueAsNew<typeof challengeWorkflow>(input);
    wake = false;
    await condition(() => wake, pollMs);
  }
}

/**
 * `firm-deploy-<firmId>` (docs/api.md §1 custody rules, §4.8; docs/architecture.md "Temporal model"): sign the
 * PropInstance deploy once, broadcast it from the gas-only platform deployer, wait for the
 * receipt and its confirmations, verify on-chain that the firm's multisig owns the instance, then
 * take the operator's `live` / `paused` Updates. The `firmDeploy` Query answers the step
 * and the transaction hash at any time. The signed transaction is in this workflow's history, so
 * a worker or chain-node restart re-sends the same transaction and never deploys twice.
 *
 * Each transition adds about ten events to the history; when Temporal suggests a fresh history
 * (`continueAsNewSuggested`: thousands of events) or, since the patch `firm-deploy-history-bound`, the
 * history reaches its bound (`historyBound`, default the worker's `WORKFLOW_HISTORY_BOUND`: 10,000 events),
 * the run continues as new with the status as input (`deployed`; behind the patch `firm-deploy-continues`),
 * so the history stays bounded. The workflow id stays, so the api's Query and Updates reach the current run.
 * It does not continue as new right after the deploy unless the bound is that low: on Temporal Server 1.29.1
 * an Update reaching a fresh run while its first workflow task is in flight was seen to wait 10 s (the
 * sticky-queue timeout), just when an operator goes live.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  patched,
  proxyActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../../../activities/index.js';
import { HistoryBound, readyToContinueAsNew } from '../../../workflows/continue-as-new.js';
import {
  firmDeployQuery,
  firmStatusUpdate,
  type FirmDeployInput,
  type FirmDeployStatus,
} from './firm-deploy.definitions.js';

const { signFirmDeploy, broadcastFirmDeploy, firmDeployReceipt, verifyFirmDeploy, recordFirmStatus } =
  proxyActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '500 milliseconds', maximumInterval: '30 seconds', backoffCoefficient: 2 },
  });

/** Operator transitions after the deploy: from → allowed targets. */
const TRANSITIONS: Partial<Record<FirmDeployStatus['step'], ('live' | 'paused')[]>> = {
  deployed: ['live'],
  live: ['paused'],
  paused: ['live'],
};

/** Patch id of continuing as new when Temporal suggests it; before it, a deployed firm's run kept one growing history. */
const CONTINUES_PATCH = 'firm-deploy-continues';
/** Patch id of continuing as new at the history bound too (issue 14; workflows/continue-as-new.ts `HistoryBound`). */
const BOUND_PATCH = 'firm-deploy-history-bound';

export async function firmDeployWorkflow(input: FirmDeployInput): Promise<FirmDeployStatus> {
  const status: FirmDeployStatus = input.deployed ?? {
    firmId: input.firmId,
    step: 'signing',
    deployer: null,
    nonce: null,
    txHashes: { deploy: null },
    instanceAddress: null,
    rulesHash: null,
    confirmations: 0,
    blockNumber: null,
    gasUsed: null,
    error: null,
  };
  setHandler(firmDeployQuery, () => status);
  setHandler(
    firmStatusUpdate,
    async ({ to }) => {
      await recordFirmStatus(input.tenantId, input.firmId, to);
      status.step = to;
      return status;
    },
    {
      validator: ({ to }: { to: 'live' | 'paused' }) => {
        if (!TRANSITIONS[status.step]?.includes(to))
          throw ApplicationFailure.create({
            type: 'invalid_state',
            message: `a firm that is ${status.step} cannot become ${to}`,
          });
      },
    },
  );

  if (!input.deployed) await deploy(input, status);
  // Deployed: the run stays to serialise the operator's live / pause transitions until its history reaches its bound
  // (since BOUND_PATCH) or Temporal suggests a fresh one, then continues as new with the status. A run from before
  // CONTINUES_PATCH that replays past a suggestion keeps waiting here, as it did.
  const bound = new HistoryBound(BOUND_PATCH, input.historyBound);
  const suggested = () => workflowInfo().continueAsNewSuggested;
  do await condition(() => (suggested() || bound.reached) && allHandlersFinished());
  while (!suggested() && !(await bound.check()));
  if (patched(CONTINUES_PATCH)) {
    await readyToContinueAsNew();
    return continueAsNew<typeof firmDeployWorkflow>({ ...input, ...bound.carried(), deployed: status });
  }
  await condition(() => false);
  return status;
}

/**
 * Signs, broadcasts, confirms and verifies the deploy, moving `status` along.
 * @throws ApplicationFailure (the workflow's failure, typed `deploy_reverted`, the activity's type, or `deploy_failed`).
 */
async function deploy(input: FirmDeployInput, status: FirmDeployStatus): Promise<void> {
  try {
    const signed = await signFirmDeploy(input.tenantId, input.firmId);
    Object.assign(status, {
      step: 'broadcast',
      deployer: signed.deployer,
      nonce: signed.nonce,
      txHashes: { deploy: signed.txHash },
      instanceAddress: signed.instanceAddress,
      rulesHash: signed.rulesHash,
    });
    await broadcastFirmDeploy(signed.rawTx);
    status.step = 'confirming';
    let receipt = await firmDeployReceipt(signed);
    while (!receipt.confirmed) {
      await sleep(input.pollMs ?? 1000);
      receipt = await firmDeployReceipt(signed);
    }
    Object.assign(status, { step: 'verifying', blockNumber: receipt.blockNumber, gasUsed: receipt.gasUsed });
    if (receipt.status !== 'success')
      throw ApplicationFailure.create({
        type: 'deploy_reverted',
        message: `deploy transaction ${signed.txHash} reverted`,
        nonRetryable: true,
      });
    await verifyFirmDeploy(input.tenantId, input.firmId, signed, receipt);
    status.step = 'deployed';
  } catch (err) {
    const cause = err instanceof ActivityFailure ? err.cause : err;
    status.step = 'failed';
    status.error =
      cause instanceof ApplicationFailure
        ? `${cause.type}: ${cause.message}`
        : String((cause as Error)?.message ?? cause);
    await recordFirmStatus(input.tenantId, input.firmId, 'draft');
    throw ApplicationFailure.create({
      type: cause instanceof ApplicationFailure && cause.type ? cause.type : 'deploy_failed',
      message: status.error,
      nonRetryable: true,
    });
  }
}

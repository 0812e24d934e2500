/**
 * `firm-deploy-<firmId>` (docs/api.md §1 custody rules, §4.8; docs/architecture.md "Temporal model"): sign the
 * PropInstance deploy once, broadcast it from the gas-only platform deployer, wait for the
 * receipt and its confirmations, verify on-chain that the firm's multisig owns the instance, then
 * stay to take the operator's `live` / `paused` Updates. The `firmDeploy` Query answers the step
 * and the transaction hash at any time. The signed transaction is in this workflow's history, so
 * a worker or chain-node restart re-sends the same transaction and never deploys twice.
 */
import { ApplicationFailure, ActivityFailure, condition, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { firmDeployQuery, firmStatusUpdate, type FirmDeployInput, type FirmDeployStatus } from './definitions.js';

const { signFirmDeploy, broadcastFirmDeploy, firmDeployReceipt, verifyFirmDeploy, recordFirmStatus } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '30 seconds', backoffCoefficient: 2 },
});

/** Operator transitions after the deploy: from → allowed targets. */
const TRANSITIONS: Partial<Record<FirmDeployStatus['step'], ('live' | 'paused')[]>> = { deployed: ['live'], live: ['paused'], paused: ['live'] };

export async function firmDeployWorkflow(input: FirmDeployInput): Promise<FirmDeployStatus> {
  const status: FirmDeployStatus = { firmId: input.firmId, step: 'signing', deployer: null, nonce: null, txHashes: { deploy: null }, instanceAddress: null, rulesHash: null, confirmations: 0, blockNumber: null, gasUsed: null, error: null };
  setHandler(firmDeployQuery, () => status);
  setHandler(
    firmStatusUpdate,
    async ({ to }) => {
      await recordFirmStatus(input.tenantId, input.firmId, to);
      status.step = to;
      return status;
    },
    {
      validator: ({ to }) => {
        if (!TRANSITIONS[status.step]?.includes(to)) throw ApplicationFailure.create({ type: 'invalid_state', message: `a firm that is ${status.step} cannot become ${to}` });
      },
    },
  );

  try {
    const signed = await signFirmDeploy(input.tenantId, input.firmId);
    Object.assign(status, { step: 'broadcast', deployer: signed.deployer, nonce: signed.nonce, txHashes: { deploy: signed.txHash }, instanceAddress: signed.instanceAddress, rulesHash: signed.rulesHash });
    await broadcastFirmDeploy(signed.rawTx);
    status.step = 'confirming';
    let receipt = await firmDeployReceipt(signed);
    while (!receipt.confirmed) {
      await sleep(input.pollMs ?? 1000);
      receipt = await firmDeployReceipt(signed);
    }
    Object.assign(status, { step: 'verifying', blockNumber: receipt.blockNumber, gasUsed: receipt.gasUsed });
    if (receipt.status !== 'success') throw ApplicationFailure.create({ type: 'deploy_reverted', message: `deploy transaction ${signed.txHash} reverted`, nonRetryable: true });
    await verifyFirmDeploy(input.tenantId, input.firmId, signed, receipt);
    status.step = 'deployed';
  } catch (err) {
    const cause = err instanceof ActivityFailure ? err.cause : err;
    status.step = 'failed';
    status.error = cause instanceof ApplicationFailure ? `${cause.type}: ${cause.message}` : String((cause as Error)?.message ?? cause);
    await recordFirmStatus(input.tenantId, input.firmId, 'draft');
    throw ApplicationFailure.create({ type: cause instanceof ApplicationFailure && cause.type ? cause.type : 'deploy_failed', message: status.error, nonRetryable: true });
  }
  // Deployed: the workflow stays to serialise the operator's live / pause transitions.
  await condition(() => false);
  return status;
}

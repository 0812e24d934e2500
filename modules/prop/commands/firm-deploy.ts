/**
 * A firm's deploy lifecycle (docs/api.md §1 custody rules, §4.8, scope `firm:operate`). The api never
 * touches the chain: it starts, queries and updates the workflow `firm-deploy-<firmId>`, whose
 * gas-only platform deployer broadcasts the PropInstance owned by the firm's multisig.
 */
import { ApiError } from '../../../domain/errors.js';
import { idBytes32, rulesHash } from '../../../domain/prop/commitments.js';
import { firmRules } from '../../../db/prop.js';
import { scoped } from '../../../db/orm.js';
import { SA } from '../../../workflows/shared.definitions.js';
import { firmDeployWorkflowId, firmStatusUpdate, type FirmDeployStatus } from '../workflows/firm-deploy.definitions.js';
import { firmDeployWorkflow } from '../workflows/firm-deploy.js';
import type { ApiDeps, Caller } from '../../../api/context.js';
import { deployment, firmOf, firmReadiness } from '../queries/firms.js';
import { viaWorkflow } from '../../../api/temporal-errors.js';

/**
 * Dry run: the readiness checks without the deployer check, the canonical rules, their hash and the
 * constructor arguments; nothing is broadcast. @throws ApiError `404 firm_not_found`.
 */
export async function deployDryRun(deps: ApiDeps, caller: Caller, firmId: string) {
  const em = scoped(deps.orm, caller.tenantId);
  const firm = await firmOf(em, firmId);
  const checks = (await firmReadiness(em, firm, deps.config.chain)).filter((c) => c.name !== 'deployer_configured');
  const rules = await firmRules(deps.orm, firm.tenantId, firm.id);
  const constructor = {
    owner: firm.ownerAddress,
    stablecoin: firm.stablecoinAddress,
    firmId: idBytes32(firm.id),
    rulesHash: rulesHash(rules),
  };
  return {
    dryRun: true as const,
    firmId: firm.id,
    ready: checks.every((c) => c.ok),
    checks,
    constructor,
    rules,
    chainId: firm.chainId,
  };
}

/**
 * Starts the live deploy (a repeated deploy attaches to the running one) and answers the deployment.
 * @throws ApiError `404 firm_not_found`, `503 deployer_unconfigured`, `409 firm_not_ready` with `checks`,
 *   `409 invalid_state` (already deployed), `404 deployment_not_found`.
 */
export async function deployFirm(deps: ApiDeps, caller: Caller, firmId: string): Promise<FirmDeployStatus> {
  const em = scoped(deps.orm, caller.tenantId);
  const firm = await firmOf(em, firmId);
  const checks = await firmReadiness(em, firm, deps.config.chain);
  if (!deps.config.chain.deployerKey)
    throw new ApiError('deployer_unconfigured', 'no platform deployer is configured (PROP_DEPLOYER_KEY)');
  const failed = checks.filter((c) => !c.ok);
  if (failed.length)
    throw new ApiError('firm_not_ready', `readiness checks failed: ${failed.map((c) => c.name).join(', ')}`, {
      checks,
    });
  if (firm.status !== 'draft' && firm.status !== 'deploying')
    throw new ApiError('invalid_state', `firm ${firm.id} is already ${firm.status}`);
  await deps.temporal.workflow.start(firmDeployWorkflow, {
    workflowId: firmDeployWorkflowId(firm.id),
    taskQueue: deps.config.temporal.taskQueue,
    args: [{ tenantId: firm.tenantId, firmId: firm.id, pollMs: deps.config.chain.pollMs }],
    workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: [{ key: SA.tenantId, value: firm.tenantId }],
  });
  return deployment(deps, firm.id, new ApiError('deployment_not_found', `no deployment of ${firm.id}`));
}

/** Takes a deployed firm live, or pauses a live one; answers the deployment. @throws ApiError `404 firm_not_found`, `409 invalid_state`. */
export async function setFirmStatus(
  deps: ApiDeps,
  caller: Caller,
  firmId: string,
  to: 'live' | 'paused',
): Promise<FirmDeployStatus> {
  const firm = await firmOf(scoped(deps.orm, caller.tenantId), firmId);
  return viaWorkflow(
    () =>
      deps.temporal.workflow
        .getHandle(firmDeployWorkflowId(firm.id))
        .executeUpdate(firmStatusUpdate, { args: [{ to }] }),
    new ApiError('invalid_state', `firm ${firm.id} is not deployed`),
  );
}

/**
 * Reads of the operator's firms (docs/api.md §4.8, scope `firm:operate`): a firm, its readiness to
 * deploy, its deployment (the `firmDeploy` Query of `firm-deploy-<firmId>`), its payouts.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { isAddress, zeroAddress } from 'viem';
import { ApiError } from '../../../domain/errors.js';
import { Firm, Payout, PropTemplate, type FirmRow, type PayoutRow } from '../../../db/entities.js';
import { firmDeployQuery, firmDeployWorkflowId, type FirmDeployStatus } from '../workflows/firm-deploy.definitions.js';
import type { ApiDeps } from '../../../api/context.js';
import { viaWorkflow } from '../../../api/temporal-errors.js';

/** The caller's tenant's firm `id` (`em` is tenant-scoped). @throws ApiError `404 firm_not_found`. */
export async function firmOf(em: EntityManager, id: string): Promise<FirmRow> {
  const firm = await em.findOne(Firm, { id });
  if (!firm) throw new ApiError('firm_not_found', `no firm ${id}`);
  return firm;
}

/** One readiness check (docs/api.md §4.8). */
export interface ReadinessCheck {
  name: 'owner_address' | 'stablecoin_address' | 'template' | 'chain_configured' | 'deployer_configured';
  ok: boolean;
  detail?: string;
}

/** The readiness checks of a firm, in order; it is ready when every check is ok. Reads PostgreSQL and the configuration only. */
export async function firmReadiness(
  em: EntityManager,
  firm: FirmRow,
  chain: { rpcUrl: string | null; deployerKey: string | null },
): Promise<ReadinessCheck[]> {
  const address = (a: string) => isAddress(a) && a.toLowerCase() !== zeroAddress;
  const templates = await em.count(PropTemplate, { firmId: firm.id, archived: false });
  const check = (name: ReadinessCheck['name'], ok: boolean, detail: string): ReadinessCheck =>
    ok ? { name, ok } : { name, ok, detail };
  return [
    check('owner_address', address(firm.ownerAddress), 'set ownerAddress to the multisig that will own the instance'),
    check('stablecoin_address', address(firm.stablecoinAddress), 'set stablecoinAddress'),
    check('template', templates > 0, 'create at least one challenge template (POST /api/v1/prop-templates)'),
    check('chain_configured', chain.rpcUrl != null, 'the platform has no CHAIN_RPC_URL'),
    check('deployer_configured', chain.deployerKey != null, 'the platform has no deployer key (PROP_DEPLOYER_KEY)'),
  ];
}

/**
 * The deploy's current step, transaction hash and instance.
 * @throws `whenNone` when the firm was never deployed, ApiError `503 service_unavailable`.
 */
export function deployment(deps: ApiDeps, firmId: string, whenNone: ApiError): Promise<FirmDeployStatus> {
  return viaWorkflow(
    () => deps.temporal.workflow.getHandle(firmDeployWorkflowId(firmId)).query(firmDeployQuery),
    whenNone,
  );
}

/** The firm's payout `payoutId`. @throws ApiError `404 payout_not_found`. */
export async function payoutOf(em: EntityManager, firmId: string, payoutId: string): Promise<PayoutRow> {
  const p = await em.findOne(Payout, { id: payoutId, firmId });
  if (!p) throw new ApiError('payout_not_found', `no payout ${payoutId} of firm ${firmId}`);
  return p;
}

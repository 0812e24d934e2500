/**
 * An operator's firms (docs/api.md §4.8 `/api/v1/firms`, scope `firm:operate`): create one (`draft`,
 * owned by the operator's multisig once deployed), rename it, change its addresses while `draft`.
 */
import { randomBytes } from 'node:crypto';
import { ApiError } from '../../../domain/errors.js';
import { Firm, type FirmRow } from '../../../db/entities.js';
import { scoped } from '../../../db/orm.js';
import type { ApiDeps, Caller } from '../../../api/context.js';
import { assertPlanFeature } from '../../tenants/queries/entitlements.js';
import { firmOf } from '../queries/firms.js';

/** The fields of a new firm (firms.schemas.ts `createFirmBody`). */
export interface NewFirm {
  name: string;
  ownerAddress: string;
  stablecoinAddress: string;
  chainId: number;
}

/**
 * Creates a `draft` firm of the caller's tenant.
 * @throws ApiError `403 plan_feature_unavailable` when the tenant's plan has no `propFirm` (docs/api.md §2.4).
 */
export async function createFirm(deps: ApiDeps, caller: Caller, body: NewFirm): Promise<FirmRow> {
  await assertPlanFeature(deps.auth, caller.tenantId, 'propFirm');
  const em = scoped(deps.orm, caller.tenantId);
  const firm = em.create(
    Firm,
    {
      id: `firm_${randomBytes(8).toString('hex')}`,
      tenantId: caller.tenantId,
      name: body.name,
      ownerAddress: body.ownerAddress,
      stablecoinAddress: body.stablecoinAddress,
      chainId: body.chainId,
      status: 'draft',
    },
    { partial: true },
  );
  await em.flush();
  return firm;
}

/** Renames a firm, or changes its addresses while `draft`. @throws ApiError `404 firm_not_found`, `409 invalid_state`. */
export async function updateFirm(
  deps: ApiDeps,
  caller: Caller,
  id: string,
  body: Partial<Pick<NewFirm, 'name' | 'ownerAddress' | 'stablecoinAddress'>>,
): Promise<FirmRow> {
  const em = scoped(deps.orm, caller.tenantId);
  const firm = await firmOf(em, id);
  if ((body.ownerAddress || body.stablecoinAddress) && firm.status !== 'draft')
    throw new ApiError('invalid_state', `firm ${firm.id} is ${firm.status}; its addresses are fixed once deployed`);
  Object.assign(firm, Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)));
  await em.flush();
  return firm;
}

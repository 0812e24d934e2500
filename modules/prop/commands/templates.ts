/**
 * Challenge templates (docs/api.md §3.5, §4.8 `/api/v1/prop-templates/*`, §5.4 `prop:manage`). A
 * template's rules are part of the firm's rules hash committed on-chain at deploy, so templates are
 * created, changed and archived only while their firm is `draft` (`409 invalid_state` after);
 * archiving keeps the challenges already sold.
 */
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../../../domain/errors.js';
import { PropTemplate, RiskProfile, TradingGroup, type FirmRow, type PropTemplateRow } from '../../../db/entities.js';
import { scoped } from '../../../db/orm.js';
import type { ApiDeps, Caller } from '../../../api/context.js';
import { firmOf } from '../queries/firms.js';

/** A template's fields (prop-templates.schemas.ts `createTemplateBody`; decimals as strings). */
export type TemplateFields = Record<string, unknown> & {
  firmId: string;
  tradingGroupId?: string | null;
  riskProfileId?: string | null;
};

/** @throws ApiError `409 invalid_state` unless the firm is `draft`. */
function assertDraft(firm: FirmRow): void {
  if (firm.status !== 'draft')
    throw new ApiError('invalid_state', `firm ${firm.id} is ${firm.status}: its rules are committed on-chain`);
}

/**
 * Refuses references to another tenant's (or no) trading group or risk profile.
 * @throws ApiError `404 trading_group_not_found`, `404 risk_profile_not_found`.
 */
async function checkRefs(em: EntityManager, refs: { tradingGroupId?: string | null; riskProfileId?: string | null }) {
  if (refs.tradingGroupId && !(await em.findOne(TradingGroup, { id: refs.tradingGroupId })))
    throw new ApiError('trading_group_not_found', `no trading group ${refs.tradingGroupId}`);
  if (refs.riskProfileId && !(await em.findOne(RiskProfile, { id: refs.riskProfileId })))
    throw new ApiError('risk_profile_not_found', `no risk profile ${refs.riskProfileId}`);
}

/** The template `id` (`em` is tenant-scoped). @throws ApiError `404 template_not_found`. */
export async function templateOf(em: EntityManager, id: string): Promise<PropTemplateRow> {
  const t = await em.findOne(PropTemplate, { id });
  if (!t) throw new ApiError('template_not_found', `no challenge template ${id}`);
  return t;
}

/** A template of a draft firm, for a change. @throws ApiError `404 template_not_found`, `404 firm_not_found`, `409 invalid_state`. */
async function editable(em: EntityManager, id: string): Promise<PropTemplateRow> {
  const t = await templateOf(em, id);
  assertDraft(await firmOf(em, t.firmId));
  return t;
}

/** Creates a template of a draft firm. @throws ApiError `404 firm_not_found`, `409 invalid_state`, as {@link checkRefs}. */
export async function createTemplate(deps: ApiDeps, caller: Caller, body: TemplateFields): Promise<PropTemplateRow> {
  const em = scoped(deps.orm, caller.tenantId);
  assertDraft(await firmOf(em, body.firmId));
  await checkRefs(em, body);
  const fields = {
    ...body,
    id: `tpl_${randomBytes(8).toString('hex')}`,
    tenantId: caller.tenantId,
    tradingGroupId: body.tradingGroupId ?? null,
    riskProfileId: body.riskProfileId ?? null,
    archived: false,
  };
  const t = em.create(PropTemplate, fields as never, { partial: true });
  await em.flush();
  return t;
}

/** Changes the given fields of a template of a draft firm. @throws as {@link editable} and {@link checkRefs}. */
export async function updateTemplate(
  deps: ApiDeps,
  caller: Caller,
  id: string,
  body: Record<string, unknown> & { tradingGroupId?: string | null; riskProfileId?: string | null },
) {
  const em = scoped(deps.orm, caller.tenantId);
  const t = await editable(em, id);
  await checkRefs(em, body);
  Object.assign(t, Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)));
  await em.flush();
  return t;
}

/** Archives a template of a draft firm. @throws as {@link editable}. */
export async function archiveTemplate(deps: ApiDeps, caller: Caller, id: string): Promise<PropTemplateRow> {
  const em = scoped(deps.orm, caller.tenantId);
  const t = await editable(em, id);
  t.archived = true;
  await em.flush();
  return t;
}

/**
 * Challenge templates (docs/api.md §3.5, §4.8 `/api/v1/prop-templates/*`, §5.4 `prop:manage`; operator
 * audience). A template's rules are part of the firm's rules hash committed on-chain at deploy, so
 * templates are created, changed and archived only while their firm is `draft`
 * (`409 invalid_state` after). `DELETE` archives (challenges already sold keep their template).
 *
 * - `POST /api/v1/prop-templates` → 201 template; `404 firm_not_found`, `404 trading_group_not_found`,
 *   `404 risk_profile_not_found`.
 * - `GET /api/v1/prop-templates?firmId&archived&limit&cursor`, `GET /…/{id}`, `PATCH /…/{id}`, `DELETE /…/{id}`.
 */
import Router from '@koa/router';
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../../domain/errors.js';
import { PropTemplate, RiskProfile, TradingGroup, type PropTemplateRow } from '../../db/entities.js';
import { scoped } from '../../db/orm.js';
import { templateRules } from '../../domain/prop/rules.js';
import { callerOf, gate } from '../middleware/auth.js';
import type { ApiContext, ApiDeps, ApiState } from '../context.js';
import type { OpenApiRegistry } from '../openapi.js';
import { endpoint } from '../route.js';
import { newestFirst } from './operator-list.js';
import { firmOf } from './firms.js';
import { createTemplateBody, patchTemplateBody, templateListQuery, templatePage, templateParams, templateView } from './prop-templates.schemas.js';

/** A template row as the API shows it. */
export function toTemplateView(t: PropTemplateRow) {
  return {
    id: t.id,
    firmId: t.firmId,
    name: t.name,
    ...templateRules(t),
    venue: t.venue,
    tradingGroupId: t.tradingGroupId ?? null,
    riskProfileId: t.riskProfileId ?? null,
    archived: t.archived,
    createdAt: new Date(t.createdAt).toISOString(),
  };
}

/** Refuses references to another tenant's (or no) trading group or risk profile. */
async function checkRefs(em: EntityManager, refs: { tradingGroupId?: string | null; riskProfileId?: string | null }) {
  if (refs.tradingGroupId && !(await em.findOne(TradingGroup, { id: refs.tradingGroupId }))) throw new ApiError('trading_group_not_found', `no trading group ${refs.tradingGroupId}`);
  if (refs.riskProfileId && !(await em.findOne(RiskProfile, { id: refs.riskProfileId }))) throw new ApiError('risk_profile_not_found', `no risk profile ${refs.riskProfileId}`);
}

export function propTemplateRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1' });
  const tags = ['prop-templates'];
  const read = gate({ audience: 'operator', scope: 'prop:manage' });
  const write = gate({ audience: 'operator', scope: 'prop:manage', write: true });
  const em = (ctx: ApiContext) => scoped(deps.orm, callerOf(ctx).tenantId);

  async function editable(e: EntityManager, id: string): Promise<PropTemplateRow> {
    const t = await e.findOne(PropTemplate, { id });
    if (!t) throw new ApiError('template_not_found', `no challenge template ${id}`);
    const firm = await firmOf(e, t.firmId);
    if (firm.status !== 'draft') throw new ApiError('invalid_state', `firm ${firm.id} is ${firm.status}: its rules are committed on-chain`);
    return t;
  }

  endpoint(router, openapi, { method: 'post', path: '/prop-templates', summary: 'Create a challenge template of a draft firm', tags, gate: write, requires: 'prop:manage', schemas: { body: createTemplateBody }, responses: { '201': { description: 'Template', schema: templateView } } }, async (ctx, { body }) => {
    const e = em(ctx);
    const firm = await firmOf(e, body.firmId);
    if (firm.status !== 'draft') throw new ApiError('invalid_state', `firm ${firm.id} is ${firm.status}: its rules are committed on-chain`);
    await checkRefs(e, body);
    const t = e.create(PropTemplate, { ...body, id: `tpl_${randomBytes(8).toString('hex')}`, tenantId: callerOf(ctx).tenantId, tradingGroupId: body.tradingGroupId ?? null, riskProfileId: body.riskProfileId ?? null, archived: false }, { partial: true });
    await e.flush();
    ctx.status = 201;
    ctx.body = toTemplateView(t);
  });

  endpoint(router, openapi, { method: 'get', path: '/prop-templates', summary: 'Challenge templates, newest first', tags, gate: read, requires: 'prop:manage', schemas: { query: templateListQuery }, responses: { '200': { description: 'Page', schema: templatePage } } }, async (ctx, { query }) => {
    const where = { ...(query.firmId ? { firmId: query.firmId } : {}), ...(query.archived ? { archived: query.archived === 'true' } : {}) };
    ctx.body = await newestFirst(em(ctx), PropTemplate, where, query, toTemplateView);
  });

  endpoint(router, openapi, { method: 'get', path: '/prop-templates/:id', summary: 'One challenge template', tags, gate: read, requires: 'prop:manage', schemas: { params: templateParams }, responses: { '200': { description: 'Template', schema: templateView } } }, async (ctx, { params }) => {
    const t = await em(ctx).findOne(PropTemplate, { id: params.id });
    if (!t) throw new ApiError('template_not_found', `no challenge template ${params.id}`);
    ctx.body = toTemplateView(t);
  });

  endpoint(router, openapi, { method: 'patch', path: '/prop-templates/:id', summary: 'Change a template of a draft firm', tags, gate: write, requires: 'prop:manage', schemas: { params: templateParams, body: patchTemplateBody }, responses: { '200': { description: 'Template', schema: templateView } } }, async (ctx, { params, body }) => {
    const e = em(ctx);
    const t = await editable(e, params.id);
    await checkRefs(e, body);
    Object.assign(t, Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)));
    await e.flush();
    ctx.body = toTemplateView(t);
  });

  endpoint(router, openapi, { method: 'delete', path: '/prop-templates/:id', summary: 'Archive a template of a draft firm', tags, gate: write, requires: 'prop:manage', schemas: { params: templateParams }, responses: { '200': { description: 'Template (archived)', schema: templateView } } }, async (ctx, { params }) => {
    const e = em(ctx);
    const t = await editable(e, params.id);
    t.archived = true;
    await e.flush();
    ctx.body = toTemplateView(t);
  });

  return router;
}

/**
 * `/api/v1/prop-templates*`: challenge templates (docs/api.md §3.5, §4.8, §5.4 `prop:manage`; operator
 * audience); only while their firm is `draft` (modules/prop/commands/templates.ts). `DELETE` archives.
 *
 * - `POST /api/v1/prop-templates` → 201 template; `404 firm_not_found`, `404 trading_group_not_found`,
 *   `404 risk_profile_not_found`, `409 invalid_state`.
 * - `GET /api/v1/prop-templates?firmId&archived&limit&cursor`, `GET /…/{id}`, `PATCH /…/{id}`, `DELETE /…/{id}`.
 */
import Router from '@koa/router';
import { PropTemplate } from '../../../db/entities.js';
import { archiveTemplate, createTemplate, templateOf, updateTemplate } from '../commands/templates.js';
import type { ApiDeps, ApiState } from '../../../api/context.js';
import { callerOf } from '../../../api/middleware/auth.js';
import type { OpenApiRegistry } from '../../../api/openapi.js';
import { toTemplateView } from '../presenters/prop.js';
import { newestFirst } from '../../../api/operator-list.js';
import { endpoint, operatorSurface } from '../../../api/route.js';
import {
  createTemplateBody,
  patchTemplateBody,
  templateListQuery,
  templatePage,
  templateParams,
  templateView,
} from './prop-templates.schemas.js';

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function propTemplateRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const { router, tags, read, write, requires, em } = operatorSurface(deps, 'prop:manage', ['prop-templates']);

  endpoint(
    router,
    openapi,
    {
      method: 'post',
      path: '/prop-templates',
      summary: 'Create a challenge template of a draft firm',
      tags,
      gate: write,
      requires,
      schemas: { body: createTemplateBody },
      responses: { '201': { description: 'Template', schema: templateView } },
    },
    async (ctx, { body }) => {
      const t = await createTemplate(deps, callerOf(ctx), body);
      ctx.status = 201;
      ctx.body = toTemplateView(t);
    },
  );

  endpoint(
    router,
    openapi,
    {
      method: 'get',
      path: '/prop-templates',
      summary: 'Challenge templates, newest first',
      tags,
      gate: read,
      requires,
      schemas: { query: templateListQuery },
      responses: { '200': { description: 'Page', schema: templatePage } },
    },
    async (ctx, { query }) => {
      const where = {
        ...(query.firmId ? { firmId: query.firmId } : {}),
        ...(query.archived ? { archived: query.archived === 'true' } : {}),
      };
      ctx.body = await newestFirst(em(ctx), PropTemplate, where, query, toTemplateView);
    },
  );

  endpoint(
    router,
    openapi,
    {
      method: 'get',
      path: '/prop-templates/:id',
      summary: 'One challenge template',
      tags,
      gate: read,
      requires,
      schemas: { params: templateParams },
      responses: { '200': { description: 'Template', schema: templateView } },
    },
    async (ctx, { params }) => {
      ctx.body = toTemplateView(await templateOf(em(ctx), params.id));
    },
  );

  endpoint(
    router,
    openapi,
    {
      method: 'patch',
      path: '/prop-templates/:id',
      summary: 'Change a template of a draft firm',
      tags,
      gate: write,
      requires,
      schemas: { params: templateParams, body: patchTemplateBody },
      responses: { '200': { description: 'Template', schema: templateView } },
    },
    async (ctx, { params, body }) => {
      ctx.body = toTemplateView(await updateTemplate(deps, callerOf(ctx), params.id, body));
    },
  );

  endpoint(
    router,
    openapi,
    {
      method: 'delete',
      path: '/prop-templates/:id',
      summary: 'Archive a template of a draft firm',
      tags,
      gate: write,
      requires,
      schemas: { params: templateParams },
      responses: { '200': { description: 'Template (archived)', schema: templateView } },
    },
    async (ctx, { params }) => {
      ctx.body = toTemplateView(await archiveTemplate(deps, callerOf(ctx), params.id));
    },
  );

  return router;
}

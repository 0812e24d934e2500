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
import { operatorSurface } from '../../../api/route.js';
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
  const { router, route, read, write, em } = operatorSurface(deps, openapi, 'prop:manage', ['prop-templates']);

  route
    .post('/prop-templates', 'Create a challenge template of a draft firm', write)
    .input({ body: createTemplateBody })
    .answers({ '201': { description: 'Template', schema: templateView } })
    .handle(async (ctx, { body }) => {
      const t = await createTemplate(deps, callerOf(ctx), body);
      ctx.status = 201;
      ctx.body = toTemplateView(t);
    });

  route
    .get('/prop-templates', 'Challenge templates, newest first', read)
    .input({ query: templateListQuery })
    .answers({ '200': { description: 'Page', schema: templatePage } })
    .handle(async (ctx, { query }) => {
      const where = {
        ...(query.firmId ? { firmId: query.firmId } : {}),
        ...(query.archived ? { archived: query.archived === 'true' } : {}),
      };
      ctx.body = await newestFirst(em(ctx), PropTemplate, where, query, toTemplateView);
    });

  route
    .get('/prop-templates/:id', 'One challenge template', read)
    .input({ params: templateParams })
    .answers({ '200': { description: 'Template', schema: templateView } })
    .handle(async (ctx, { params }) => {
      ctx.body = toTemplateView(await templateOf(em(ctx), params.id));
    });

  route
    .patch('/prop-templates/:id', 'Change a template of a draft firm', write)
    .input({ params: templateParams, body: patchTemplateBody })
    .answers({ '200': { description: 'Template', schema: templateView } })
    .handle(async (ctx, { params, body }) => {
      ctx.body = toTemplateView(await updateTemplate(deps, callerOf(ctx), params.id, body));
    });

  route
    .delete('/prop-templates/:id', 'Archive a template of a draft firm', write)
    .input({ params: templateParams })
    .answers({ '200': { description: 'Template (archived)', schema: templateView } })
    .handle(async (ctx, { params }) => {
      ctx.body = toTemplateView(await archiveTemplate(deps, callerOf(ctx), params.id));
    });

  return router;
}

/**
 * The endpoints of an operator collection (docs/api.md §4.8, §5.4 `prop:manage`; operator audience), from
 * one table per collection (modules/prop/routes/risk-profiles.ts, modules/prop/routes/trading-groups.ts): `POST` → 201,
 * `GET` (page, newest first), `GET /{id}`, `PUT /{id}` (the whole object), `DELETE /{id}`. Built on
 * {@link endpoint} like every route; the operations are modules/prop/commands/collections.ts.
 */
import type Router from '@koa/router';
import type { z } from 'zod';
import {
  createRow,
  deleteRow,
  replaceRow,
  rowOf,
  type CollectionData,
  type CollectionRow,
} from '../modules/prop/commands/collections.js';
import type { ApiContext, ApiDeps, ApiState } from './context.js';
import { callerOf, gate, callerEm } from './middleware/auth.js';
import type { OpenApiRegistry } from './openapi.js';
import { newestFirst } from './operator-list.js';
import { routesOf } from './route.js';
import { deletedView, idParams, listQuery } from './operator-common.schemas.js';

/** One collection: its path under `/api/v1`, OpenAPI tag, schemas and row view, with its data operations. */
export interface Collection<B extends z.ZodType> extends CollectionData<z.infer<B>> {
  path: string;
  tag: string;
  body: B;
  view: z.ZodType;
  page: z.ZodType;
  toView: (row: never) => unknown;
}

/** Registers the five endpoints of `c` on `router` (prefix `/api/v1`). */
export function collectionEndpoints<B extends z.ZodType>(
  router: Router<ApiState>,
  openapi: OpenApiRegistry,
  deps: ApiDeps,
  c: Collection<B>,
): void {
  const tags = [c.tag];
  const read = gate({ audience: 'operator', scope: 'prop:manage' });
  const write = gate({ audience: 'operator', scope: 'prop:manage', write: true });
  const requires = 'prop:manage';
  const data = c as unknown as CollectionData<never>;
  const toView = c.toView as (r: CollectionRow) => unknown;
  const em = (ctx: ApiContext) => callerEm(deps.orm, ctx);

  const route = routesOf(router, openapi, { tags, requires });

  route
    .post(c.path, `Create a ${c.noun}`, write)
    .input({ body: c.body })
    .answers({ '201': { description: c.noun, schema: c.view } })
    .handle(async (ctx, { body }) => {
      const row = await createRow(deps, callerOf(ctx), c, body as z.infer<B>);
      ctx.status = 201;
      ctx.body = toView(row);
    });
  route
    .get(c.path, `${c.noun}s, newest first`, read)
    .input({ query: listQuery })
    .answers({ '200': { description: 'Page', schema: c.page } })
    .handle(async (ctx, { query }) => {
      ctx.body = await newestFirst(em(ctx), c.entity as never, {}, query, (r) => toView(r as unknown as CollectionRow));
    });
  route
    .get(`${c.path}/:id`, `One ${c.noun}`, read)
    .input({ params: idParams })
    .answers({ '200': { description: c.noun, schema: c.view } })
    .handle(async (ctx, { params }) => {
      ctx.body = toView(await rowOf(em(ctx), data, params.id));
    });
  route
    .put(`${c.path}/:id`, `Replace a ${c.noun}`, write)
    .input({ params: idParams, body: c.body })
    .answers({ '200': { description: c.noun, schema: c.view } })
    .handle(async (ctx, { params, body }) => {
      ctx.body = toView(await replaceRow(deps, callerOf(ctx), c, params.id, body as z.infer<B>));
    });
  route
    .delete(`${c.path}/:id`, `Delete a ${c.noun} nothing uses`, write)
    .input({ params: idParams })
    .answers({ '200': { description: '{ id, deleted: true }', schema: deletedView } })
    .handle(async (ctx, { params }) => {
      ctx.body = await deleteRow(deps, callerOf(ctx), c, params.id);
    });
}

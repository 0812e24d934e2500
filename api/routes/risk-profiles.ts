/**
 * Risk profiles and trading groups (docs/api.md §4.8, §5.4 `prop:manage`; operator audience). Both are
 * attached to challenge templates; compose enforces them on the challenge accounts: the trading
 * group's per-venue leverage caps (`400 leverage_above_cap`) and the risk profile's notional limits
 * (`400 risk_limit_exceeded`, domain/prop/risk.ts).
 *
 * Per prefix (`/api/v1/risk-profiles`, `/api/v1/trading-groups`): `POST` → 201, `GET` (page,
 * newest first), `GET /{id}`, `PUT /{id}` (the whole object), `DELETE /{id}` (`409 invalid_state`
 * while a template or an account uses it). Missing: `404 risk_profile_not_found` /
 * `404 trading_group_not_found`.
 */
import Router from '@koa/router';
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import { ApiError, type ErrorCode } from '../../domain/errors.js';
import { Account, PropTemplate, RiskProfile, TradingGroup } from '../../db/entities.js';
import { scoped } from '../../db/orm.js';
import { callerOf, gate } from '../middleware/auth.js';
import type { ApiContext, ApiDeps, ApiState } from '../context.js';
import type { OpenApiRegistry } from '../openapi.js';
import { endpoint } from '../route.js';
import { listQuery } from './operator-common.schemas.js';
import { newestFirst } from './operator-list.js';
import { idParams, riskProfileBody, riskProfilePage, riskProfileView, tradingGroupBody, tradingGroupPage, tradingGroupView } from './risk-profiles.schemas.js';

type Row = { id: string; tenantId: string; createdAt: Date; name: string };

/** One operator collection: its path, entity, id prefix, schemas, not-found code and "in use" check. */
interface Collection<B extends z.ZodType> {
  path: string;
  tag: string;
  noun: string;
  entity: typeof RiskProfile | typeof TradingGroup;
  idPrefix: string;
  body: B;
  view: z.ZodType;
  page: z.ZodType;
  notFound: ErrorCode;
  /** Fields of a row from a validated body. */
  fields(body: z.infer<B>): Record<string, unknown>;
  toView(row: never): unknown;
  inUse(em: EntityManager, id: string): Promise<boolean>;
}

const iso = (d: Date) => new Date(d).toISOString();

const COLLECTIONS = [
  {
    path: '/risk-profiles',
    tag: 'risk-profiles',
    noun: 'risk profile',
    entity: RiskProfile,
    idPrefix: 'rp',
    body: riskProfileBody,
    view: riskProfileView,
    page: riskProfilePage,
    notFound: 'risk_profile_not_found',
    fields: (b: z.infer<typeof riskProfileBody>) => ({ name: b.name, maxOrderNotionalUsd: b.maxOrderNotionalUsd ?? null, maxPositionNotionalUsd: b.maxPositionNotionalUsd ?? null }),
    toView: (r: { id: string; name: string; maxOrderNotionalUsd?: string | null; maxPositionNotionalUsd?: string | null; createdAt: Date }) => ({ id: r.id, name: r.name, maxOrderNotionalUsd: r.maxOrderNotionalUsd ?? null, maxPositionNotionalUsd: r.maxPositionNotionalUsd ?? null, createdAt: iso(r.createdAt) }),
    inUse: async (em: EntityManager, id: string) => (await em.count(PropTemplate, { riskProfileId: id })) > 0,
  } satisfies Collection<typeof riskProfileBody>,
  {
    path: '/trading-groups',
    tag: 'trading-groups',
    noun: 'trading group',
    entity: TradingGroup,
    idPrefix: 'tg',
    body: tradingGroupBody,
    view: tradingGroupView,
    page: tradingGroupPage,
    notFound: 'trading_group_not_found',
    fields: (b: z.infer<typeof tradingGroupBody>) => ({ name: b.name, leverageCaps: b.leverageCaps }),
    toView: (r: { id: string; name: string; leverageCaps: Record<string, number>; createdAt: Date }) => ({ id: r.id, name: r.name, leverageCaps: r.leverageCaps, createdAt: iso(r.createdAt) }),
    inUse: async (em: EntityManager, id: string) => (await em.count(PropTemplate, { tradingGroupId: id })) + (await em.count(Account, { tradingGroupId: id })) > 0,
  } satisfies Collection<typeof tradingGroupBody>,
];

export function riskProfileRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1' });
  const read = gate({ audience: 'operator', scope: 'prop:manage' });
  const write = gate({ audience: 'operator', scope: 'prop:manage', write: true });
  const em = (ctx: ApiContext) => scoped(deps.orm, callerOf(ctx).tenantId);

  for (const c of COLLECTIONS as unknown as Collection<z.ZodType>[]) {
    const tags = [c.tag];
    const toView = c.toView as (r: Row) => unknown;
    const entity = c.entity as unknown as typeof RiskProfile;
    const one = async (e: EntityManager, id: string): Promise<Row> => {
      const row = await e.findOne(entity, { id });
      if (!row) throw new ApiError(c.notFound, `no ${c.noun} ${id}`);
      return row as unknown as Row;
    };

    endpoint(router, openapi, { method: 'post', path: c.path, summary: `Create a ${c.noun}`, tags, gate: write, requires: 'prop:manage', schemas: { body: c.body }, responses: { '201': { description: c.noun, schema: c.view } } }, async (ctx, { body }) => {
      const e = em(ctx);
      const row = e.create(entity, { id: `${c.idPrefix}_${randomBytes(8).toString('hex')}`, tenantId: callerOf(ctx).tenantId, ...c.fields(body) } as never, { partial: true });
      await e.flush();
      ctx.status = 201;
      ctx.body = toView(row as unknown as Row);
    });
    endpoint(router, openapi, { method: 'get', path: c.path, summary: `${c.noun}s, newest first`, tags, gate: read, requires: 'prop:manage', schemas: { query: listQuery }, responses: { '200': { description: 'Page', schema: c.page } } }, async (ctx, { query }) => {
      ctx.body = await newestFirst(em(ctx), entity, {}, query, (r) => toView(r as unknown as Row));
    });
    endpoint(router, openapi, { method: 'get', path: `${c.path}/:id`, summary: `One ${c.noun}`, tags, gate: read, requires: 'prop:manage', schemas: { params: idParams }, responses: { '200': { description: c.noun, schema: c.view } } }, async (ctx, { params }) => {
      ctx.body = toView(await one(em(ctx), params.id));
    });
    endpoint(router, openapi, { method: 'put', path: `${c.path}/:id`, summary: `Replace a ${c.noun}`, tags, gate: write, requires: 'prop:manage', schemas: { params: idParams, body: c.body }, responses: { '200': { description: c.noun, schema: c.view } } }, async (ctx, { params, body }) => {
      const e = em(ctx);
      const row = await one(e, params.id);
      Object.assign(row, c.fields(body));
      await e.flush();
      ctx.body = toView(row);
    });
    endpoint(router, openapi, { method: 'delete', path: `${c.path}/:id`, summary: `Delete a ${c.noun} nothing uses`, tags, gate: write, requires: 'prop:manage', schemas: { params: idParams }, responses: { '200': { description: '{ id, deleted: true }' } } }, async (ctx, { params }) => {
      const e = em(ctx);
      const row = await one(e, params.id);
      if (await c.inUse(e, row.id)) throw new ApiError('invalid_state', `${c.noun} ${row.id} is in use`);
      await e.nativeDelete(entity, { id: row.id });
      ctx.body = { id: row.id, deleted: true };
    });
  }
  return router;
}

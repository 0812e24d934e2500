/**
 * `/api/v1/trading-groups*` (docs/api.md §4.8, §5.4 `prop:manage`; operator audience): per-venue leverage
 * caps attached to challenge templates and accounts; compose enforces them (`400 leverage_above_cap`).
 * `POST` → 201, `GET` (page, newest first), `GET /{id}`, `PUT /{id}` (the whole object), `DELETE /{id}`
 * (`409 invalid_state` while a template or an account uses it); missing: `404 trading_group_not_found`
 * (api/collection.ts).
 */
import Router from '@koa/router';
import type { z } from 'zod';
import { Account, PropTemplate, TradingGroup } from '../../../db/entities.js';
import { collectionEndpoints, type Collection } from '../../../api/collection.js';
import type { ApiDeps, ApiState } from '../../../api/context.js';
import type { OpenApiRegistry } from '../../../api/openapi.js';
import { toTradingGroupView } from '../presenters/prop.js';
import { tradingGroupBody, tradingGroupPage, tradingGroupView } from './trading-groups.schemas.js';

/** The trading-group collection. */
const TRADING_GROUPS: Collection<typeof tradingGroupBody> = {
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
  toView: toTradingGroupView,
  inUse: async (em, id) =>
    (await em.count(PropTemplate, { tradingGroupId: id })) + (await em.count(Account, { tradingGroupId: id })) > 0,
};

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function tradingGroupRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1' });
  collectionEndpoints(router, openapi, deps, TRADING_GROUPS);
  return router;
}

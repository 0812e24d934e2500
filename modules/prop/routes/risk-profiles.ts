/**
 * `/api/v1/risk-profiles*` (docs/api.md §4.8, §5.4 `prop:manage`; operator audience): order and position
 * notional limits attached to challenge templates; compose refuses an order of a challenge account
 * that breaks them (`400 risk_limit_exceeded`, domain/prop/risk.ts). `POST` → 201, `GET` (page, newest
 * first), `GET /{id}`, `PUT /{id}` (the whole object), `DELETE /{id}` (`409 invalid_state` while a
 * template uses it); missing: `404 risk_profile_not_found` (api/collection.ts).
 */
import Router from '@koa/router';
import type { z } from 'zod';
import { PropTemplate, RiskProfile } from '../../../db/entities.js';
import { collectionEndpoints, type Collection } from '../../../api/collection.js';
import type { ApiDeps, ApiState } from '../../../api/context.js';
import type { OpenApiRegistry } from '../../../api/openapi.js';
import { toRiskProfileView } from '../presenters/prop.js';
import { riskProfileBody, riskProfilePage, riskProfileView } from './risk-profiles.schemas.js';

/** The risk-profile collection. */
const RISK_PROFILES: Collection<typeof riskProfileBody> = {
  path: '/risk-profiles',
  tag: 'risk-profiles',
  noun: 'risk profile',
  entity: RiskProfile,
  idPrefix: 'rp',
  body: riskProfileBody,
  view: riskProfileView,
  page: riskProfilePage,
  notFound: 'risk_profile_not_found',
  fields: (b: z.infer<typeof riskProfileBody>) => ({
    name: b.name,
    maxOrderNotionalUsd: b.maxOrderNotionalUsd ?? null,
    maxPositionNotionalUsd: b.maxPositionNotionalUsd ?? null,
  }),
  toView: toRiskProfileView,
  inUse: async (em, id) => (await em.count(PropTemplate, { riskProfileId: id })) > 0,
};

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function riskProfileRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1' });
  collectionEndpoints(router, openapi, deps, RISK_PROFILES);
  return router;
}

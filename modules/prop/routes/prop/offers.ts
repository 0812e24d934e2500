/**
 * `/api/v1/prop/offers`: the challenge catalogue, what a trader can buy (docs/api.md §4.8 "Traders' side of
 * the prop firm"; trader audience, any tier, a wallet session too; operators read templates at
 * `/api/v1/prop-templates`).
 *
 * - `GET /api/v1/prop/offers?firmId&limit&cursor` → `{ data, nextCursor, hasMore }`, newest first: one offer
 *   per challenge template (not archived) of the caller's tenant's live firms, with its terms (price,
 *   account size, profit target, loss limits, minimum trading days, payout split, venue), the rules hash
 *   committed on-chain and where the price is paid (chain, stablecoin, PropInstance). Its `templateId` is
 *   what `POST /api/v1/prop/challenges` buys (prop/challenges.ts). `400 invalid_cursor`; a tenant whose plan has no
 *   prop firm `403 plan_feature_unavailable`, one that switched its `propFirm` flag off `403 feature_disabled`.
 */
import Router from '@koa/router';
import type { ApiDeps, ApiState } from '../../../../api/context.js';
import { callerEm, callerOf, gate } from '../../../../api/middleware/auth.js';
import type { OpenApiRegistry } from '../../../../api/openapi.js';
import { liveOffers } from '../../queries/offers.js';
import { routesOf } from '../../../../api/route.js';
import { assertPlanFeature } from '../../../tenants/queries/entitlements.js';
import { offerListQuery, offerPage } from './offers.schemas.js';

/** The router of the endpoint listed in this module's header; it is also registered in `openapi`. */
export function offerRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1/prop' });

  const route = routesOf(router, openapi, { tags: ['prop'] });

  route
    .get(
      '/offers',
      'The challenges on sale: the templates of your tenant’s live firms with their terms, newest first',
      gate({ audience: 'trader' }),
    )
    .input({ query: offerListQuery })
    .answers({ '200': { description: 'Page', schema: offerPage } })
    .handle(async (ctx, { query }) => {
      await assertPlanFeature(deps.auth, callerOf(ctx).tenantId, 'propFirm', 'propFirm');
      ctx.body = await liveOffers(callerEm(deps.orm, ctx), query);
    });

  return router;
}

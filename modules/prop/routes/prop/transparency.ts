/**
 * `/api/prop/transparency*`: public transparency (docs/api.md §1, §2.12, §4.9; no auth, no tenant:
 * docs/api.md §5.6 exempts these paths, so they span the platform):
 * - `GET /api/prop/transparency` → `{ firms, cachedAt }`: every live firm's bundle, at most 200, oldest first.
 * - `GET /api/prop/transparency/{firmId}` → one live firm's bundle; `404 firm_not_found` when it
 *   does not exist or is not live.
 * Each bundle (modules/prop/queries/prop-proof.ts) puts the on-chain treasury, read live through the worker, next
 * to the ledger totals from PostgreSQL, with the reconciliation and solvency. Answers are cached 30 s
 * server-side (modules/prop/queries/transparency.ts). A chain that cannot be read gives `reconciliation.status`
 * and `solvency` `unavailable`.
 */
import Router from '@koa/router';
import type { ApiDeps, ApiState } from '../../../../api/context.js';
import type { OpenApiRegistry } from '../../../../api/openapi.js';
import { transparencyReads } from '../../queries/transparency.js';
import { routesOf } from '../../../../api/route.js';
import { firmBundle, transparencyIndex, transparencyParams } from './transparency.schemas.js';

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function transparencyRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/prop' });
  const tags = ['transparency'];
  const reads = transparencyReads(deps);

  const route = routesOf(router, openapi, { tags });

  route
    .get('/transparency', 'Every live firm’s on-chain proof (at most 200; cached 30 s)')
    .answers({ '200': { description: 'Index', schema: transparencyIndex } })
    .handle(async (ctx) => {
      ctx.body = await reads.index();
    });

  route
    .get('/transparency/:firmId', 'One live firm’s on-chain proof (cached 30 s)')
    .input({ params: transparencyParams })
    .answers({ '200': { description: 'Firm bundle', schema: firmBundle } })
    .handle(async (ctx, { params }) => {
      ctx.body = await reads.firm(params.firmId);
    });

  return router;
}

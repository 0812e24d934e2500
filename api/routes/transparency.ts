/**
 * Public transparency (docs/api.md §1, §2.12, §4.9; no auth, no tenant: docs/api.md §5.6 exempts these paths, so
 * they span the platform):
 * - `GET /api/prop/transparency` → `{ firms, cachedAt }`: every live firm's bundle, at most 200,
 *   oldest first.
 * - `GET /api/prop/transparency/{firmId}` → one live firm's bundle; `404 firm_not_found` when it
 *   does not exist or is not live.
 * Each bundle (api/prop-proof.ts) puts the on-chain treasury, read live through the worker, next
 * to the ledger totals from PostgreSQL, with the reconciliation and solvency. Answers
 * are cached 30 s server-side (the index, and each firm) in this process; concurrent reads from
 * other api processes in the same window attach to the same running workflow.
 * A chain that cannot be read gives `reconciliation.status` and `solvency` `unavailable`.
 */
import Router from '@koa/router';
import { ApiError } from '../../domain/errors.js';
import { Firm } from '../../db/entities.js';
import { platformEm } from '../../db/orm.js';
import { TRANSPARENCY_CACHE_MS } from '../../workflows/definitions.js';
import { firmBundles } from '../prop-proof.js';
import type { ApiDeps, ApiState } from '../context.js';
import type { OpenApiRegistry } from '../openapi.js';
import { endpoint } from '../route.js';
import { firmBundle, transparencyIndex, transparencyParams } from './transparency.schemas.js';

/** At most this many firms in the index (docs/api.md §4.9). */
const MAX_FIRMS = 200;

export function transparencyRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/prop' });
  const tags = ['transparency'];
  const cache = new Map<string, { at: number; body: Promise<unknown> }>();

  /** The cached answer for `key`, computed by `make` at most once per window. */
  function cached<T>(key: string, make: () => Promise<T>): Promise<T> {
    const now = Date.now();
    const hit = cache.get(key);
    if (hit && now - hit.at < TRANSPARENCY_CACHE_MS) return hit.body as Promise<T>;
    for (const [k, v] of cache) if (now - v.at >= TRANSPARENCY_CACHE_MS) cache.delete(k);
    const body = make();
    cache.set(key, { at: now, body });
    body.catch(() => cache.delete(key));
    return body;
  }

  const deps2 = { temporal: deps.temporal, taskQueue: deps.config.temporal.taskQueue };

  endpoint(router, openapi, { method: 'get', path: '/transparency', summary: 'Every live firm’s on-chain proof (at most 200; cached 30 s)', tags, schemas: {}, responses: { '200': { description: 'Index', schema: transparencyIndex } } }, async (ctx) => {
    ctx.body = await cached('index', async () => {
      const em = platformEm(deps.orm);
      const firms = await em.find(Firm, { status: 'live' }, { orderBy: { createdAt: 'asc', id: 'asc' }, limit: MAX_FIRMS, filters: false });
      return { firms: await firmBundles(deps2, em, firms, 'all'), cachedAt: new Date().toISOString() };
    });
  });

  endpoint(router, openapi, { method: 'get', path: '/transparency/:firmId', summary: 'One live firm’s on-chain proof (cached 30 s)', tags, schemas: { params: transparencyParams }, responses: { '200': { description: 'Firm bundle', schema: firmBundle } } }, async (ctx, { params }) => {
    const em = platformEm(deps.orm);
    const firm = await em.findOne(Firm, { id: params.firmId, status: 'live' }, { filters: false });
    if (!firm) throw new ApiError('firm_not_found', `no live firm ${params.firmId}`);
    ctx.body = await cached(`firm ${firm.id}`, async () => (await firmBundles(deps2, em, [firm], firm.id))[0]);
  });

  return router;
}

/**
 * Every route of the API in one dispatch that tries only the routes a request could match (issue 15):
 * @koa/router tests a request against each of its routes' patterns in turn, so chaining the contexts'
 * routers (about 150 routes) cost every request 150 regular-expression tests and two middleware hops per
 * router. Here the routes are bucketed by the first {@link SEGMENTS} literal segments of their path
 * (`/api/v1/market/quotes/:venue/:symbol` → `api/v1/market`); a request is matched by the router of its
 * own bucket, which holds that bucket's routes and every route with a shorter literal prefix, in the
 * order the routers were given. A route whose path starts with fewer literal segments can match any
 * request, so it sits in every bucket; the bucket of a path no route's prefix names holds only those.
 * Matching stays @koa/router's (its patterns, parameters, `allowedMethods` 405s, matched-route label).
 */
import Router from '@koa/router';
import type { ApiMiddleware, ApiState } from './context.js';

/** Literal path segments a bucket is keyed by. */
const SEGMENTS = 3;

/** A route's first literal segments (up to {@link SEGMENTS}; fewer when a parameter or pattern comes first). */
function literalPrefix(path: string | RegExp): string[] {
  if (typeof path !== 'string') return [];
  const segments = path
    .toLowerCase()
    .split('/')
    .slice(1, SEGMENTS + 1);
  const at = segments.findIndex((s) => /[:*(){}?]/.test(s) || s === '');
  return at === -1 ? segments : segments.slice(0, at);
}

/** A request's bucket key: its first {@link SEGMENTS} segments, as the patterns match them (case-insensitively). */
function bucketOf(path: string): string {
  let end = 0;
  for (let i = 0; i < SEGMENTS && end !== -1; i++) end = path.indexOf('/', end + 1);
  return (end === -1 ? path : path.slice(0, end)).slice(1).toLowerCase();
}

/** The middleware routing to `routers`' routes (each router's `routes()` and `allowedMethods()`, merged). */
export function routeBuckets(routers: Router<ApiState>[]): ApiMiddleware {
  const layers = routers.flatMap((r) => r.stack);
  const keyed = layers.map((layer) => ({ layer, prefix: literalPrefix(layer.path) }));
  const everywhere = keyed.filter((k) => k.prefix.length < SEGMENTS);
  const routerOf = (members: typeof keyed): ApiMiddleware => {
    const router = new Router<ApiState>();
    router.stack.push(...members.map((m) => m.layer));
    const [routes, allowed] = [router.routes(), router.allowedMethods()] as ApiMiddleware[];
    return async (ctx, next) => {
      await routes(ctx, async () => {
        await allowed(ctx, next);
      });
    };
  };
  const buckets = new Map<string, ApiMiddleware>();
  for (const key of new Set(keyed.filter((k) => k.prefix.length === SEGMENTS).map((k) => k.prefix.join('/'))))
    buckets.set(key, routerOf(keyed.filter((k) => k.prefix.length < SEGMENTS || k.prefix.join('/') === key)));
  const rest = routerOf(everywhere);
  return async (ctx, next) => {
    await (buckets.get(bucketOf(ctx.path)) ?? rest)(ctx, next);
  };
}

/**
 * The API reference site (README "Documentation"), public like the documents it renders: no auth, no
 * tenant (api/middleware/tenant.ts exempts `/docs`), not rate limited, nothing fetched from outside the
 * api at run time (api/presenters/docs-pages.ts):
 *
 * - `GET /docs`: HTML, Redoc on `GET /api/v1/openapi.json` (`Cache-Control: no-cache`, its own CSP).
 * - `GET /docs/asyncapi`: HTML, the WebSocket channels and frames of `GET /api/v1/asyncapi.json`,
 *   rendered here (no script).
 * - `GET /docs/assets/<file>`: the renderer, Redoc's standalone bundle from the `redoc` npm package,
 *   under a name carrying its version (`redoc-2.5.4.standalone.js`), so it is cached for a year
 *   (`immutable`); gzipped when the client accepts it. Only the listed files: any other name, a path
 *   traversal among them, is `404 not_found`.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import Router from '@koa/router';
import { ApiError } from '../../domain/errors.js';
import { asyncApiDocument } from '../asyncapi.js';
import type { ApiState } from '../context.js';
import {
  REFERENCE_CSP,
  asyncApiPage,
  asyncApiPageCsp,
  referencePage,
  type AsyncApiDoc,
} from '../presenters/docs-pages.js';

const require = createRequire(import.meta.url);
const REDOC_VERSION = (require('redoc/package.json') as { version: string }).version;

/** The asset route's path prefix. */
const ASSETS = '/docs/assets/';

/** The files `GET /docs/assets/<file>` serves: name → file on disk and content type. */
const FILES: Record<string, { file: string; type: string }> = {
  [`redoc-${REDOC_VERSION}.standalone.js`]: {
    file: require.resolve('redoc/bundles/redoc.standalone.js'),
    type: 'text/javascript; charset=utf-8',
  },
};

/** The URL path of the Redoc bundle, for the `GET /docs` page. */
export const REDOC_BUNDLE_PATH = `${ASSETS}redoc-${REDOC_VERSION}.standalone.js`;

/** Headers every page of the site carries besides its CSP. */
function pageHeaders(ctx: { set(field: string, value: string): void }, csp: string): void {
  ctx.set('Content-Security-Policy', csp);
  ctx.set('Cache-Control', 'no-cache');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'same-origin');
}

/**
 * The router of the endpoints listed in this module's header. Raw routes, like the documents'
 * (api/routes/openapi.ts): they are in neither the OpenAPI document nor the route table;
 * `GET /api/v1/discovery` names the two pages (`docs`).
 */
export function docsSiteRoutes(baseUrl: () => string): Router<ApiState> {
  const router = new Router<ApiState>();
  const referenceHtml = referencePage(REDOC_BUNDLE_PATH, '/api/v1/openapi.json');
  const asyncApiCsp = asyncApiPageCsp();
  let asyncApi: { base: string; html: string } | undefined;
  /** Each asset read once, and gzipped once, on first use. */
  const loaded = new Map<string, Promise<{ raw: Buffer; gz: Buffer }>>();
  const load = (name: string, file: string) => {
    let entry = loaded.get(name);
    if (!entry) {
      entry = readFile(file).then(async (raw) => ({ raw, gz: await promisify(gzip)(raw) }));
      entry.catch(() => loaded.delete(name));
      loaded.set(name, entry);
    }
    return entry;
  };

  router.get('/docs', (ctx) => {
    pageHeaders(ctx, REFERENCE_CSP);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = referenceHtml;
  });

  router.get('/docs/asyncapi', (ctx) => {
    const base = baseUrl();
    if (asyncApi?.base !== base)
      asyncApi = { base, html: asyncApiPage(asyncApiDocument(base) as unknown as AsyncApiDoc) };
    pageHeaders(ctx, asyncApiCsp);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = asyncApi.html;
  });

  router.get(`${ASSETS}:file`, async (ctx) => {
    const name = ctx.params.file;
    const asset = Object.hasOwn(FILES, name) ? FILES[name] : undefined;
    if (!asset) throw new ApiError('not_found', `no asset ${name}`);
    const { raw, gz } = await load(name, asset.file);
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.vary('Accept-Encoding');
    ctx.type = asset.type;
    if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
      ctx.set('Content-Encoding', 'gzip');
      ctx.body = gz;
    } else ctx.body = raw;
  });
  return router;
}

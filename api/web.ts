/**
 * Serves the branded trading page (issue 7; `web/`, built by `npm run build:web` into
 * `config.webDist`) on every tenant host: the tenant gate runs first, so the page answers only on a
 * host that resolves to a tenant (docs/api.md §5.6) and reads its branding and theme from that host.
 *
 * - `GET /` → `index.html`, `Cache-Control: no-cache`, with a Content-Security-Policy that allows
 *   only this origin (scripts, styles, API calls and its WebSockets), inline style attributes
 *   (the chart library sets them), images also from http(s) (tenant logos and favicons), and no
 *   framing.
 * - `GET /assets/*` → the hashed bundles, cached for a year (`immutable`).
 * - Page not built: `GET /` answers `503 page_unavailable` naming the build command.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import serve from 'koa-static';
import type { ServerResponse } from 'node:http';
import { ApiError } from '../domain/errors.js';
import type { ApiMiddleware } from './context.js';

/** The page's Content-Security-Policy. */
export const PAGE_CSP = [
  "default-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: https: http:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

/** The static middleware of the trading page in `dist`. */
export function tradingPage(dist: string): ApiMiddleware {
  const files = serve(dist, {
    index: 'index.html',
    gzip: false,
    brotli: false,
    setHeaders(res: ServerResponse, file: string) {
      if (file.endsWith('.html')) {
        res.setHeader('Cache-Control', 'no-cache');
        res.setHeader('Content-Security-Policy', PAGE_CSP);
        res.setHeader('X-Content-Type-Options', 'nosniff');
        res.setHeader('Referrer-Policy', 'same-origin');
      } else {
        res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
      }
    },
  });
  const built = () => existsSync(path.join(dist, 'index.html'));
  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      await next();
      return;
    }
    if (ctx.path === '/' && !built())
      throw new ApiError('page_unavailable', 'the trading page is not built: run `npm run build:web`');
    if (ctx.path === '/' || ctx.path.startsWith('/assets/')) await files(ctx, next);
    else await next();
  };
}

/**
 * What `GET /api/v1/discovery` shows (docs/api.md §4.2, §9): the bearer and bootstrap URLs, the WebSocket
 * channels, the API documents and their reference pages (`docs`, api/routes/docs-site.ts) and every endpoint of the route table (api/route.ts: each route statement
 * adds its row, so the catalog cannot drift from the routes served).
 */
import { CHANNELS } from '../asyncapi.js';
import type { RouteEntry } from '../openapi.js';

/**
 * The catalog: `endpoints` is the route table in registration order (api/app.ts), each
 * `{ method, path, description, tags, auth, audience, tier, scope, requires }` (api/openapi.ts `RouteEntry`).
 */
export function discovery(baseUrl: string, routes: readonly RouteEntry[]) {
  return {
    name: 'multivenue-platform',
    version: 'v1',
    auth: {
      mintBearer: `${baseUrl}/api/auth/api-token`,
      revokeBearer: `${baseUrl}/api/auth/api-token/revoke`,
      bootstrap: `${baseUrl}/api/auth/bootstrap`,
    },
    streams: CHANNELS.map((c) => ({
      channel: c.path,
      url: `${baseUrl.replace(/^http/, 'ws')}${c.path}`,
      auth: c.auth,
      topics: c.topics,
    })),
    openapi: `${baseUrl}/api/v1/openapi.json`,
    asyncapi: `${baseUrl}/api/v1/asyncapi.json`,
    docs: { openapi: `${baseUrl}/docs`, asyncapi: `${baseUrl}/docs/asyncapi` },
    endpoints: routes.map(({ summary, ...r }) => ({
      method: r.method,
      path: r.path,
      description: summary,
      tags: r.tags,
      auth: r.auth,
      audience: r.audience,
      tier: r.tier,
      scope: r.scope,
      requires: r.requires,
    })),
  };
}

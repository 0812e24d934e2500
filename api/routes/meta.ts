/**
 * Discovery surfaces (docs/api.md §4.2, §9): `/api/v1/discovery` (no auth, no tenant), `/api/v1/venues`,
 * `/api/v1/symbols/{venue}`, the OpenAPI document at `/api/v1/openapi.json` and the AsyncAPI
 * document of the WebSocket channels at `/api/v1/asyncapi.json`.
 */
import Router from '@koa/router';
import { z } from 'zod';
import { ApiError } from '../../domain/errors.js';
import { OMS_WRITE_TIER } from '../../domain/gates.js';
import { ORDER_TYPES, TIME_IN_FORCE } from '../../domain/oms/intent.js';
import { VENUE_SYMBOLS } from '../../domain/market/symbols.js';
import { gate } from '../middleware/auth.js';
import type { ApiState } from '../context.js';
import type { OpenApiRegistry } from '../openapi.js';
import { endpoint } from '../route.js';
import { asyncApiDocument, CHANNELS } from '../asyncapi.js';

/**
 * Venue adapters listed by `/api/v1/venues` (docs/api.md §4.2): `b3` is listed though compose refuses it;
 * `paper` is never listed. `wired` says whether this deployment dispatches to it yet.
 */
export const VENUE_CATALOG = [
  { slug: 'hyperliquid', assetClasses: ['perp', 'spot'], orderTypes: [...ORDER_TYPES], timeInForce: [...TIME_IN_FORCE], symbolSuffix: 'HL', wired: true },
  { slug: 'aster', assetClasses: ['perp'], orderTypes: [...ORDER_TYPES], timeInForce: [...TIME_IN_FORCE], symbolSuffix: 'ASTER', wired: true },
  { slug: 'polymarket', assetClasses: ['prediction'], orderTypes: ['market', 'limit'], timeInForce: ['Gtc', 'Ioc'], symbolSuffix: 'PM', wired: true },
  { slug: 'kalshi', assetClasses: ['prediction'], orderTypes: ['market', 'limit'], timeInForce: ['Gtc', 'Ioc'], symbolSuffix: 'KX', wired: true },
  { slug: 'b3', assetClasses: ['equity', 'future'], orderTypes: ['market', 'limit'], timeInForce: ['Gtc'], symbolSuffix: 'B3', wired: false },
];

/**
 * Symbols per venue this deployment trades. Suffixes: `.PAPER` (platform engine), `.HL`
 * (Hyperliquid perps), `.ASTER` (Aster perps), `.PM` (Polymarket outcome tokens,
 * `<MARKET>-<OUTCOME>.PM`), `.KX` (Kalshi market sides, `<TICKER>-<YES|NO>.KX`).
 */
const SYMBOLS = VENUE_SYMBOLS;

/** The hand-maintained partial catalog of docs/api.md §4.2 (never scopes; omits operator surfaces and, as the API reference's own catalog does, `/api/v1/venues`). */
function discovery(baseUrl: string) {
  const e = (method: string, path: string, tier: string | null, description: string) => ({ method, path, tier, description });
  return {
    name: 'multivenue-platform',
    version: 'v1',
    auth: { mintBearer: `${baseUrl}/api/auth/api-token`, revokeBearer: `${baseUrl}/api/auth/api-token/revoke`, bootstrap: `${baseUrl}/api/auth/bootstrap` },
    streams: CHANNELS.map((c) => ({ channel: c.path, url: `${baseUrl.replace(/^http/, 'ws')}${c.path}`, auth: c.auth, topics: c.topics })),
    openapi: `${baseUrl}/api/v1/openapi.json`,
    asyncapi: `${baseUrl}/api/v1/asyncapi.json`,
    endpoints: [
      e('GET', '/api/v1/symbols/{venue}', null, 'Tradeable symbols of a venue'),
      e('GET', '/api/v1/accounts', 'readonly', 'Owned accounts'),
      e('POST', '/api/v1/accounts', 'readonly', 'Create a paper account'),
      e('GET', '/api/v1/accounts/{id}', 'readonly', 'Account summary'),
      e('GET', '/api/v1/accounts/{id}/state', 'readonly', 'Account state per venue'),
      e('GET', '/api/v1/accounts/{id}/positions', 'readonly', 'Open positions'),
      e('GET', '/api/v1/accounts/{id}/open-orders', 'readonly', 'Working orders (the Open-Orders-Update snapshot)'),
      e('GET', '/api/v1/accounts/{id}/orders', 'readonly', 'Platform order book'),
      e('GET', '/api/v1/accounts/{id}/fills', 'readonly', 'Executions'),
      e('GET', '/api/v1/accounts/{id}/trades', 'readonly', 'Round trips'),
      e('GET', '/api/v1/accounts/{id}/events', 'readonly', 'Account audit log'),
      e('POST', '/api/v1/sandbox/paper-account', 'fullTrading', 'Provision a paper account'),
      e('POST', '/api/v1/oms/intents', OMS_WRITE_TIER.intents, 'Compose an order intent'),
      e('GET', '/api/v1/oms/intents', 'readonly', 'Recent intents'),
      e('GET', '/api/v1/oms/intents/{id}', 'readonly', 'One intent'),
      e('GET', '/api/v1/accounts/{id}/agents', 'readonly', 'Agent wallets per routed venue'),
      e('POST', '/api/v1/accounts/{id}/agents', 'readonly', 'Create an agent wallet; returns what the owner signs'),
      e('POST', '/api/v1/accounts/{id}/agents/{agentId}/authorization', 'readonly', "Record the owner's signed agent authorisation"),
      e('DELETE', '/api/v1/accounts/{id}/agents/{agentId}', 'readonly', 'Revoke an agent'),
      e('GET', '/api/v1/accounts/{id}/order-history', 'readonly', "Orders on routed venues, including the venue's own interface"),
      e('POST', '/api/auth/siwe/nonce', null, 'Sign-In with Ethereum nonce'),
      e('POST', '/api/auth/siwe/verify', null, 'Verify a SIWE message; sets the service_session cookie'),
      e('POST', '/api/v1/oms/route-intents', 'fullTrading', 'Smart order routing of a market order (wallet session only)'),
      e('GET', '/api/v1/sor/decisions', 'readonly', 'Smart-routing decisions'),
      e('GET', '/api/v1/sor/decisions/summary', 'readonly', 'Realised smart-routing savings'),
    ],
  };
}

const symbolParams = z.object({ venue: z.string().min(1) });

export function metaRoutes(openapi: OpenApiRegistry, baseUrl: () => string): Router<ApiState> {
  const router = new Router<ApiState>();
  const tags = ['discovery'];

  endpoint(router, openapi, { method: 'get', path: '/api/v1/discovery', summary: 'Partial endpoint catalog with each endpoint\'s tier (no auth, no tenant)', tags, schemas: {}, responses: { '200': { description: 'Catalog' } } }, async (ctx) => {
    ctx.body = discovery(baseUrl());
  });

  endpoint(router, openapi, { method: 'get', path: '/api/v1/venues', summary: 'Venue adapters: slug, asset classes, order types (paper never listed)', tags, gate: gate({ audience: 'trader' }), schemas: {}, responses: { '200': { description: '{ venues }' } } }, async (ctx) => {
    ctx.body = { venues: VENUE_CATALOG };
  });

  endpoint(router, openapi, { method: 'get', path: '/api/v1/symbols/:venue', summary: 'Tradeable venue-suffixed symbols of one venue', tags, gate: gate({ audience: 'trader' }), schemas: { params: symbolParams }, responses: { '200': { description: '{ venue, symbols }' } } }, async (ctx, { params }) => {
    const list = SYMBOLS[params.venue];
    if (!list) throw new ApiError('not_found', `no symbols for venue ${params.venue} in this deployment`);
    ctx.body = {
      venue: params.venue,
      symbols: list.map((s) => ({ symbol: s.symbol, base: s.base, quote: s.quote, assetClass: s.assetClass, tickSize: s.tickSize, szDecimals: s.szDecimals, maxLeverage: s.maxLeverage, venueSymbol: s.venueSymbol ?? null })),
    };
  });

  router.get('/api/v1/openapi.json', (ctx) => {
    ctx.body = openapi.document(baseUrl());
  });
  router.get('/api/v1/asyncapi.json', (ctx) => {
    ctx.body = asyncApiDocument(baseUrl());
  });
  return router;
}

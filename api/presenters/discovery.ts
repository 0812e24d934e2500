/**
 * What the discovery surfaces show (docs/api.md §4.2, §9): the partial endpoint catalog of
 * `GET /api/v1/discovery` and the venue adapters of `GET /api/v1/venues`.
 */
import { OMS_WRITE_TIER } from '../../domain/gates.js';
import { ORDER_TYPES, TIME_IN_FORCE } from '../../domain/oms/intent.js';
import { CHANNELS } from '../asyncapi.js';

/**
 * Venue adapters listed by `/api/v1/venues` (docs/api.md §4.2): `b3` is listed though compose refuses it;
 * `paper` is never listed. `wired` says whether this deployment dispatches to it yet.
 */
export const VENUE_CATALOG = [
  {
    slug: 'hyperliquid',
    assetClasses: ['perp', 'spot'],
    orderTypes: [...ORDER_TYPES],
    timeInForce: [...TIME_IN_FORCE],
    symbolSuffix: 'HL',
    wired: true,
  },
  {
    slug: 'aster',
    assetClasses: ['perp'],
    orderTypes: [...ORDER_TYPES],
    timeInForce: [...TIME_IN_FORCE],
    symbolSuffix: 'ASTER',
    wired: true,
  },
  {
    slug: 'polymarket',
    assetClasses: ['prediction'],
    orderTypes: ['market', 'limit'],
    timeInForce: ['Gtc', 'Ioc'],
    symbolSuffix: 'PM',
    wired: true,
  },
  {
    slug: 'kalshi',
    assetClasses: ['prediction'],
    orderTypes: ['market', 'limit'],
    timeInForce: ['Gtc', 'Ioc'],
    symbolSuffix: 'KX',
    wired: true,
  },
  {
    slug: 'b3',
    assetClasses: ['equity', 'future'],
    orderTypes: ['market', 'limit'],
    timeInForce: ['Gtc'],
    symbolSuffix: 'B3',
    wired: false,
  },
];

/**
 * The hand-maintained partial catalog of docs/api.md §4.2 (never scopes; omits operator surfaces and,
 * as the API reference's own catalog does, `/api/v1/venues`).
 */
export function discovery(baseUrl: string) {
  const e = (method: string, path: string, tier: string | null, description: string) => ({
    method,
    path,
    tier,
    description,
  });
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
      e(
        'POST',
        '/api/v1/accounts/{id}/agents/{agentId}/authorization',
        'readonly',
        "Record the owner's signed agent authorisation",
      ),
      e('DELETE', '/api/v1/accounts/{id}/agents/{agentId}', 'readonly', 'Revoke an agent'),
      e(
        'GET',
        '/api/v1/accounts/{id}/order-history',
        'readonly',
        "Orders on routed venues, including the venue's own interface",
      ),
      e('POST', '/api/auth/siwe/nonce', null, 'Sign-In with Ethereum nonce'),
      e('POST', '/api/auth/siwe/verify', null, 'Verify a SIWE message; sets the service_session cookie'),
      e(
        'POST',
        '/api/v1/oms/route-intents',
        'fullTrading',
        'Smart order routing of a market order (wallet session only)',
      ),
      e('GET', '/api/v1/sor/decisions', 'readonly', 'Smart-routing decisions'),
      e('GET', '/api/v1/sor/decisions/summary', 'readonly', 'Realised smart-routing savings'),
    ],
  };
}

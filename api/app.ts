/**
 * `createApp(deps)`: the Koa app with every middleware in one place, in order:
 * (tracing on: the server span →) request metrics (api/ops/http-metrics.ts) → request log → errors → tenant gate → body parser
 * → authentication → rate limit (api/middleware/rate-limit.ts) → routers → the trading page (api/web.ts); and the WebSocket channels on `app.ws`. No globals:
 * everything comes from `deps`.
 *
 * Where the code of a URL is (docs/architecture.md "The api"): drop `/api` and then `/v1`; the path left, without
 * path parameters, is the route file's path below some context's `modules/<context>/routes/` (`/api/v1/oms/brackets/attach`
 * → `modules/oms/routes/oms/brackets.ts`, `/api/v1/accounts/{id}/agents` → `modules/custody/routes/accounts/agents.ts`;
 * a folder's namesake file holds the rest: `/api/v1/oms/cancel` → `modules/oms/routes/oms/oms.ts`). Each route file
 * keeps its `*.schemas.ts` beside it, imports no other route file, and calls its context's commands/ (writes),
 * queries/ (reads) and presenters/ (row → wire). The API's own documents are in api/routes/, and so is their reference site (`/docs`,
 * api/routes/docs-site.ts); outside the API: `/healthz`, `/readyz`, `/metrics` (api/ops/routes.ts), `/ws/<channel>` (api/ws/<channel>.ts), the trading page (api/web.ts).
 * The order below is the order of the OpenAPI document (docs/openapi.json).
 */
import Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import websockify from 'koa-websocket';
import type { ApiDeps, ApiState } from './context.js';
import { OpenApiRegistry } from './openapi.js';
import { requestLog } from './middleware/request-log.js';
import { bodyParseError, errorHandler } from './middleware/errors.js';
import { tenantGate } from './middleware/tenant.js';
import { authenticate } from './middleware/auth.js';
import { rateLimit } from './middleware/rate-limit.js';
import { routeBuckets } from './route-buckets.js';
import { serveQuotesSocket } from './ws/quotes.js';
import type { QuotesHub } from './ws/quotes-hub.js';
import type { MarketHub } from './ws/market-hub.js';
import { serveMarketSocket } from './ws/market.js';
import { offeredPairs } from './ws/offered.js';
import type { MarketStreams } from '../db/market-streams.js';
import { serveRiskSocket } from './ws/risk.js';
import type { EventHub } from './ws/hub.js';
import { discoveryRoutes } from './routes/discovery.js';
import { venueRoutes } from '../modules/market/routes/venues.js';
import { symbolRoutes } from '../modules/market/routes/symbols.js';
import { openapiRoutes } from './routes/openapi.js';
import { asyncapiRoutes } from './routes/asyncapi.js';
import { docsSiteRoutes } from './routes/docs-site.js';
import { authRoutes } from '../modules/auth/routes/auth/auth.js';
import { siweRoutes } from '../modules/auth/routes/auth/siwe.js';
import { oidcRoutes } from '../modules/auth/routes/auth/oidc.js';
import { signinProviderRoutes } from '../modules/auth/routes/operator/signin-providers.js';
import { accountRoutes } from '../modules/accounts/routes/accounts/accounts.js';
import { accountStateRoutes } from '../modules/accounts/routes/accounts/state.js';
import { agentRoutes } from '../modules/custody/routes/accounts/agents.js';
import { orderHistoryRoutes } from '../modules/accounts/routes/accounts/order-history.js';
import { suspensionRoutes } from '../modules/accounts/routes/accounts/suspension.js';
import { sandboxRoutes } from '../modules/accounts/routes/sandbox.js';
import { routeIntentRoutes } from '../modules/oms/routes/oms/route-intents.js';
import { intentRoutes } from '../modules/oms/routes/oms/intents.js';
import { omsRoutes } from '../modules/oms/routes/oms/oms.js';
import { bracketRoutes } from '../modules/oms/routes/oms/brackets.js';
import { sorRoutes } from '../modules/oms/routes/sor.js';
import { marketRoutes } from '../modules/market/routes/market.js';
import { reportRoutes } from '../modules/reports/routes/reports/reports.js';
import { statementRoutes } from '../modules/reports/routes/reports/statements.js';
import { analyticsRoutes } from '../modules/reports/routes/analytics.js';
import { indicatorRoutes } from '../modules/market/routes/indicators.js';
import { backtestRoutes } from '../modules/market/routes/backtests.js';
import { firmRoutes } from '../modules/prop/routes/firms/firms.js';
import { firmPayoutRoutes } from '../modules/prop/routes/firms/payouts.js';
import { propTemplateRoutes } from '../modules/prop/routes/prop-templates.js';
import { riskProfileRoutes } from '../modules/prop/routes/risk-profiles.js';
import { tradingGroupRoutes } from '../modules/prop/routes/trading-groups.js';
import { propAccountRoutes } from '../modules/prop/routes/prop-accounts.js';
import { offerRoutes } from '../modules/prop/routes/prop/offers.js';
import { challengeRoutes } from '../modules/prop/routes/prop/challenges.js';
import { payoutRoutes } from '../modules/prop/routes/prop/payouts.js';
import { transparencyRoutes } from '../modules/prop/routes/prop/transparency.js';
import { webhookRoutes } from '../modules/webhooks/routes/webhooks.js';
import { operatorCredentialRoutes } from '../modules/auth/routes/operator/credentials.js';
import { operatorFundingRoutes } from '../modules/accounts/routes/operator/funding.js';
import { publicTenantRoutes } from '../modules/tenants/routes/public/tenants.js';
import { tenantRoutes } from '../modules/tenants/routes/tenants.js';
import { brandingRoutes } from '../modules/tenants/routes/branding.js';
import { themeRoutes } from '../modules/tenants/routes/theme.js';
import { featuresRoutes } from '../modules/tenants/routes/features.js';
import { tradingPage } from './web.js';
import { SESSION_COOKIE } from './auth/session.js';
import { httpMetrics } from './ops/http-metrics.js';
import { opsRoutes } from './ops/routes.js';
import type { Tracing } from '../telemetry/tracing.js';
import { httpServerSpans } from '../telemetry/http.js';

/** What the app needs beyond ApiDeps: the event hub for /ws/risk and its public base URL. */
export interface AppDeps extends ApiDeps {
  hub: EventHub;
  quotes: QuotesHub;
  /** `/ws/market` fan-out and the on-demand stream register (depth, tape). */
  market: MarketHub;
  streams: MarketStreams;
  /** Public base URL (http[s]://host:port), known once the server listens. */
  baseUrl: () => string;
  idleCloseMs?: number;
  revocationCheckMs?: number;
  /** Tracing on (README "Traces"): every request gets a server span, outermost. */
  tracing?: Tracing;
}

export function createApp(deps: AppDeps) {
  const app = websockify(new Koa<ApiState>());
  app.proxy = deps.config.trustProxy;
  const jwtKey = new TextEncoder().encode(deps.config.jwtSecret);
  const openapi = new OpenApiRegistry();
  const wsBase = () => deps.baseUrl().replace(/^http/, 'ws');

  if (deps.tracing) app.use(httpServerSpans(deps.tracing.provider.getTracer('platform-api')));
  app.use(httpMetrics(deps.metrics));
  app.use(requestLog(deps.logger));
  app.use(errorHandler());
  app.use(tenantGate(deps.auth));
  // JSON only, at most 256 KB after decompression; every parser failure is a 4xx (errors.ts bodyParseError).
  app.use(bodyParser({ enableTypes: ['json'], encoding: 'utf-8', jsonLimit: '256kb', onError: bodyParseError }));
  app.use(authenticate(deps.orm, deps.auth, jwtKey));
  app.use(rateLimit(deps)); // per credential, session trader or client IP (docs/api.md §8 "Rate limits")
  const routers = [
    opsRoutes(deps, openapi),
    discoveryRoutes(openapi, deps.baseUrl),
    venueRoutes(deps, openapi),
    symbolRoutes(deps, openapi),
    openapiRoutes(openapi, deps.baseUrl),
    asyncapiRoutes(deps.baseUrl),
    docsSiteRoutes(deps.baseUrl),
    authRoutes(deps, openapi, jwtKey, wsBase),
    accountRoutes(deps, openapi),
    sandboxRoutes(deps, openapi),
    accountStateRoutes(deps, openapi, deps.quotes),
    agentRoutes(deps, openapi),
    orderHistoryRoutes(deps, openapi),
    siweRoutes(deps, openapi),
    oidcRoutes(deps, openapi),
    routeIntentRoutes(deps, openapi),
    sorRoutes(deps, openapi),
    intentRoutes(deps, openapi),
    omsRoutes(deps, openapi),
    bracketRoutes(deps, openapi),
    marketRoutes(deps, openapi, deps.streams, deps.quotes),
    reportRoutes(deps, openapi),
    statementRoutes(deps, openapi),
    analyticsRoutes(deps, openapi),
    indicatorRoutes(deps, openapi),
    backtestRoutes(deps, openapi),
    firmRoutes(deps, openapi),
    firmPayoutRoutes(deps, openapi),
    propTemplateRoutes(deps, openapi),
    riskProfileRoutes(deps, openapi),
    tradingGroupRoutes(deps, openapi),
    propAccountRoutes(deps, openapi),
    suspensionRoutes(deps, openapi),
    offerRoutes(deps, openapi),
    challengeRoutes(deps, openapi),
    payoutRoutes(deps, openapi),
    transparencyRoutes(deps, openapi),
    webhookRoutes(deps, openapi),
    operatorCredentialRoutes(deps, openapi),
    signinProviderRoutes(deps, openapi),
    operatorFundingRoutes(deps, openapi),
    publicTenantRoutes(deps, openapi, deps.baseUrl),
    tenantRoutes(deps, openapi),
    brandingRoutes(deps, openapi),
    themeRoutes(deps, openapi),
    featuresRoutes(deps, openapi),
  ];
  app.use(routeBuckets(routers));
  app.use(tradingPage(deps.config.webDist));

  app.ws.use(async (ctx) => {
    const ws = ctx.websocket;
    if (ctx.path === '/ws/risk')
      return serveRiskSocket(
        ws,
        ctx.req,
        {
          orm: deps.orm,
          hub: deps.hub,
          logger: deps.logger,
          idleCloseMs: deps.idleCloseMs,
          revocationCheckMs: deps.revocationCheckMs,
          meter: deps.metrics.socket(ws, 'risk'),
        },
        ctx.cookies.get(SESSION_COOKIE),
      );
    if (ctx.path === '/ws/quotes')
      return serveQuotesSocket(
        ws,
        deps.quotes,
        offeredPairs(deps.auth, ctx.req),
        deps.idleCloseMs,
        deps.metrics.socket(ws, 'quotes'),
      );
    if (ctx.path === '/ws/market')
      return serveMarketSocket(ws, ctx.req, {
        orm: deps.orm,
        hub: deps.market,
        streams: deps.streams,
        logger: deps.logger,
        idleCloseMs: deps.idleCloseMs,
        meter: deps.metrics.socket(ws, 'market'),
        offered: offeredPairs(deps.auth, ctx.req),
      });
    ws.send(JSON.stringify({ type: 'Result', ok: false, error: 'not_found', detail: `no channel ${ctx.path}` }));
    ws.close(1008, 'not_found');
  });
  return app;
}

/**
 * `createApp(deps)`: the Koa app with every middleware in one place, in order:
 * (tracing on: the server span →) request metrics (api/ops/http-metrics.ts) → request log → errors → tenant gate → body parser → authentication → routers → the trading page
 * (api/web.ts); and the WebSocket channels on `app.ws`. No globals: everything comes from `deps`.
 */
import Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import websockify from 'koa-websocket';
import type { ApiDeps, ApiState } from './context.js';
import { OpenApiRegistry } from './openapi.js';
import { requestLog } from './middleware/request-log.js';
import { errorHandler } from './middleware/errors.js';
import { tenantGate } from './middleware/tenant.js';
import { authenticate } from './middleware/auth.js';
import type { CredentialCache } from './auth/credential-cache.js';
import { authRoutes } from './routes/auth.js';
import { accountRoutes } from './routes/accounts.js';
import { omsRoutes } from './routes/oms.js';
import { bracketRoutes } from './routes/brackets.js';
import { marketRoutes } from './routes/market.js';
import { reportRoutes } from './routes/reports.js';
import { statementRoutes } from './routes/statements.js';
import { stateHistoryRoutes } from './routes/state-history.js';
import { analyticsRoutes } from './routes/analytics.js';
import { indicatorRoutes } from './routes/indicators.js';
import { backtestRoutes } from './routes/backtests.js';
import { serveQuotesSocket } from './ws/quotes.js';
import type { QuotesHub } from './ws/quotes-hub.js';
import type { MarketHub } from './ws/market-hub.js';
import { serveMarketSocket } from './ws/market.js';
import type { MarketStreams } from '../db/market-streams.js';
import { metaRoutes } from './routes/meta.js';
import { serveRiskSocket } from './ws/risk.js';
import type { EventHub } from './ws/hub.js';
import { agentRoutes } from './routes/agents.js';
import { orderHistoryRoutes } from './routes/order-history.js';
import { siweRoutes } from './routes/siwe.js';
import { sorRoutes } from './routes/sor.js';
import { firmRoutes } from './routes/firms.js';
import { firmLifecycleRoutes } from './routes/firm-lifecycle.js';
import { propTemplateRoutes } from './routes/prop-templates.js';
import { riskProfileRoutes } from './routes/risk-profiles.js';
import { propAccountRoutes } from './routes/prop-accounts.js';
import { propLifecycleRoutes } from './routes/prop-lifecycle.js';
import { challengeRoutes } from './routes/challenges.js';
import { transparencyRoutes } from './routes/transparency.js';
import { webhookRoutes } from './routes/webhooks.js';
import { signupRoutes } from './routes/signup.js';
import { tenantRoutes } from './routes/tenants.js';
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
  /** Operator scope cache (docs/api.md §5.2), dropped on revocation. */
  credentials?: CredentialCache;
  idleCloseMs?: number;
  revocationCheckMs?: number;
  /** Tracing on (README "Traces"): every request gets a server span, outermost. */
  tracing?: Tracing;
}

export function createApp(deps: AppDeps) {
  const app = websockify(new Koa<ApiState>());
  app.proxy = true;
  const jwtKey = new TextEncoder().encode(deps.config.jwtSecret);
  const openapi = new OpenApiRegistry();
  const wsBase = () => deps.baseUrl().replace(/^http/, 'ws');

  if (deps.tracing) app.use(httpServerSpans(deps.tracing.provider.getTracer('platform-api')));
  app.use(httpMetrics(deps.metrics));
  app.use(requestLog(deps.logger));
  app.use(errorHandler());
  app.use(tenantGate(deps.orm));
  app.use(bodyParser({ enableTypes: ['json'], encoding: 'utf-8', jsonLimit: '256kb' }));
  app.use(authenticate(deps.orm, jwtKey, deps.credentials));
  for (const router of [opsRoutes(deps, openapi), metaRoutes(openapi, deps.baseUrl), authRoutes(deps, openapi, jwtKey, wsBase), accountRoutes(deps, openapi), stateHistoryRoutes(deps, openapi), agentRoutes(deps, openapi), orderHistoryRoutes(deps, openapi), siweRoutes(deps, openapi), sorRoutes(deps, openapi), omsRoutes(deps, openapi), bracketRoutes(deps, openapi), marketRoutes(deps, openapi, deps.streams), reportRoutes(deps, openapi), statementRoutes(deps, openapi), analyticsRoutes(deps, openapi), indicatorRoutes(deps, openapi), backtestRoutes(deps, openapi), firmRoutes(deps, openapi), firmLifecycleRoutes(deps, openapi), propTemplateRoutes(deps, openapi), riskProfileRoutes(deps, openapi), propAccountRoutes(deps, openapi), propLifecycleRoutes(deps, openapi), challengeRoutes(deps, openapi), transparencyRoutes(deps, openapi), webhookRoutes(deps, openapi), signupRoutes(deps, openapi, deps.baseUrl), tenantRoutes(deps, openapi)]) {
    app.use(router.routes()).use(router.allowedMethods());
  }
  app.use(tradingPage(deps.config.webDist));

  app.ws.use(async (ctx) => {
    const ws = ctx.websocket;
    if (ctx.path === '/ws/risk') return serveRiskSocket(ws, ctx.req, { orm: deps.orm, hub: deps.hub, logger: deps.logger, idleCloseMs: deps.idleCloseMs, revocationCheckMs: deps.revocationCheckMs, meter: deps.metrics.socket(ws, 'risk') }, ctx.cookies.get(SESSION_COOKIE));
    if (ctx.path === '/ws/quotes') return serveQuotesSocket(ws, deps.quotes, deps.idleCloseMs, deps.metrics.socket(ws, 'quotes'));
    if (ctx.path === '/ws/market') return serveMarketSocket(ws, ctx.req, { orm: deps.orm, hub: deps.market, streams: deps.streams, logger: deps.logger, idleCloseMs: deps.idleCloseMs, meter: deps.metrics.socket(ws, 'market') });
    ws.send(JSON.stringify({ type: 'Result', ok: false, error: 'not_found', detail: `no channel ${ctx.path}` }));
    ws.close(1008, 'not_found');
  });
  return app;
}

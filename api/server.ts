/**
 * The api process (docs/architecture.md): `npm run start:api` (`node dist/api/server.js`, compiled by
 * `npm run build`), or `npm run api` from the sources (tsx). Stateless; run any number.
 * Exposes `startApi()` for the dev runner and tests.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { pino, type Logger } from 'pino';
import type { MikroORM } from '@mikro-orm/postgresql';
import { loadConfig, printConfig, type Config } from '../config.js';
import { temporalConnectionOptions } from '../temporal-connection.js';
import { openOrm } from '../db/orm.js';
import { createApp } from './app.js';
import { startEventHub } from './ws/hub.js';
import { startQuotesHub } from './ws/quotes-hub.js';
import { startMarketHub } from './ws/market-hub.js';
import { createAuthCache, type AuthCache } from './auth/auth-cache.js';
import { createAccountStateCache } from '../db/account-state-cache.js';
import { startNotices, type Notices } from '../db/notices.js';
import { authSource } from './auth/auth-source.js';
import { MarketStreams } from '../db/market-streams.js';
import { drainer } from './shutdown.js';
import { takeOverSignals } from '../lifecycle.js';
import { createApiMetrics } from './ops/metrics.js';
import { checkReadiness, postgresCheck, temporalCheck } from '../infra/readiness.js';
import { tracingFromConfig, type Tracing } from '../telemetry/tracing.js';
import { tracingClientInterceptors } from '../telemetry/temporal.js';
import { withWorkflowTaskTimeout } from '../workflow-task-timeout.js';

export interface RunningApi {
  server: Server;
  baseUrl: string;
  /** This process's authentication cache (api/auth/auth-cache.ts). */
  auth: AuthCache;
  /** The LISTEN connection of this process's caches (db/notices.ts): `settle()` after a write the next request must see. */
  notices: Notices;
  /**
   * Graceful stop (README "Graceful shutdown"): refuses new connections, closes every WebSocket with
   * 1001, lets in-flight requests finish for up to `graceMs` (default `API_SHUTDOWN_GRACE_MS`) and then
   * cuts what is left (api/shutdown.ts), then stops the hubs and closes the Temporal connection.
   * The ORM is the caller's. Idempotent.
   */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Starts the HTTP and WebSocket server on config.host:config.port (port 0 = any free port). With
 * `tracing` (README "Traces"), requests get server spans and the Temporal client carries their context.
 */
export async function startApi(opts: {
  config: Config;
  orm: MikroORM;
  logger: Logger;
  idleCloseMs?: number;
  revocationCheckMs?: number;
  tracing?: Tracing;
}): Promise<RunningApi> {
  const { config, orm, logger } = opts;
  const connection = await Connection.connect(temporalConnectionOptions(config.temporal));
  const temporal = new Client({
    connection,
    namespace: config.temporal.namespace,
    interceptors: withWorkflowTaskTimeout(tracingClientInterceptors(opts.tracing), config.workflowTaskTimeoutMs),
  });
  // The in-memory caches and their one LISTEN connection (db/notices.ts).
  const auth = createAuthCache(authSource(orm), config.authCacheMs);
  const accountStates = createAccountStateCache(config.stateCacheMs);
  const notices = await startNotices(config.databaseUrl, [auth.subscriber, accountStates.subscriber], logger);
  const hub = await startEventHub(config.databaseUrl, logger, accountStates.cache.forget);
  const quotes = await startQuotesHub(config.databaseUrl, logger);
  const streams = new MarketStreams(orm);
  const market = await startMarketHub(config.databaseUrl, streams, logger);
  // Operations (README "Operating it"): a metrics registry of this api's own, and the readiness probes of GET /readyz.
  const metrics = createApiMetrics();
  const postgres = postgresCheck(config.databaseUrl, logger);
  const temporalProbe = temporalCheck(temporal.connection);
  const readiness = () => checkReadiness({ postgres: postgres.check, temporal: temporalProbe.check });
  let baseUrl = config.publicBaseUrl ?? '';
  const app = createApp({
    orm,
    temporal,
    config,
    logger,
    hub,
    quotes,
    market,
    streams,
    auth: auth.cache,
    accountStates: accountStates.cache,
    metrics,
    readiness,
    baseUrl: () => baseUrl,
    idleCloseMs: opts.idleCloseMs,
    revocationCheckMs: opts.revocationCheckMs,
    tracing: opts.tracing,
  });
  // Tenant resolution (docs/api.md §5.6) must see requests that carry no Host at all.
  const handle = app.callback();
  // Koa's handler answers its own errors (ctx.onerror), so its promise is not awaited.
  const server = createServer({ requireHostHeader: false }, (req, res) => void handle(req, res));
  app.ws.listen({ server });
  const drain = drainer(server, () => app.ws.server, logger);
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  const port = (server.address() as AddressInfo).port;
  baseUrl ||= `http://${config.host}:${port}`;
  let stopped: Promise<void> | undefined;
  return {
    server,
    baseUrl,
    auth: auth.cache,
    notices,
    stop(graceMs = config.shutdown.apiGraceMs) {
      return (stopped ??= (async () => {
        await drain.drain(graceMs);
        await hub.stop();
        await quotes.stop();
        await market.stop();
        await notices.stop();
        await postgres.close();
        await temporalProbe.settled();
        await connection.close();
      })());
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // `--print-config`: the effective configuration, secrets redacted, then exit (README "Configuration checks").
  if (process.argv.includes('--print-config')) printConfig();
  const config = loadConfig();
  const logger = pino({ level: config.logLevel, base: { proc: 'api' } });
  const orm = await openOrm(config.databaseUrl);
  const tracing = tracingFromConfig(config, 'platform-api'); // README "Traces": off unless OTEL_EXPORTER_OTLP_ENDPOINT is set
  const api = await startApi({ config, orm, logger, tracing });
  logger.info({ baseUrl: api.baseUrl }, 'api listening');
  // README "Graceful shutdown": SIGTERM/SIGINT/SIGHUP (or the parent's IPC channel closing) drain and exit 0; a second signal exits at once.
  takeOverSignals((reason) => {
    logger.info({ reason, graceMs: config.shutdown.apiGraceMs }, 'api stopping');
    void api
      .stop()
      .then(() => orm.close())
      .then(() => tracing?.shutdown())
      .then(
        () => (logger.info('api stopped'), process.exit(0)),
        (err: unknown) => (logger.error({ err }, 'api stop failed'), process.exit(1)),
      );
  });
}

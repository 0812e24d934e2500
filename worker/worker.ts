/**
 * Builds the worker process's parts: the Temporal worker (all workflows and activities), the
 * replay mark feed with live candle aggregation (when `MARK_FEED=replay`; with `VENUE_FEEDS=live` the
 * Hyperliquid, Aster, Polymarket and (with its read key) Kalshi symbols follow the venues' WebSockets instead), the
 * on-demand market stream producer (when `MARKET_STREAMS=on`), the trigger watcher and the webhook dispatcher, and the ops server on
 * `WORKER_HTTP_HOST:WORKER_HTTP_PORT` (worker/ops-server.ts: /healthz, /readyz, /metrics with the worker's own metrics,
 * worker/metrics.ts). Used by worker/main.ts and by tests, which pass a prebuilt workflow bundle. The Temporal SDK's
 * metrics appear in /metrics only when the process's Runtime was installed with a Prometheus exporter (worker/main.ts
 * does; the test stacks install theirs without one, so their /metrics has no `temporal_*` part).
 */
import { NativeConnection, Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { Client, Connection } from '@temporalio/client';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { temporalConnectionOptions } from '../temporal-connection.js';
import { isolateExecutionTimeout } from './isolate-timeout.js';
import { createActivities } from '../activities/index.js';
import { parseKeyRing } from '../domain/custody/vault.js';
import { publishMark } from '../modules/market/feeds/marks.js';
import { startTriggerWatcher } from '../modules/market/feeds/trigger-watcher.js';
import { contendFeedLocks } from '../modules/market/feeds/feed-leader.js';
import { ReplayMarkFeed } from '../modules/market/feeds/mark-feed.js';
import type { VenueMarkFeed } from '../modules/market/feeds/venue-feed.js';
import { startLiveFeeds } from '../modules/market/feeds/live-feeds.js';
import { followsVenue } from '../domain/market/live-venues.js';
import { loadRecordedCandles } from '../modules/market/feeds/candles.js';
import { recordLiveBars } from '../modules/market/feeds/live-candles.js';
import { handOverPrints, startStreamProducer, type StreamProducer } from '../modules/market/feeds/streams.js';
import type pg from 'pg';
import { newPool } from '../db/pool.js';
import type { MarkTick } from '../domain/market/types.js';
import type { TapePrint } from '../domain/market/replay.js';
import type { SymbolSpec } from '../domain/market/symbols.js';
import { VENUE_SYMBOLS } from '../domain/market/symbols.js';
import { startPredictionMarkFeed } from '../modules/market/feeds/prediction-marks.js';
import { faultInjection } from './fault-injection.js';
import { startWebhookDispatcher } from './webhook-dispatcher.js';
import { startMailSender } from './mail-sender.js';
import { mailTransport } from '../infra/mail.js';
import { WORKFLOWS_PATH, prebuiltBundlePath } from './workflows-path.js';
import { createWorkerMetrics } from './metrics.js';
import { pollersRunning, sdkPrometheusAddress, startOpsServer, workerMetricsText } from './ops-server.js';
import { checkReadiness, postgresCheck, temporalCheck } from '../infra/readiness.js';
import type { Tracing } from '../telemetry/tracing.js';
import { tracingClientInterceptors, workerTracing } from '../telemetry/temporal.js';
import { withWorkflowTaskTimeout } from '../workflow-task-timeout.js';

export { WORKFLOWS_PATH };

export interface WorkerParts {
  worker: Worker;
  /** Base URL of the worker's ops server (worker/ops-server.ts: /healthz, /readyz, /metrics), e.g. `http://127.0.0.1:9464`. */
  opsUrl: string;
  /** Runs until shutdown; then stops the feed and watcher and closes connections. */
  run(): Promise<void>;
  shutdown(): void;
}

/** Creates the worker and its companions. `workflowBundle` skips bundling (tests). */
/**
 * Offline marks (`MARK_FEED=replay`): every perp symbol replays the recorded Hyperliquid data of
 * its coin (paper, and the routed perps' marks, but for the Hyperliquid and Aster ones under
 * `VENUE_FEEDS=live`, which follow the venues' WebSockets); prediction symbols (Polymarket, Kalshi) step through the
 * recorded Polymarket daily prices (but for the Polymarket ones under `VENUE_FEEDS=live`, which follow Polymarket's
 * CLOB market channel, and the Kalshi ones under `VENUE_FEEDS=live` with KALSHI_FEED_KEY_ID/KALSHI_FEED_PRIVATE_KEY
 * set, which follow Kalshi's signed WebSocket).
 */
const REPLAYED = Object.values(VENUE_SYMBOLS)
  .flat()
  .filter((s) => s.assetClass === 'perp');
const PREDICTION = Object.values(VENUE_SYMBOLS)
  .flat()
  .filter((s) => s.assetClass === 'prediction');

/** Attempts of the recorded candle load at start, 1 s apart, doubling (PostgreSQL restarting meanwhile). */
const CANDLE_LOAD_ATTEMPTS = 5;

/**
 * {@link loadRecordedCandles}, again after a failure (it is idempotent): a connection lost during a start
 * (PostgreSQL restarting) costs a retry, not the process.
 * @throws the last attempt's Error after {@link CANDLE_LOAD_ATTEMPTS} failures.
 */
async function loadCandlesRetrying(databaseUrl: string, logger: Logger): Promise<number> {
  for (let attempt = 1, waitMs = 1_000; ; attempt++, waitMs *= 2) {
    try {
      return await loadRecordedCandles(databaseUrl);
    } catch (err) {
      if (attempt >= CANDLE_LOAD_ATTEMPTS) throw err;
      logger.warn({ err, attempt }, 'recorded candle load failed; retrying');
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }
}

/**
 * Where Worker.create takes the workflow code from: the given bundle, `WORKFLOW_BUNDLE_PATH` (`configured`), the
 * prebuilt `dist/workflows-bundle.js`, else the sources.
 */
function workflowCode(
  given: WorkflowBundleOption | undefined,
  configured: string | null,
): { workflowBundle: WorkflowBundleOption } | { workflowsPath: string } {
  const prebuilt = configured ?? prebuiltBundlePath();
  const bundle = given ?? (prebuilt ? { codePath: prebuilt } : undefined);
  return bundle ? { workflowBundle: bundle } : { workflowsPath: WORKFLOWS_PATH };
}

export async function createWorker(opts: {
  config: Config;
  orm: MikroORM;
  logger: Logger;
  workflowBundle?: WorkflowBundleOption;
  tracing?: Tracing;
}): Promise<WorkerParts> {
  const { config, orm, logger } = opts;
  // Tracing on (README "Traces"): activity spans, the workflow span sink, and workflow interceptor modules, which only a bundle built here
  // or one given already built with WORKFLOW_TRACING_MODULES has (so a traced worker never takes the untraced prebuilt dist bundle).
  const traced = opts.tracing && workerTracing(opts.tracing);
  const connection = await NativeConnection.connect(temporalConnectionOptions(config.temporal));
  const clientConnection = await Connection.connect(temporalConnectionOptions(config.temporal));
  const temporal = new Client({
    connection: clientConnection,
    namespace: config.temporal.namespace,
    interceptors: withWorkflowTaskTimeout(tracingClientInterceptors(opts.tracing), config.workflowTaskTimeoutMs),
  });
  const metrics = createWorkerMetrics();
  // The ledger's own pool (db/sql.ts: prepared statements, no MikroORM), as large as MikroORM's; pipelining: a
  // transaction's statements that wait for no answer go out together (db/sql.ts `transaction`).
  const ledgerPool = newPool({ connectionString: config.databaseUrl, max: 10, pipeline: true }, (err) =>
    logger.warn({ err }, 'ledger pool: idle connection lost'),
  );
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    // Given bundle (tests), else the one `npm run build` prebuilt (compiled worker), else bundle the sources at start.
    ...(traced && !opts.workflowBundle
      ? { workflowsPath: WORKFLOWS_PATH }
      : workflowCode(opts.workflowBundle, config.workflowBundlePath)),
    // SIGTERM/SIGINT: running activities get this long to finish, then are cancelled; 5 s later the worker gives up on them (README "Graceful shutdown").
    shutdownGraceTime: config.shutdown.workerGraceMs,
    shutdownForceTime: config.shutdown.workerGraceMs + 5_000,
    // No limit on a call into the workflow sandbox unless configured: the SDK's limit costs a thread per call (worker/isolate-timeout.ts).
    ...isolateExecutionTimeout(config.workflowIsolateTimeoutMs, (msg) => logger.warn(msg)),
    activities: createActivities({
      orm,
      pool: ledgerPool,
      temporal,
      markMaxAgeMs: config.markMaxAgeMs,
      ring: config.agentKeyEncryptionKeys ? parseKeyRing(config.agentKeyEncryptionKeys) : null,
      venues: config.venues,
      chain: config.chain,
      webhookAllowPrivate: config.webhooks.allowPrivate,
      historyBound: config.historyBound,
      metrics,
    }),
    interceptors: {
      activity: [...faultInjection(config.faultCrash), ...(traced?.activity ?? [])],
      ...(traced && !opts.workflowBundle && { workflowModules: traced.workflowModules }),
    },
    ...(traced && { sinks: traced.sinks }),
  });
  const watcher = await startTriggerWatcher({ databaseUrl: config.databaseUrl, temporal, logger });
  const { dispatchMs, allowPrivate: _private, ...timing } = config.webhooks;
  const webhooks = await startWebhookDispatcher({
    databaseUrl: config.databaseUrl,
    temporal,
    taskQueue: config.temporal.taskQueue,
    timing,
    intervalMs: dispatchMs,
    logger,
  });
  const mail = startMailSender({
    orm,
    transport: mailTransport(config.mail),
    intervalMs: config.mail.retryMs,
    logger,
    metrics,
  });
  // README "Operating it": /healthz, /readyz (PostgreSQL, Temporal, pollers running), /metrics (ours, then the SDK's when worker/main.ts installed its exporter).
  const postgres = postgresCheck(config.databaseUrl, logger);
  const sdkMetrics = sdkPrometheusAddress();
  const temporalProbe = temporalCheck(connection);
  const ops = await startOpsServer({
    ...config.workerHttp,
    logger,
    readiness: () =>
      checkReadiness({ postgres: postgres.check, temporal: temporalProbe.check, worker: pollersRunning(worker) }),
    metrics: { text: () => workerMetricsText(metrics.registry, sdkMetrics), contentType: metrics.registry.contentType },
  });

  let feed: ReplayMarkFeed | undefined;
  let liveFeeds: VenueMarkFeed[] = [];
  let predictionFeed: { stop(): Promise<void> } | undefined;
  let leadership: Awaited<ReturnType<typeof contendFeedLocks>> | undefined;
  let candlePool: pg.Pool | undefined;
  // Under VENUE_FEEDS=live a live venue's marks, tape and live bars are its own (Kalshi's only with the platform's
  // read key, config.ts KALSHI_FEED_*; startLiveFeeds warns once without it); the tape is handed over by the feed
  // leader (publish below). The same rule labels the api's answers (domain/market/live-venues.ts).
  const feeds = { venueFeeds: config.venueFeeds, feedKeys: config.venues.feedKeys };
  const livePrints = (venue: string) => followsVenue(feeds, venue);
  const streams: StreamProducer | undefined =
    config.marketStreams === 'on'
      ? await startStreamProducer({ databaseUrl: config.databaseUrl, logger, livePrints })
      : undefined;
  if (config.markFeed === 'replay') {
    const loaded = await loadCandlesRetrying(config.databaseUrl, logger);
    if (loaded) logger.info({ rows: loaded }, 'recorded candles loaded');
    leadership = await contendFeedLocks(
      config.databaseUrl,
      [...REPLAYED, ...PREDICTION].map((s) => `${s.venue} ${s.symbol}`),
      logger,
    );
    const lead = leadership;
    const pool = (candlePool = newPool({ connectionString: config.databaseUrl, max: 2 }, (err) =>
      logger.error({ err }, 'live candle pool error'),
    ));
    const publish = async (tick: MarkTick, prints: TapePrint[]) => {
      if (!lead.holds(`${tick.venue} ${tick.symbol}`)) return;
      await publishMark(orm, tick);
      // a live venue's prints are its tape: to whichever worker streams the pair (streams.ts)
      if (livePrints(tick.venue)) await handOverPrints(pool, tick.venue, tick.symbol, prints);
      await recordLiveBars(pool, tick, prints);
    };
    const replayed = (s: SymbolSpec) => !livePrints(s.venue);
    feed = new ReplayMarkFeed({
      symbols: REPLAYED.filter(replayed),
      onTick: publish,
      onError: (err) => logger.error({ err }, 'mark feed tick failed'),
    });
    await feed.start();
    if (config.venueFeeds === 'live') {
      liveFeeds = startLiveFeeds({
        // Every symbol: it starts the live venues' feeds and warns about a venue lacking its credentials.
        symbols: [...REPLAYED, ...PREDICTION],
        apiUrls: config.venues.urls,
        keys: feeds.feedKeys,
        // Perps and prediction symbols alike: the mark, the tape and the live bars (a prediction symbol's series
        // continues its recorded daily prices with them, modules/market/queries/series.ts).
        onTick: publish,
        logger,
      });
    }
    predictionFeed = startPredictionMarkFeed({
      orm,
      // Under VENUE_FEEDS=live only what has no live feed (Kalshi's `*.KX` without KALSHI_FEED_*) keeps the replay.
      symbols: PREDICTION.filter((s) => lead.holds(`${s.venue} ${s.symbol}`) && replayed(s)),
      onError: (err: unknown) => logger.error({ err }, 'prediction mark feed tick failed'),
    });
  }

  return {
    worker,
    opsUrl: ops.url,
    shutdown: () => worker.shutdown(),
    async run() {
      try {
        await worker.run();
      } finally {
        await feed?.stop();
        for (const f of liveFeeds) await f.stop();
        await predictionFeed?.stop();
        await leadership?.stop();
        await candlePool?.end();
        await ledgerPool.end();
        await streams?.stop();
        await watcher.stop();
        await webhooks.stop();
        await mail.stop();
        await clientConnection.close();
        await ops.stop();
        await temporalProbe.settled();
        await connection.close();
        await postgres.close();
      }
    },
  };
}

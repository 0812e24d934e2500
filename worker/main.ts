/**
 * The worker process (docs/architecture.md): `npm run start:worker` (`node dist/worker/main.js`, compiled by
 * `npm run build`, with the prebuilt workflow bundle), or `npm run worker` from the sources (tsx). Runs every
 * workflow and activity on the OMS task queue, the replay mark feed and the trigger watcher; stops cleanly
 * on SIGINT/SIGTERM (in-flight activities finish within WORKER_SHUTDOWN_GRACE_MS, then connections close; exit 0).
 */
import { pino } from 'pino';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { loadConfig, printConfig } from '../config.js';
import { temporalConnectionOptions } from '../temporal-connection.js';
import { openOrm } from '../db/orm.js';
import { createWorker } from './worker.js';
import { freeLocalAddress } from './ops-server.js';
import { tracingFromConfig } from '../telemetry/tracing.js';
import { ensureSchedules } from './schedules.js';
import { Client, Connection } from '@temporalio/client';
import { takeOverSignals } from '../lifecycle.js';

// `--print-config`: the effective configuration, secrets redacted, then exit (README "Configuration checks").
if (process.argv.includes('--print-config')) printConfig();
const config = loadConfig();
const logger = pino({ level: config.logLevel, base: { proc: 'worker' } });
/** The SDK's own log level follows LOG_LEVEL (bundling and state changes are INFO). */
const SDK_LEVEL = {
  trace: 'TRACE',
  debug: 'DEBUG',
  info: 'INFO',
  warn: 'WARN',
  error: 'ERROR',
  fatal: 'ERROR',
  silent: 'ERROR',
} as const;
// The SDK's own metrics (README "Metrics"): a Prometheus exporter on a free loopback port, merged into the ops server's /metrics.
Runtime.install({
  logger: new DefaultLogger(SDK_LEVEL[config.logLevel]),
  telemetryOptions: {
    metrics: {
      prometheus: {
        bindAddress: await freeLocalAddress(),
        countersTotalSuffix: true,
        unitSuffix: true,
        useSecondsForDurations: true,
      },
    },
  },
});
const orm = await openOrm(config.databaseUrl);
const tracing = tracingFromConfig(config, 'platform-worker'); // README "Traces": off unless OTEL_EXPORTER_OTLP_ENDPOINT is set
const parts = await createWorker({ config, orm, logger, tracing });
{
  const connection = await Connection.connect(temporalConnectionOptions(config.temporal));
  const scheduleIds = await ensureSchedules(
    new Client({ connection, namespace: config.temporal.namespace }),
    config.temporal.taskQueue,
  );
  logger.info({ scheduleIds }, 'schedules ensured');
  await connection.close();
}
// README "Graceful shutdown": SIGTERM/SIGINT/SIGHUP (or the parent's IPC channel closing) stop polling; running activities get
// WORKER_SHUTDOWN_GRACE_MS to finish, then are cancelled; then the feed, watcher and dispatcher stop and connections close. A second signal exits at once.
takeOverSignals((reason) => {
  logger.info({ reason, graceMs: config.shutdown.workerGraceMs }, 'worker stopping');
  try {
    parts.shutdown();
  } catch (err) {
    logger.warn({ err }, 'worker was not running'); // run() has ended already; it exits on its own
  }
});
logger.info({ taskQueue: config.temporal.taskQueue, markFeed: config.markFeed }, 'worker started');
try {
  await parts.run();
} catch (err) {
  // GracefulShutdownPeriodExpiredError (activities still running WORKER_SHUTDOWN_GRACE_MS + 5 s after the signal), or a fatal worker error.
  logger.error({ err }, 'worker stopped abnormally');
  process.exit(1);
}
await orm.close();
await tracing?.shutdown(); // flushes the spans still batched
logger.info('worker stopped');
process.exit(0);

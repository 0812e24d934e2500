/**
 * The worker process (docs/architecture.md): `node --import tsx worker/main.ts`. Runs every workflow and
 * activity on the OMS task queue, the replay mark feed and the trigger watcher; stops cleanly
 * on SIGINT/SIGTERM (in-flight activities finish, then connections close).
 */
import { pino } from 'pino';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { loadConfig } from '../config.js';
import { openOrm } from '../db/orm.js';
import { createWorker } from './worker.js';
import { ensureSchedules } from './schedules.js';
import { Client, Connection } from '@temporalio/client';

const config = loadConfig();
const logger = pino({ level: config.logLevel, base: { proc: 'worker' } });
/** The SDK's own log level follows LOG_LEVEL (bundling and state changes are INFO). */
const SDK_LEVEL = { trace: 'TRACE', debug: 'DEBUG', info: 'INFO', warn: 'WARN', error: 'ERROR', fatal: 'ERROR', silent: 'ERROR' } as const;
Runtime.install({ logger: new DefaultLogger(SDK_LEVEL[config.logLevel]) });
const orm = await openOrm(config.databaseUrl);
const parts = await createWorker({ config, orm, logger });
{
  const connection = await Connection.connect({ address: config.temporal.address });
  const scheduleIds = await ensureSchedules(new Client({ connection, namespace: config.temporal.namespace }), config.temporal.taskQueue);
  logger.info({ scheduleIds }, 'schedules ensured');
  await connection.close();
}
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => parts.shutdown());
logger.info({ taskQueue: config.temporal.taskQueue, markFeed: config.markFeed }, 'worker started');
await parts.run();
await orm.close();
logger.info('worker stopped');

/**
 * The api process (docs/architecture.md): `node --import tsx api/server.ts`. Stateless; run any number.
 * Exposes `startApi()` for the dev runner and tests.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { pino, type Logger } from 'pino';
import type { MikroORM } from '@mikro-orm/postgresql';
import { loadConfig, type Config } from '../config.js';
import { openOrm } from '../db/orm.js';
import { createApp } from './app.js';
import { startEventHub } from './ws/hub.js';
import { startQuotesHub } from './ws/quotes-hub.js';
import { startMarketHub } from './ws/market-hub.js';
import { startCredentialCache } from './auth/credential-cache.js';
import { MarketStreams } from '../db/market-streams.js';

export interface RunningApi {
  server: Server;
  baseUrl: string;
  stop(): Promise<void>;
}

/** Starts the HTTP and WebSocket server on config.host:config.port (port 0 = any free port). */
export async function startApi(opts: { config: Config; orm: MikroORM; logger: Logger; idleCloseMs?: number; revocationCheckMs?: number }): Promise<RunningApi> {
  const { config, orm, logger } = opts;
  const connection = await Connection.connect({ address: config.temporal.address });
  const temporal = new Client({ connection, namespace: config.temporal.namespace });
  const hub = await startEventHub(config.databaseUrl, logger);
  const quotes = await startQuotesHub(config.databaseUrl, logger);
  const streams = new MarketStreams(orm);
  const market = await startMarketHub(config.databaseUrl, streams, logger);
  const credentials = await startCredentialCache(config.databaseUrl, config.scopeCacheMs, logger);
  let baseUrl = config.publicBaseUrl ?? '';
  const app = createApp({ orm, temporal, config, logger, hub, quotes, market, streams, credentials, baseUrl: () => baseUrl, idleCloseMs: opts.idleCloseMs, revocationCheckMs: opts.revocationCheckMs });
  // Tenant resolution (docs/api.md §5.6) must see requests that carry no Host at all.
  const server = createServer({ requireHostHeader: false }, app.callback());
  app.ws.listen({ server });
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  const port = (server.address() as AddressInfo).port;
  baseUrl ||= `http://${config.host}:${port}`;
  return {
    server,
    baseUrl,
    async stop() {
      for (const c of app.ws.server?.clients ?? []) c.terminate();
      await new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections?.();
      await hub.stop();
      await quotes.stop();
      await market.stop();
      await credentials.stop();
      await connection.close();
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const config = loadConfig();
  const logger = pino({ level: config.logLevel, base: { proc: 'api' } });
  const orm = await openOrm(config.databaseUrl);
  const api = await startApi({ config, orm, logger });
  logger.info({ baseUrl: api.baseUrl }, 'api listening');
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => void api.stop().then(() => orm.close()).then(() => process.exit(0)));
  }
}

/**
 * `npm run docs:api`: writes the committed copies of the documents the api serves,
 * `docs/openapi.json` (`GET /api/v1/openapi.json`, OpenAPI 3.1) and `docs/asyncapi.json`
 * (`GET /api/v1/asyncapi.json`, AsyncAPI 3.0), for the fixed base URL {@link DOCS_BASE_URL}.
 *
 * The documents are fetched over HTTP from the real Koa app (`createApp`) listening on a free
 * loopback port, so they are byte for byte what a deployment serves. Neither route nor any route
 * registration touches PostgreSQL or Temporal, so the app gets inert dependencies (a real, private
 * metrics registry aside): any use of one throws `export-api-docs: <name> is not available`. test/unit/api-docs.test.ts regenerates both
 * documents and compares them with the committed files.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../config.js';
import { createApp, type AppDeps } from '../api/app.js';
import { createApiMetrics } from '../api/ops/metrics.js';

/** The placeholder public base URL written into the committed documents' `servers`. */
export const DOCS_BASE_URL = 'http://localhost:3000';

/** Where the committed copies live, relative to the repository root. */
export const API_DOC_FILES = { openapi: 'docs/openapi.json', asyncapi: 'docs/asyncapi.json' } as const;

/** The repository root (this file's parent directory). */
export const REPO_ROOT = path.resolve(import.meta.dirname, '..');

/** A stand-in dependency: any property read throws, naming the dependency. */
function inert(name: string): never {
  return new Proxy(
    {},
    {
      get(_t, prop) {
        if (prop === 'then') return undefined; // not a thenable
        throw new Error(`export-api-docs: ${name} is not available (read of ${String(prop)})`);
      },
    },
  ) as never;
}

/** The serialised documents: pretty-printed JSON (2 spaces) with a final newline, as committed. */
export interface ApiDocuments {
  openapi: string;
  asyncapi: string;
}

/**
 * Builds both documents from the real app with inert dependencies and the fixed configuration
 * below (no environment is read), so the result is the same on every machine.
 * @throws Error when a route needs a dependency at registration, or a document does not answer 200.
 */
export async function buildApiDocuments(baseUrl = DOCS_BASE_URL): Promise<ApiDocuments> {
  const config = loadConfig({
    DATABASE_URL: 'postgres://inert@127.0.0.1:5432/inert',
    JWT_SECRET: 'export-api-docs-placeholder-secret-0000',
    LOG_LEVEL: 'silent',
  });
  const deps: AppDeps = {
    config,
    logger: pino({ level: 'silent' }),
    metrics: createApiMetrics(), // a fresh registry: every request is timed by the metrics middleware
    readiness: inert('readiness'),
    orm: inert('orm'),
    temporal: inert('temporal'),
    hub: inert('hub'),
    quotes: inert('quotes'),
    market: inert('market'),
    streams: inert('streams'),
    auth: inert('auth'),
    accountStates: inert('accountStates'),
    baseUrl: () => baseUrl,
  };
  const handle = createApp(deps).callback();
  // Koa's handler answers its own errors (ctx.onerror), so its promise is not awaited (as in api/server.ts).
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const get = async (p: string) => {
      const res = await fetch(origin + p);
      if (res.status !== 200) throw new Error(`export-api-docs: GET ${p} answered ${res.status}: ${await res.text()}`);
      return `${JSON.stringify(await res.json(), null, 2)}\n`;
    };
    return { openapi: await get('/api/v1/openapi.json'), asyncapi: await get('/api/v1/asyncapi.json') };
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const docs = await buildApiDocuments();
  for (const [kind, file] of Object.entries(API_DOC_FILES) as [keyof ApiDocuments, string][]) {
    await writeFile(path.join(REPO_ROOT, file), docs[kind]);
    console.log(`wrote ${file} (${docs[kind].length} bytes)`);
  }
}

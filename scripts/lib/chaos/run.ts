/**
 * A chaos run (README "Running at scale"; `npm run chaos`, and the short version in
 * test/temporal/chaos.test.ts): the reference cluster (scripts/lib/cluster.ts: the Temporal server on
 * PostgreSQL, 2 api and 3 worker processes) on a PostgreSQL server of the run's own, the four venue
 * simulators, and a driver (scripts/lib/chaos/workload.ts) composing without pause through both api
 * ports for 20 accounts; meanwhile a killer SIGKILLs a random worker every few seconds (a fresh one
 * started for each), the Temporal server is killed and restarted once and the PostgreSQL server once.
 * Then the run settles, and scripts/lib/chaos/reconcile.ts checks that nothing was lost, doubled or
 * left stuck.
 */
import { createServer, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode } from '@temporalio/worker';
import { generatePrivateKey } from 'viem/accounts';
import { openOrm } from '../../../db/orm.js';
import { ensureTenant, issueCredential } from '../../../db/seed.js';
import type { RoutedVenue } from '../../../domain/oms/intent.js';
import { WORKFLOWS_PATH } from '../../../worker/workflows-path.js';
import { startCluster, type Cluster, type ClusterProcess } from '../cluster.js';
import { authorizeDemoAgents, startDevSimulators } from '../dev-venues.js';
import { startRestartablePostgres } from '../postgres.js';
import { reconcile, type Reconciliation } from './reconcile.js';
import { apiClient, drive, newWorkLog, type ChaosAccount, type WorkLog } from './workload.js';

/** How a run is shaped. */
export interface ChaosOptions {
  /** How long the driver composes at least (ms); it goes on until `minKills` workers were killed too. */
  driveMs: number;
  /** Mean time between two worker kills (ms; each gap drawn from 0.5-1.5 × this). */
  killEveryMs: number;
  minKills: number;
  /** Internalised accounts (trading on `paper`) and routed ones (agents on the four simulators). */
  accounts: { paper: number; routed: number };
  /** How long the platform may take, after the driver stops, to finish what is in flight (ms). */
  settleMs: number;
  /** A folder for the run's files (PostgreSQL's data, the server config, the workflow bundle); emptied. */
  runDir: string;
  /**
   * A workflow bundle built already (`bundleWorkflowCode`'s code in a file: the test suite's global setup builds one),
   * which the workers run; without it the run bundles the workflows itself into `runDir` (several seconds).
   */
  bundlePath?: string;
  /** Receives the run's progress lines and every process's output line. */
  log: (line: string) => void;
  /** Receives the processes' output lines (default: dropped). */
  processLog?: (line: string) => void;
}

/** The figures of a run (`.data/chaos.json`), with the reconciliation's findings. */
export interface ChaosReport {
  kills: number;
  /** Workers that exited without being killed (each replaced); a crash is a defect the run reports. */
  workerCrashes: number;
  temporalRestarts: number;
  postgresRestarts: number;
  intents: number;
  batches: number;
  lost: number;
  duplicated: number;
  stuck: number;
  ok: boolean;
  /** Steps the driver ran by kind, composes never answered, retried attempts and 4xx by code. */
  driver: Pick<WorkLog, 'steps' | 'unanswered' | 'unansweredWhy' | 'retries' | 'refusals'> & {
    composed: number;
    brackets: number;
  };
  reconciliation: Reconciliation;
  /** Milliseconds: driving, settling; the whole run. */
  timings: { driveMs: number; settleMs: number; totalMs: number };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An HTTP receiver for webhook deliveries: event id (`x-webhook-event-id`) → deliveries. */
async function webhookReceiver(): Promise<{ url: string; received: Map<string, number>; server: Server }> {
  const received = new Map<string, number>();
  const server = createServer((req, res) => {
    const id = String(req.headers['x-webhook-event-id'] ?? '');
    req.resume();
    req.on('end', () => {
      received.set(id, (received.get(id) ?? 0) + 1);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/hook`, received, server };
}

/** The run's shared switch: the driver and the killer stop once `stopping`; `kills` so far. */
interface RunState {
  stopping: boolean;
  kills: number;
}

/** Bundles the workflows once for every worker into `runDir`; answers the bundle's path. */
async function bundleInto(runDir: string, log: (line: string) => void): Promise<string> {
  log('chaos: bundling the workflows once for every worker');
  const bundlePath = path.join(runDir, 'workflows-bundle.js');
  const quiet = { info() {}, warn() {}, error: console.error, debug() {}, trace() {}, log() {} } as never;
  writeFileSync(bundlePath, (await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quiet })).code);
  return bundlePath;
}

/**
 * Runs the faults until `state.stopping`: a ready worker SIGKILLed every `killEveryMs` (± half) while another
 * is ready or starting, a fresh one started for each; the Temporal server killed and restarted at 35 % of `driveMs`,
 * the PostgreSQL server restarted at 70 %. Sets `state.stopping` once `driveMs` has passed with at least
 * `minKills` kills. Resolves with the counts once the restarts are done and the fresh workers have started.
 */
async function faults(cluster: Cluster, restartPostgres: () => Promise<void>, opts: ChaosOptions, state: RunState) {
  const counts = { temporalRestarts: 0, postgresRestarts: 0 };
  const started = Date.now();
  const starting: Promise<unknown>[] = [];
  const once = (at: number, what: string, run: () => Promise<void>, count: keyof typeof counts) =>
    (async () => {
      await sleep(opts.driveMs * at);
      const t0 = Date.now();
      opts.log(`chaos: ${what}`);
      await run();
      counts[count]++;
      opts.log(`chaos: ${what}: back after ${Date.now() - t0} ms`);
    })();
  const restarts = [
    once(
      0.35,
      'killing and restarting the Temporal server',
      () => cluster.restartTemporal({ kill: true }),
      'temporalRestarts',
    ),
    once(0.7, 'restarting PostgreSQL', restartPostgres, 'postgresRestarts'),
  ];
  let pending = 0;
  const killed = new Set<ClusterProcess>();
  const crashed = new Set<ClusterProcess>();
  const startWorker = () => {
    const t0 = Date.now();
    pending++;
    starting.push(
      cluster
        .addWorker()
        .then((w) => opts.log(`chaos: ${w.name} ready after ${Date.now() - t0} ms`))
        .catch((err: Error) => opts.log(`chaos: a fresh worker did not start: ${err.message.slice(0, 2_000)}`))
        .finally(() => pending--),
    );
  };
  while (!state.stopping) {
    await sleep(opts.killEveryMs * (0.5 + Math.random()));
    // A worker that exited by itself is a finding of the run; it is replaced, as a supervisor would.
    for (const w of cluster.workers)
      if (w.exitInfo() !== undefined && !killed.has(w) && !crashed.has(w)) {
        crashed.add(w);
        opts.log(`chaos: ${w.name} ${w.exitInfo()} by itself${w.lastLines().slice(-2_000)}`);
        startWorker();
      }
    // The victim is a ready worker; another one is ready or starting, so the task queue is never left for long.
    const ready = cluster.workers.filter((w: ClusterProcess) => w.exitInfo() === undefined);
    if (ready.length >= 1 && ready.length + pending >= 2) {
      const victim = ready[Math.floor(Math.random() * ready.length)];
      killed.add(victim);
      victim.child.kill('SIGKILL');
      await victim.exited;
      state.kills++;
      opts.log(`chaos: killed ${victim.name} (${state.kills} kills in ${Math.round((Date.now() - started) / 1000)} s)`);
      startWorker();
    }
    if (Date.now() - started >= opts.driveMs && state.kills >= opts.minKills) state.stopping = true;
  }
  await Promise.all([...restarts, ...starting]);
  return { kills: state.kills, ...counts, workerCrashes: crashed.size };
}

/**
 * Waits until nothing is in flight: no batch or webhook workflow running, no intent outside a batch between
 * compose and a terminal or working state, no account event without its webhook delivery, no delivery
 * pending; at most `ms`.
 */
async function settle(db: pg.Client, temporal: Client, tenantId: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const { rows } = await db.query(
      `select
         (select count(*) from order_intents where tenant_id = $1 and batch_id is null
            and (state in ('intent_pending', 'signed_pending_dispatch') or (state = 'dispatched' and coalesce(order_status, '') <> 'open')))
         + (select count(*) from webhook_deliveries where tenant_id = $1 and status = 'pending')
         + (select count(*) from account_events where tenant_id = $1)
         - (select count(*) from webhook_deliveries where tenant_id = $1) as busy`,
      [tenantId],
    );
    let running = 0;
    for await (const w of temporal.workflow.list({ query: `ExecutionStatus = 'Running'` }))
      if (/^(batch|webhook)-/.test(w.workflowId)) running++;
    if (Number(rows[0].busy) + running === 0) return;
    await sleep(1_000);
  }
}

/** Opens `count` accounts of one mode, each with a trader credential and its bearer minted through the api. */
async function openAccounts(
  orm: Awaited<ReturnType<typeof openOrm>>,
  tenantId: string,
  mode: ChaosAccount['mode'],
  count: number,
  mint: (apiKey: string, apiSecret: string) => Promise<string>,
) {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const cred = await issueCredential(orm, {
        tenantId,
        audience: 'trader',
        tier: 'fullTrading',
        account: { executionMode: mode === 'paper' ? 'internalised' : 'routed' },
      });
      return { ...cred, accountId: cred.accountId!, mode, token: await mint(cred.apiKey, cred.apiSecret) };
    }),
  );
}

/** Runs the chaos (module doc) and returns its report; everything it started is stopped again. */
export async function runChaos(opts: ChaosOptions): Promise<ChaosReport> {
  const t0 = Date.now();
  const { log } = opts;
  rmSync(opts.runDir, { recursive: true, force: true });
  const postgres = await startRestartablePostgres(path.join(opts.runDir, 'pg'));
  const stops: (() => Promise<unknown>)[] = [() => postgres.stop()];
  try {
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    await admin.query('create database platform');
    await admin.end();
    const platformUrl = postgres.url.replace(/\/postgres$/, '/platform');

    const bundlePath = opts.bundlePath ?? (await bundleInto(opts.runDir, log));

    const sims = await startDevSimulators(platformUrl);
    stops.unshift(() => sims.stop());
    const receiver = await webhookReceiver();
    stops.unshift(() => new Promise((r) => receiver.server.close(r)));

    log('chaos: starting the cluster (Temporal server on PostgreSQL, 2 apis, 3 workers)');
    const cluster = await startCluster({
      databaseUrl: platformUrl,
      apis: 2,
      workers: 3,
      ports: 'free',
      env: {
        JWT_SECRET: randomBytes(32).toString('hex'),
        AGENT_KEY_ENCRYPTION_KEYS: `chaos1:${randomBytes(32).toString('base64')}`,
        ...sims.env,
        LOG_LEVEL: process.env.CHAOS_LOG_LEVEL ?? 'warn',
        WORKFLOW_BUNDLE_PATH: bundlePath,
        WEBHOOK_ALLOW_PRIVATE: 'true',
        ROUTED_POLL_MS: '500',
        API_SHUTDOWN_GRACE_MS: '1000',
        WORKER_SHUTDOWN_GRACE_MS: '2000',
      },
      runDir: opts.runDir,
      log: opts.processLog,
    });
    stops.unshift(() => cluster.stop());
    const connection = await Connection.connect({ address: cluster.temporal.address });
    stops.unshift(() => connection.close());
    const temporal = new Client({ connection, namespace: cluster.temporal.namespace });
    const orm = await openOrm(platformUrl);
    stops.unshift(() => orm.close());

    const tenant = await ensureTenant(orm, { slug: 'chaos', displayName: 'Chaos', origins: [] });
    const workLog = newWorkLog();
    const call = apiClient(
      cluster.apis.map((a) => a.url),
      tenant.slug,
      workLog,
    );
    const mint = async (apiKey: string, apiSecret: string) => {
      const res = await fetch(`${cluster.apis[0].url}/api/auth/api-token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-tenant-slug': tenant.slug },
        body: JSON.stringify({ apiKey, apiSecret }),
      });
      if (res.status !== 200) throw new Error(`chaos: mint failed ${res.status} ${await res.text()}`);
      return ((await res.json()) as { token: string }).token;
    };

    const operator = await issueCredential(orm, {
      tenantId: tenant.id,
      audience: 'operator',
      scopes: ['tenant:config'],
    });
    const hook = await call('POST', '/api/v1/webhooks', await mint(operator.apiKey, operator.apiSecret), {
      url: receiver.url,
      events: ['*'],
    });
    if (hook.status !== 201) throw new Error(`chaos: webhook registration ${hook.status} ${JSON.stringify(hook.body)}`);

    log(`chaos: opening ${opts.accounts.paper} paper and ${opts.accounts.routed} routed accounts`);
    const paper = await openAccounts(orm, tenant.id, 'paper', opts.accounts.paper, mint);
    const routed = await openAccounts(orm, tenant.id, 'routed', opts.accounts.routed, mint);
    for (const a of routed)
      await authorizeDemoAgents({
        baseUrl: cluster.apis[0].url,
        tenantSlug: tenant.slug,
        apiKey: a.apiKey,
        apiSecret: a.apiSecret,
        accountId: a.accountId,
        walletKey: generatePrivateKey(),
        sims,
      });
    const accounts = [...paper, ...routed];

    log('chaos: waiting for the replay feed to publish marks');
    const probe = accounts[0].token;
    while ((await call('GET', '/api/v1/market/quotes/paper/BTC.PAPER', probe)).status !== 200) await sleep(500);

    log(`chaos: driving for at least ${opts.driveMs / 1000} s and ${opts.minKills} worker kills`);
    const driveStart = Date.now();
    const state: RunState = { stopping: false, kills: 0 };
    const driving = drive(accounts, call, workLog, () => state.stopping);
    const faultCounts = await faults(cluster, () => postgres.restart(), opts, state);
    await driving;
    const driveMs = Date.now() - driveStart;
    log(`chaos: driving stopped after ${Math.round(driveMs / 1000)} s; settling`);

    const db = new pg.Client({ connectionString: platformUrl });
    await db.connect();
    stops.unshift(() => db.end());
    const settleStart = Date.now();
    await settle(db, temporal, tenant.id, opts.settleMs);
    const settleMs = Date.now() - settleStart;

    log('chaos: reconciling');
    const reconciliation = await reconcile({
      db,
      tenantId: tenant.id,
      accounts,
      log: workLog,
      venueOrders: (venue: RoutedVenue) => sims[venue].clientOrderIds(),
      temporal,
      webhook: { endpointId: hook.body.id, received: receiver.received },
      call,
    });
    const lost = reconciliation.lost.length;
    const duplicated = reconciliation.duplicated.length;
    const stuck = reconciliation.stuck.length;
    return {
      ...faultCounts,
      intents: reconciliation.intents,
      batches: reconciliation.batches,
      lost,
      duplicated,
      stuck,
      ok:
        lost + duplicated + stuck + faultCounts.workerCrashes === 0 &&
        faultCounts.temporalRestarts === 1 &&
        faultCounts.postgresRestarts === 1,
      driver: {
        steps: workLog.steps,
        unanswered: workLog.unanswered,
        unansweredWhy: workLog.unansweredWhy,
        retries: workLog.retries,
        refusals: workLog.refusals,
        composed: workLog.intents.size,
        brackets: workLog.brackets.length,
      },
      reconciliation,
      timings: { driveMs, settleMs, totalMs: Date.now() - t0 },
    };
  } finally {
    for (const stop of stops) await stop().catch((err: Error) => log(`chaos: stopping: ${err.message}`));
  }
}

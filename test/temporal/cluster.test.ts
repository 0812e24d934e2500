/**
 * The reference production topology (`npm run cluster`, deploy/README.md) through
 * scripts/lib/cluster.ts: the full Temporal server v1.32.2 with persistence and visibility on
 * PostgreSQL (databases of this file's own, schemas made by temporal-sql-tool), 2 api processes and 2
 * worker processes (`api/server.ts`, `worker/main.ts`, as `npm run api` / `npm run worker` start
 * them), all on a fresh platform database. A paper market order composed through each api fills, and
 * its workflow is found through the registered search attributes in the PostgreSQL visibility store;
 * the worker that ran a resting limit order is SIGKILLed, and the surviving worker cancels it and
 * fills another. Independent of the run's shared dev server.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Client, Connection } from '@temporalio/client';
import { startCluster, type Cluster, type ClusterProcess } from '../../scripts/lib/cluster.js';
import { freshDatabase, type FreshDatabase } from '../../scripts/lib/postgres.js';
import { openOrm } from '../../db/orm.js';
import { ensureTenant, issueCredential } from '../../db/seed.js';
import { intentWorkflowId } from '../../modules/oms/workflows/intent.definitions.js';
import { TEST_AGENT_KEYS, TEST_JWT_SECRET } from '../support/stack.js';
import { publish, recordedTick, restingBuyPrice } from '../support/marks.js';
import { btcLimitBuy } from '../support/trading.js';
import { waitFor } from '../support/wait.js';
import { processCaller } from '../support/http.js';

describe('the cluster (Temporal server on PostgreSQL, 2 apis, 2 workers)', () => {
  const suffix = `${process.pid}_${Date.now()}`;
  const temporalDatabases = { persistence: `temporal_${suffix}`, visibility: `temporal_visibility_${suffix}` };
  let runDir: string;
  let platform: FreshDatabase;
  let cluster: Cluster | undefined;
  let orm: MikroORM;
  let connection: Connection;
  let temporal: Client;
  let slug: string;
  let tenantId: string;
  let token: string;

  const send = processCaller(
    () => slug,
    () => token,
  );
  /** HTTP call to one api process of the cluster, as the tenant's trader. */
  const call = (api: ClusterProcess, method: string, url: string, body?: unknown) => send(api.url, method, url, body);
  const intent = (api: ClusterProcess, intentId: string) => call(api, 'GET', `/api/v1/oms/intents/${intentId}`);

  /** The pids of the workers that completed the workflow's tasks, in history order (identity `<pid>@<host>`). */
  const taskPids = async (intentId: string) => {
    const { events } = await temporal.workflow.getHandle(intentWorkflowId(intentId)).fetchHistory();
    return (events ?? [])
      .map((e) => e.workflowTaskCompletedEventAttributes?.identity)
      .filter((id): id is string => Boolean(id))
      .map((id) => Number(id.split('@')[0]));
  };

  beforeAll(async () => {
    runDir = mkdtempSync(path.join(tmpdir(), 'cluster-test-'));
    platform = await freshDatabase(inject('databaseUrl'), 'platform_cluster');
    cluster = await startCluster({
      databaseUrl: platform.url,
      apis: 2,
      workers: 2,
      ports: 'free',
      temporalDatabases,
      env: {
        JWT_SECRET: TEST_JWT_SECRET,
        AGENT_KEY_ENCRYPTION_KEYS: TEST_AGENT_KEYS,
        MARK_FEED: 'off', // the test publishes the marks
        MARKET_STREAMS: 'off',
        LOG_LEVEL: 'warn',
        API_SHUTDOWN_GRACE_MS: '1000',
        WORKER_SHUTDOWN_GRACE_MS: '2000',
      },
      runDir,
      log: process.env.TEST_LOG_LEVEL ? (line) => console.log(line) : undefined,
    });
    orm = await openOrm(platform.url);
    connection = await Connection.connect({ address: cluster.temporal.address });
    temporal = new Client({ connection, namespace: cluster.temporal.namespace });
    slug = `cluster-${process.pid}`;
    const t = await ensureTenant(orm, { slug, displayName: 'Cluster', origins: [`http://${slug}.test`] });
    tenantId = t.id;
    const cred = await issueCredential(orm, { tenantId, audience: 'trader', tier: 'fullTrading' });
    const minted = await call(cluster.apis[0], 'POST', '/api/auth/api-token', {
      apiKey: cred.apiKey,
      apiSecret: cred.apiSecret,
    });
    expect(minted.status, JSON.stringify(minted.body)).toBe(200);
    token = minted.body.token;
  }, 150_000);

  afterAll(async () => {
    await cluster?.stop();
    await connection?.close();
    await orm?.close();
    await platform?.drop();
    const admin = new pg.Client({ connectionString: inject('databaseUrl') });
    await admin.connect();
    for (const name of Object.values(temporalDatabases))
      await admin.query(`drop database if exists "${name}" with (force)`);
    await admin.end();
    rmSync(runDir, { recursive: true, force: true });
  }, 60_000);

  it('runs the server on PostgreSQL with the schemas of the sql tool, and every process answers /readyz', async () => {
    const c = cluster!;
    expect(c.temporal.databases).toEqual({
      persistence: { name: temporalDatabases.persistence, version: '1.19' },
      visibility: { name: temporalDatabases.visibility, version: '1.14' },
    });
    expect(new Set([...c.apis, ...c.workers].map((p) => p.url)).size).toBe(4);
    for (const p of [...c.apis, ...c.workers]) expect((await fetch(`${p.url}/readyz`)).status, p.name).toBe(200);
    const { customAttributes } = await connection.operatorService.listSearchAttributes({
      namespace: c.temporal.namespace,
    });
    expect(Object.keys(customAttributes ?? {}).sort()).toEqual(['AccountId', 'IntentState', 'TenantId', 'Venue']);
  });

  it('a paper market order composed through each api fills, read back through the other', async () => {
    const [a, b] = cluster!.apis;
    await publish(orm, await recordedTick('BTC.PAPER', 0));
    const ids: string[] = [];
    for (const [via, other] of [
      [a, b],
      [b, a],
    ]) {
      const res = await call(via, 'POST', '/api/v1/oms/intents', {
        venue: 'paper',
        symbol: 'BTC.PAPER',
        side: 'buy',
        type: 'market',
        qty: '0.01',
        clientOrderId: `cluster-mkt-${via.name}`,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const filled = await waitFor(
        () => intent(other, res.body.intentId),
        (r) => r.body.state === 'filled',
        30_000,
      );
      expect(filled.body).toMatchObject({ orderStatus: 'filled', filledQty: '0.01' });
      ids.push(res.body.intentId);
    }
    // Both workflows ran on this cluster and are listed by the PostgreSQL visibility store under the tenant's search attribute.
    const listed = await waitFor(
      async () => {
        const found: string[] = [];
        for await (const w of temporal.workflow.list({ query: `TenantId = '${tenantId}'` })) found.push(w.workflowId);
        return found.sort();
      },
      (found) => found.length === 2,
    );
    expect(listed).toEqual(ids.map(intentWorkflowId).sort());
  });

  it('after SIGKILL of the worker that ran a resting limit order, the surviving worker cancels it and fills another', async () => {
    const c = cluster!;
    const [a, b] = c.apis;
    const { price, low } = await restingBuyPrice(orm, 'BTC.PAPER');
    const rest = async (via: ClusterProcess, clientOrderId: string) => {
      const res = await call(via, 'POST', '/api/v1/oms/intents', btcLimitBuy(price.toFixed(), '0.002', clientOrderId));
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      await waitFor(
        () => intent(via, res.body.intentId),
        (r) => r.body.orderStatus === 'open',
        30_000,
      );
      return res.body.intentId as string;
    };
    const toCancel = await rest(a, 'cluster-rest-cancel');
    const toFill = await rest(b, 'cluster-rest-fill');

    // The worker that completed the resting order's last workflow task (and holds it in its sticky cache) dies.
    const ranIt = (await taskPids(toCancel)).at(-1);
    const victim = c.workers.find((w) => w.pid === ranIt);
    expect(victim, `worker pids ${c.workers.map((w) => w.pid).join(', ')}, task pid ${ranIt}`).toBeDefined();
    const survivor = c.workers.find((w) => w !== victim)!;
    victim!.child.kill('SIGKILL');
    await victim!.exited;
    expect(victim!.exitInfo()).toBe('exited (SIGKILL)');

    const canceled = await call(b, 'POST', '/api/v1/oms/cancel', { intentId: toCancel });
    expect(canceled.status, JSON.stringify(canceled.body)).toBe(200);
    expect(canceled.body).toMatchObject({ intentId: toCancel, state: 'canceled' });
    expect((await taskPids(toCancel)).at(-1)).toBe(survivor.pid);

    await publish(orm, low); // the mark crosses: the surviving worker's trigger watcher and workflow task fill it
    const filled = await waitFor(
      () => intent(a, toFill),
      (r) => r.body.state === 'filled',
      30_000,
    );
    expect(filled.body).toMatchObject({ orderStatus: 'filled', filledQty: '0.002', avgFillPrice: price.toFixed() });
    expect((await taskPids(toFill)).at(-1)).toBe(survivor.pid);
    expect((await intent(a, toCancel)).body).toMatchObject({ state: 'canceled', filledQty: '0' });
    expect(await temporal.workflow.getHandle(intentWorkflowId(toCancel)).result()).toMatchObject({
      state: 'canceled',
    });
  });
});

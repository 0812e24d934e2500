/**
 * A PostgreSQL restart under a running cluster (the chaos run's fault, alone): the reference cluster
 * (scripts/lib/cluster.ts: the Temporal server on PostgreSQL, 1 api, 1 worker with the default replay mark
 * feed and market streams) on a PostgreSQL server of this file's own (scripts/lib/postgres.ts
 * `startRestartablePostgres`), restarted once. With the SAME api and worker processes, everything their
 * long-lived connections do comes back by itself: the worker's feed publishes marks again (its publishing
 * locks re-contended), the api's hubs fan out again to sockets opened before the restart (/ws/quotes; /ws/market,
 * its pair's stream restarted by the worker's producer; /ws/risk, missing no event and doubling none), a market
 * order fills and the trigger watcher wakes a resting limit order that a published mark crosses.
 *
 * For that last part the test publishes SOL.PAPER's marks itself: it takes the symbol's publishing lock
 * from the worker (it cuts the worker's lock connection and queues for the lock at once; the worker
 * reconnects with backoff, contends again, and keeps publishing BTC.PAPER and ETH.PAPER only).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import { startCluster, type Cluster, type ClusterProcess } from '../../scripts/lib/cluster.js';
import { startRestartablePostgres, type RestartablePostgres } from '../../scripts/lib/postgres.js';
import { openOrm } from '../../db/orm.js';
import { ensureTenant, issueCredential } from '../../db/seed.js';
import { FEED_LOCKS_APPLICATION } from '../../modules/market/feeds/feed-leader.js';
import { RISK_TOPICS } from '../../api/ws/risk.js';
import { TEST_AGENT_KEYS, TEST_JWT_SECRET } from '../support/stack.js';
import { publish, restingBuyPrice } from '../support/marks.js';
import { openRisk, type RiskClient } from '../support/ws.js';
import { waitFor } from '../support/wait.js';
import { processCaller } from '../support/http.js';

describe('a PostgreSQL restart under a running cluster (same api and worker processes)', () => {
  let runDir: string;
  let postgres: RestartablePostgres | undefined;
  let platformUrl: string;
  let cluster: Cluster | undefined;
  let api: ClusterProcess;
  let worker: ClusterProcess;
  let orm: MikroORM | undefined;
  /** The test's own connection holding SOL.PAPER's publishing lock (from the SOL part on). */
  let solLock: pg.Client | undefined;
  const slug = `pg-restart-${process.pid}`;
  let token: string;
  let accountId: string;
  /** Sockets opened before the restart. */
  let risk: RiskClient;
  let quotes: RiskClient;
  let market: RiskClient;
  let keepAlive: NodeJS.Timeout | undefined;
  /** Wall time (ms) at which PostgreSQL accepted connections again. */
  let restartedAt: number;

  const send = processCaller(
    () => slug,
    () => token,
  );
  /** HTTP call to the api process as the tenant's trader; a failed fetch reads as status 0. */
  const call = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
    send(api.url, method, url, body, headers);
  let orders = 0;
  /**
   * Places a paper order as a client should (docs/api.md §8): with an `Idempotency-Key`, sent again on a 5xx.
   * Right after the restart the Temporal server (on the same PostgreSQL) may answer an error for a moment
   * (`Namespace default is not found` while its namespace registry reloads); that is its recovery, not ours.
   */
  const order = async (body: Record<string, unknown>) => {
    const headers = { 'idempotency-key': `pg-restart-${process.pid}-${++orders}` };
    const res = await waitFor(
      () => call('POST', '/api/v1/oms/intents', { venue: 'paper', ...body }, headers),
      (r) => r.status !== 0 && r.status < 500,
      30_000,
      500,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.intentId as string;
  };
  const intentReaches = (intentId: string, done: (body: any) => boolean, timeoutMs = 30_000) =>
    waitFor(
      () => call('GET', `/api/v1/oms/intents/${intentId}`),
      (r) => r.status === 200 && done(r.body),
      timeoutMs,
      100,
    );
  const filledFrame = (intentId: string) => (f: any) =>
    f.type === 'Order-Intent-Update' && f.data?.intentId === intentId && f.data.state === 'filled';
  const wsUrl = (p: string) => `${api.url.replace('http', 'ws')}${p}`;

  beforeAll(async () => {
    runDir = mkdtempSync(path.join(tmpdir(), 'pg-restart-test-'));
    chmodSync(runDir, 0o711); // as root the server runs as the OS user postgres, who must reach its data in here
    postgres = await startRestartablePostgres(path.join(runDir, 'pg'));
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    await admin.query('create database platform');
    await admin.end();
    platformUrl = postgres.url.replace(/\/postgres$/, '/platform');
    cluster = await startCluster({
      databaseUrl: platformUrl, // the Temporal server's databases go on the same (restarted) server
      apis: 1,
      workers: 1,
      ports: 'free',
      env: {
        JWT_SECRET: TEST_JWT_SECRET,
        AGENT_KEY_ENCRYPTION_KEYS: TEST_AGENT_KEYS,
        LOG_LEVEL: 'warn',
        API_SHUTDOWN_GRACE_MS: '1000',
        WORKER_SHUTDOWN_GRACE_MS: '2000',
      },
      runDir,
      log: process.env.TEST_LOG_LEVEL ? (line) => console.log(line) : undefined,
    });
    [api] = cluster.apis;
    [worker] = cluster.workers;
    orm = await openOrm(platformUrl);
    const t = await ensureTenant(orm, { slug, displayName: 'PG restart', origins: [`http://${slug}.test`] });
    const cred = await issueCredential(orm, { tenantId: t.id, audience: 'trader', tier: 'fullTrading' });
    const minted = await call('POST', '/api/auth/api-token', { apiKey: cred.apiKey, apiSecret: cred.apiSecret });
    expect(minted.status, JSON.stringify(minted.body)).toBe(200);
    token = minted.body.token;
  }, 180_000);

  afterAll(async () => {
    clearInterval(keepAlive);
    for (const ws of [risk, quotes, market]) ws?.close();
    await solLock?.end().catch(() => undefined);
    await cluster?.stop();
    await orm?.close().catch(() => undefined);
    await postgres?.stop();
    rmSync(runDir, { recursive: true, force: true });
  }, 90_000);

  it('before the restart: the feed publishes, sockets are open, a market order fills and its frames arrive', async () => {
    const quote = await waitFor(
      () => call('GET', '/api/v1/market/quotes/paper/BTC.PAPER'),
      (r) => r.status === 200 && Boolean(r.body?.ts),
      30_000,
      200,
    );
    expect(Date.now() - Date.parse(quote.body.ts)).toBeLessThan(10_000);

    const hs = (await call('POST', '/api/auth/bootstrap', { token })).body.data.riskEngineWss;
    risk = await openRisk(wsUrl('/ws/risk'), { 'x-tenant-slug': slug });
    risk.send({ type: 'Authenticate', token: hs.token });
    accountId = (await risk.next((f) => f.type === 'Authenticated')).accountIds[0];
    risk.send({ type: 'Subscribe', topics: [...RISK_TOPICS] });
    expect(await risk.next((f) => f.type === 'Result')).toMatchObject({ ok: true });
    quotes = await openRisk(wsUrl('/ws/quotes'), { 'x-tenant-slug': slug });
    quotes.send({ type: 'Subscribe', topics: ['paper:BTC.PAPER'] });
    expect(await quotes.next((f) => f.type === 'Result')).toMatchObject({ ok: true });
    market = await openRisk(wsUrl('/ws/market'), { 'x-tenant-slug': slug });
    market.send({ type: 'Subscribe', topics: ['bbo:paper:BTC.PAPER', 'bbo:paper:SOL.PAPER'] });
    expect(await market.next((f) => f.type === 'Result')).toMatchObject({ ok: true });
    expect(await market.next((f) => f.type === 'Bbo', 20_000)).toHaveProperty('mark');
    // 60 s of inbound silence would close them.
    keepAlive = setInterval(() => [risk, quotes, market].forEach((ws) => ws.send({ type: 'Ping' })), 15_000);

    const intentId = await order({ symbol: 'BTC.PAPER', side: 'buy', type: 'market', qty: '0.01' });
    await intentReaches(intentId, (b) => b.state === 'filled');
    await risk.next(filledFrame(intentId));
  });

  it('after the restart the worker publishes marks again, and the api hubs fan them out to the open sockets', async () => {
    const pids = [api.pid, worker.pid];
    await postgres!.restart();
    restartedAt = Date.now();
    // The test's own pool lost its connections too: a fresh one.
    await orm!.close().catch(() => undefined);
    orm = await openOrm(platformUrl);

    const fresh = (ts: unknown) => typeof ts === 'string' && Date.parse(ts) > restartedAt;
    const quote = await waitFor(
      () => call('GET', '/api/v1/market/quotes/paper/BTC.PAPER'),
      (r) => r.status === 200 && fresh(r.body?.ts),
      30_000,
      200,
    );
    expect(quote.body).toMatchObject({ venue: 'paper', symbol: 'BTC.PAPER' });
    // The quotes hub LISTENs again: the socket opened before the restart gets the new marks.
    await quotes.next((f) => f.type === 'Quote' && fresh(f.ts), 30_000);
    // The same processes did it.
    expect([api.pid, worker.pid]).toEqual(pids);
    expect([api.exitInfo(), worker.exitInfo()]).toEqual([undefined, undefined]);
  });

  it('a market order placed after the restart fills, and the /ws/risk socket opened before it gets the frames', async () => {
    const intentId = await order({ symbol: 'BTC.PAPER', side: 'buy', type: 'market', qty: '0.01' });
    const filled = await intentReaches(intentId, (b) => b.state === 'filled');
    expect(filled.body).toMatchObject({ orderStatus: 'filled', filledQty: '0.01' });
    expect(await risk.next(filledFrame(intentId), 30_000)).toMatchObject({
      topic: 'Order-Intent-Changed',
      accountId,
      data: { intentId, filledQty: '0.01' },
    });
  });

  it("the worker's trigger watcher wakes a resting limit order that a mark published after the restart crosses", async () => {
    // Take SOL.PAPER's publishing lock from the worker: cut its lock connection and queue for the lock at once
    // (granted as the backend exits; the worker reconnects after its backoff and finds it held).
    solLock = new pg.Client({ connectionString: platformUrl });
    solLock.on('error', () => undefined);
    await solLock.connect();
    const { rows } = await solLock.query<{ n: number }>(
      `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where application_name = $1 and datname = current_database()`,
      [FEED_LOCKS_APPLICATION],
    );
    expect(rows[0].n).toBe(1);
    await solLock.query(`select pg_advisory_lock(hashtext('markfeed:paper SOL.PAPER'))`);
    await sleep(1_500); // a tick the worker had in flight lands before the test's marks
    const marketFrom = market.frames.length;

    const { price, low } = await restingBuyPrice(orm!, 'SOL.PAPER');
    const intentId = await order({
      symbol: 'SOL.PAPER',
      side: 'buy',
      type: 'limit',
      price: price.toFixed(),
      qty: '1',
      clientOrderId: 'pg-restart-rest',
    });
    await intentReaches(intentId, (b) => b.orderStatus === 'open');
    await publish(orm!, low); // the crossing: only the trigger watcher's signal wakes the order
    // The stream producer restarted the pair's stream (its lock taken again) and the market hub LISTENs again:
    // the /ws/market socket opened before the restart gets the book the crossing mark brought.
    const bbo = await waitFor(
      async () =>
        market.frames
          .slice(marketFrom)
          .find((f) => f.type === 'Bbo' && f.symbol === 'SOL.PAPER' && low.mark.eq(f.mark)),
      Boolean,
      30_000,
      100,
    );
    expect(bbo).toMatchObject({ topic: 'bbo:paper:SOL.PAPER', bid: low.bid.toFixed(), ask: low.ask.toFixed() });
    const filled = await intentReaches(intentId, (b) => b.state === 'filled');
    expect(filled.body).toMatchObject({ orderStatus: 'filled', filledQty: '1', avgFillPrice: price.toFixed() });
    await risk.next(filledFrame(intentId), 30_000);
    // The worker publishes BTC.PAPER again after losing its lock connection a second time.
    const cut = Date.now();
    await waitFor(
      () => call('GET', '/api/v1/market/quotes/paper/BTC.PAPER'),
      (r) => r.status === 200 && Date.parse(r.body?.ts) > cut,
      30_000,
      200,
    );
  });

  it('the /ws/risk socket opened before the restart got every event of the account once, in seq order', async () => {
    const seqs = risk.frames.filter((f) => f.seq !== undefined && f.accountId === accountId).map((f) => f.seq);
    expect(seqs.length).toBeGreaterThan(6);
    expect(seqs).toEqual(seqs.map((_, i) => seqs[0] + i));
  });
});

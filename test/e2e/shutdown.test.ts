/**
 * Graceful shutdown (README "Graceful shutdown"), each process a real child sent a real signal:
 * - the api (`api/server.ts`): SIGTERM closes an open /ws/quotes socket with 1001, refuses new
 *   connections, lets a compose that is waiting for its workflow finish with 201, and exits 0;
 * - the worker (`worker/main.ts`): SIGTERM while a routed order waits for a slow venue's answer lets
 *   that dispatch complete (its first attempt, in the compose's workflow task since the patch
 *   `routed-dispatch-in-task`: a local activity this worker records, no activity retry) and the task
 *   end, so compose answers 201, then exits 0; the order fills exactly once;
 * - the dev chain (`npm run dev`'s anvil, test/support/dev-chain-process.ts): SIGINT to that node
 *   process only, a crash of it, or SIGKILL, leaves no anvil answering.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type AddressInfo } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import WebSocket from 'ws';
import type { MikroORM } from '@mikro-orm/postgresql';
import { defaultPayloadConverter } from '@temporalio/common';
import { openOrm, scoped } from '../../db/orm.js';
import { Fill } from '../../db/entities.js';
import { publishMark } from '../../modules/market/feeds/marks.js';
import { VENUE_SYMBOLS } from '../../domain/market/symbols.js';
import { intentWorkflowId } from '../../modules/oms/workflows/intent.definitions.js';
import { anvilAnswers, freeLocalPort } from '../../scripts/lib/anvil.js';
import { startStack, stackEnv, type Stack } from '../support/stack.js';
import { exited } from '../support/worker-process.js';
import { authorizeAgent, startSimulators, type Simulators } from '../support/venues.js';
import { recordedTick } from '../support/marks.js';
import { waitFor } from '../support/wait.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Starts `script` from the sources as a child (`node --import tsx`), its stdout piped, stderr passed through. */
function spawnTs(script: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

/** The first stdout line of `c` that `pred` accepts (rejects when `c` exits first). */
function lineOf(c: ChildProcess, pred: (line: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: c.stdout! });
    rl.on('line', (l) => pred(l) && (rl.close(), resolve(l)));
    c.once('exit', (code) => reject(new Error(`process exited (${code}) before printing the expected line`)));
  });
}

/** Resolves with the exit code (or signal name) of `c`. */
const exitOf = (c: ChildProcess) => exited(c).then(() => c.exitCode ?? c.signalCode);

/** `ECONNREFUSED` when nothing listens on 127.0.0.1:`port`, `connected` when something does. */
function tcpProbe(port: number): Promise<string> {
  return new Promise((resolve) => {
    const sock = connect(port, '127.0.0.1');
    sock.once('connect', () => (sock.destroy(), resolve('connected')));
    sock.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}

describe('api process: SIGTERM', () => {
  let s: Stack;
  let api: ChildProcess | undefined;
  beforeAll(async () => {
    s = await startStack({ worker: false }); // the worker starts only after the api was signalled
  });
  afterAll(async () => {
    api?.kill('SIGKILL');
    await s?.stop();
  });

  it('closes WebSockets with 1001, refuses new connections, finishes the in-flight compose (201) and exits 0', async () => {
    const t = await s.trader();
    const port = await freeLocalPort();
    api = spawnTs('api/server.ts', [], { ...stackEnv(s.config), PORT: String(port), API_SHUTDOWN_GRACE_MS: '20000' });
    const base = `http://127.0.0.1:${port}`;
    await waitFor(
      () =>
        fetch(`${base}/healthz`).then(
          (r) => r.status,
          () => 0,
        ),
      (st) => st === 200,
      30_000,
      100,
    );

    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws/quotes`);
    await new Promise((r, j) => (ws.once('open', r), ws.once('error', j)));
    const closed = new Promise<{ code: number; reason: string }>((r) =>
      ws.once('close', (code, reason) => r({ code, reason: String(reason) })),
    );

    // Compose answers once its workflow has recorded the intent; no worker polls the task queue yet, so it waits.
    const composing = fetch(`${base}/api/v1/oms/intents`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${t.token}`,
        'x-tenant-slug': s.tenant.slug,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        venue: 'paper',
        symbol: 'BTC.PAPER',
        side: 'buy',
        type: 'limit',
        price: '1000',
        qty: '0.001',
      }),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as { intentId: string; state: string } }));
    const workflows = async () => {
      let n = 0;
      for await (const _ of s.temporal.workflow.list({ query: `TaskQueue = "${s.config.temporal.taskQueue}"` })) n++;
      return n;
    };
    await waitFor(workflows, (n) => n === 1, 15_000, 100); // the request has reached Temporal and waits there

    api.kill('SIGTERM');
    expect(await closed).toMatchObject({ code: 1001 });
    expect(await tcpProbe(port)).toBe('ECONNREFUSED');
    expect(api.exitCode).toBeNull(); // still draining: the compose is in flight

    await s.startWorker();
    const res = await composing;
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.state).toBe('signed_pending_dispatch');
    expect(await exitOf(api)).toBe(0);
  });
});

/** A venue in front of `target` that answers order placements (`/exchange` action `order`) after `delayMs`; every other call passes at once. */
async function slowVenue(target: string, delayMs: number) {
  const events: string[] = [];
  let orderArrived!: () => void;
  const arrived = new Promise<void>((r) => (orderArrived = r));
  const relay = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const isOrder = req.url === '/exchange' && body.includes('"type":"order"');
    if (isOrder) {
      events.push('order received');
      orderArrived();
      await new Promise((r) => setTimeout(r, delayMs));
    }
    const answer = await fetch(`${target}${req.url}`, {
      method: req.method,
      headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
      body: req.method === 'POST' ? body : undefined,
    });
    const text = await answer.text();
    res
      .writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' })
      .end(text);
    if (isOrder) events.push('order answered');
  };
  // A failure stays an unhandled rejection, which vitest reports as an error of the run.
  const server: Server = createServer((req, res) => void relay(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    events,
    arrived,
    close: () => (server.closeAllConnections(), new Promise<void>((r) => server.close(() => r()))),
  };
}

describe('worker process: SIGTERM', () => {
  let s: Stack;
  let sims: Simulators;
  let simOrm: MikroORM;
  let venue: Awaited<ReturnType<typeof slowVenue>>;
  let worker: ChildProcess | undefined;
  beforeAll(async () => {
    simOrm = await openOrm(inject('databaseUrl'));
    sims = await startSimulators(simOrm);
    venue = await slowVenue(sims.env.HYPERLIQUID_API_URL, 1_500);
    s = await startStack({ env: { ...sims.env, HYPERLIQUID_API_URL: venue.url } }); // an in-process worker authorises the agent
  });
  afterAll(async () => {
    worker?.kill('SIGKILL');
    await s?.stop();
    await venue?.close();
    await sims?.stop();
    await simOrm?.close();
  });

  it('lets the running dispatch finish on the venue, records it, exits 0; the order fills exactly once', async () => {
    const t = await s.trader('fullTrading', { executionMode: 'routed' });
    await authorizeAgent(s, sims, t.token, t.accountId!, 'hyperliquid');
    await s.stopWorker();
    const spec = VENUE_SYMBOLS.hyperliquid.find((x) => x.base === 'ETH')!;
    await publishMark(s.orm, { ...(await recordedTick(spec.symbol, 0.5, 'hyperliquid')), ts: Date.now() });

    worker = spawnTs('worker/main.ts', [], {
      ...stackEnv(s.config),
      LOG_LEVEL: 'info',
      WORKER_SHUTDOWN_GRACE_MS: '20000',
    });
    const events = venue.events;
    worker.once('exit', () => events.push('worker exited'));
    await lineOf(worker, (l) => l.includes('"worker started"'));

    // The first dispatch attempt runs in the compose's workflow task, so compose answers once the venue has.
    const composed = s.call('POST', '/api/v1/oms/intents', {
      token: t.token,
      body: { venue: 'hyperliquid', symbol: spec.symbol, side: 'buy', type: 'market', qty: '0.01' },
    });
    await venue.arrived; // the dispatch has sent the order and waits for the venue's answer
    worker.kill('SIGTERM');
    expect(await exitOf(worker)).toBe(0);
    expect(events).toEqual(['order received', 'order answered', 'worker exited']);
    const res = await composed; // answered by the signalled worker's task: no other worker runs yet
    expect(res.status, JSON.stringify(res.body)).toBe(201);

    // The signalled worker itself completed the dispatch, in its workflow task: a local activity's marker (the record and
    // dispatch of patch routed-record-and-dispatch), no activity.
    const history = await s.temporal.workflow.getHandle(intentWorkflowId(res.body.intentId)).fetchHistory();
    const decoded = (e: NonNullable<typeof history.events>[number]) =>
      defaultPayloadConverter.fromPayload<{ activity_type?: string }>(
        e.markerRecordedEventAttributes!.details!.data.payloads![0],
      );
    const dispatches = history.events!.filter(
      (e) =>
        e.markerRecordedEventAttributes?.markerName === 'core_local_activity' &&
        decoded(e).activity_type === 'recordAndDispatchRouted',
    );
    expect(dispatches).toHaveLength(1);
    expect(dispatches[0].markerRecordedEventAttributes!.failure).toBeFalsy();
    const taskCompleted = history.events!.filter((e) => e.workflowTaskCompletedEventAttributes);
    expect(taskCompleted[0].workflowTaskCompletedEventAttributes!.identity).toBe(`${worker.pid}@${hostname()}`);
    expect(
      history.events!.some((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'dispatchRouted'),
    ).toBe(false);

    await s.startWorker(); // the rest of the workflow runs on a new worker
    const filled = await waitFor(
      () => s.call('GET', `/api/v1/oms/intents/${res.body.intentId}`, { token: t.token }),
      (r) => r.body.state === 'filled',
      20_000,
    );
    expect(filled.body).toMatchObject({ state: 'filled', filledQty: '0.01' });
    expect(await scoped(s.orm, s.tenant.id).count(Fill, { intentId: res.body.intentId })).toBe(1);
  });
});

describe("npm run dev's chain: the node process alone is signalled, crashes or is killed", () => {
  // SIGINT runs the Supervisor's ordered stop; SIGUSR2 makes that process throw (an uncaught error); SIGKILL leaves it no say (the kernel's parent-death signal).
  for (const [mode, signal, code] of [
    ['signalled', 'SIGINT', 0],
    ['crash', 'SIGUSR2', 1],
    ['killed', 'SIGKILL', 'SIGKILL'],
  ] as const) {
    it(`${mode}: anvil stops answering and the process exits ${code}`, async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'dev-chain-'));
      const env: NodeJS.ProcessEnv = { ...process.env, ANVIL_PORT: String(await freeLocalPort()) };
      delete env.CHAIN_RPC_URL;
      delete env.PROP_DEPLOYER_KEY;
      const dev = spawnTs('test/support/dev-chain-process.ts', [dir, mode], env);
      try {
        const { rpcUrl } = JSON.parse(await lineOf(dev, (l) => l.startsWith('{'))) as { rpcUrl: string };
        expect(await anvilAnswers(rpcUrl)).toBe(true);
        dev.kill(signal); // that process only, as a supervisor sends it; anvil is not signalled by us
        expect(await exitOf(dev)).toBe(code);
        await waitFor(
          () => anvilAnswers(rpcUrl),
          (ok) => !ok,
          10_000,
          100,
        );
      } finally {
        dev.kill('SIGKILL');
        await rm(dir, { recursive: true, force: true });
      }
    });
  }
});

/**
 * OpenTelemetry traces (README "Operating it → Traces"): one trace follows an order from the HTTP
 * request through the Temporal client, the intent workflow and its activities to the venue's HTTP
 * API, checked span by span (parent links by span id) with an in-memory exporter; the tracing
 * interceptors leave workflow histories replayable with and without them; and the real api and
 * worker processes, given a collector URL, export the order's trace over OTLP/HTTP.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { Worker } from '@temporalio/worker';
import type { MikroORM } from '@mikro-orm/postgresql';
import { openOrm } from '../../db/orm.js';
import { loadConfig } from '../../config.js';
import { VENUE_SYMBOLS } from '../../domain/market/symbols.js';
import { publishMark } from '../../modules/market/feeds/marks.js';
import { startTracing, tracingFromConfig, type Tracing } from '../../telemetry/tracing.js';
import { workerTracing } from '../../telemetry/temporal.js';
import { intentWorkflowId } from '../../modules/oms/workflows/intent.definitions.js';
import { startStack, stackEnv, TEST_JWT_SECRET, type Stack } from '../support/stack.js';
import { exited, spawnWorker } from '../support/worker-process.js';
import { publish, recordedTick } from '../support/marks.js';
import { waitFor } from '../support/wait.js';
import { authorizeAgent, startSimulators, type Simulators } from '../support/venues.js';
import { HISTORIES_DIR } from '../support/histories.js';

describe('one trace per order', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing;
  let s: Stack;
  let sims: Simulators;
  let simOrm: MikroORM;

  beforeAll(async () => {
    tracing = startTracing({ serviceName: 'platform-test', exporter });
    simOrm = await openOrm(inject('databaseUrl'));
    sims = await startSimulators(simOrm);
    s = await startStack({ env: sims.env, tracing });
  });
  afterAll(async () => {
    await s?.stop();
    await sims?.stop();
    await simOrm?.close();
    await tracing?.shutdown();
  });

  /** Composes a market order, waits until its workflow has ended filled; returns the intent and workflow ids. */
  async function fillMarketOrder(token: string, order: { venue: string; symbol: string; qty: string }) {
    const res = await s.call('POST', '/api/v1/oms/intents', { token, body: { ...order, side: 'buy', type: 'market' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const workflowId = intentWorkflowId(res.body.intentId);
    expect(await s.temporal.workflow.getHandle(workflowId).result()).toMatchObject({ state: 'filled' });
    return { intentId: res.body.intentId as string, workflowId };
  }

  /**
   * The order's trace: every span of the trace its compose started (found by the workflow id on the
   * Temporal client span), once the workflow's own spans (sent when the workflow ends) are in.
   */
  async function traceOf(workflowId: string) {
    const client = await waitFor(
      async () =>
        exporter
          .getFinishedSpans()
          .find((x) => x.name === 'UpdateWithStartWorkflow:compose' && x.attributes.temporalWorkflowId === workflowId),
      (x) => x !== undefined,
    );
    const traceId = client!.spanContext().traceId;
    const spans = await waitFor(
      async () => exporter.getFinishedSpans().filter((x) => x.spanContext().traceId === traceId),
      (all) => all.some((x) => x.name === 'RunWorkflow:intentWorkflow'),
    );
    const byId = new Map(spans.map((x) => [x.spanContext().spanId, x]));
    const one = (name: string) => {
      const found = spans.filter((x) => x.name === name);
      expect(
        found.map((x) => x.name),
        `spans named ${name} in ${spans.map((x) => x.name).join(', ')}`,
      ).toEqual([name]);
      return found[0];
    };
    /** Names from the span up to the trace's root, following parentSpanId. */
    const chain = (span: ReadableSpan): string[] => {
      const names = [span.name];
      for (let p = span.parentSpanId; p; p = byId.get(p)?.parentSpanId)
        names.push(byId.get(p)?.name ?? `<missing ${p}>`);
      return names;
    };
    return { traceId, spans, client: client!, one, chain };
  }

  it('follows a paper market order from POST /oms/intents through the workflow to each activity, one span tree', async () => {
    await publish(s.orm, await recordedTick('BTC.PAPER', 0));
    const t = await s.trader();
    const { workflowId } = await fillMarketOrder(t.token, { venue: 'paper', symbol: 'BTC.PAPER', qty: '0.01' });
    const { traceId, spans, client, one, chain } = await traceOf(workflowId);

    // The HTTP server span is the root, with the route template and the answer.
    const server = one('POST /api/v1/oms/intents');
    expect(server.parentSpanId).toBeUndefined();
    expect(server.kind).toBe(SpanKind.SERVER);
    expect(server.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/api/v1/oms/intents',
      'http.response.status_code': 201,
    });
    // The Temporal client span is its child; the workflow run is the client span's child.
    expect(client.parentSpanId).toBe(server.spanContext().spanId);
    const run = one('RunWorkflow:intentWorkflow');
    expect(run.parentSpanId).toBe(client.spanContext().spanId);
    expect(run.attributes.workflowId).toBe(workflowId);
    // The compose Update's handler is the client span's child too.
    const update = one('HandleUpdate:compose');
    expect(update.parentSpanId).toBe(client.spanContext().spanId);
    // The order's one activity (record, risk check and dispatch: a local activity, memoised) runs in a span whose
    // parent is the workflow's StartActivity span of it, scheduled from whichever of the run and the compose handler
    // asked first.
    const scheduledFrom = { recordAndDispatchPaper: [run, update] };
    for (const [activity, from] of Object.entries(scheduledFrom)) {
      const ran = one(`RunActivity:${activity}`);
      expect(ran.attributes.temporalWorkflowId).toBe(workflowId);
      const started = one(`StartActivity:${activity}`);
      expect(ran.parentSpanId).toBe(started.spanContext().spanId);
      expect(from.map((x) => x.spanContext().spanId)).toContain(started.parentSpanId);
    }
    // Nothing of this order's workflow went to another trace, and every span of the trace hangs from the root.
    const ofWorkflow = exporter
      .getFinishedSpans()
      .filter((x) => x.attributes.temporalWorkflowId === workflowId || x.attributes.workflowId === workflowId);
    expect(ofWorkflow.length).toBeGreaterThanOrEqual(4);
    expect(new Set(ofWorkflow.map((x) => x.spanContext().traceId))).toEqual(new Set([traceId]));
    for (const x of spans) expect(chain(x).at(-1), chain(x).join(' ← ')).toBe('POST /api/v1/oms/intents');
  });

  it('reaches the venue: the routed dispatch activity’s HTTP call to Hyperliquid is a client span in the same trace', async () => {
    const spec = VENUE_SYMBOLS.hyperliquid.find((x) => x.base === 'ETH')!;
    await publishMark(s.orm, { ...(await recordedTick(spec.symbol, 0.5, 'hyperliquid')), ts: Date.now() });
    const t = await s.trader('fullTrading', { executionMode: 'routed' });
    await authorizeAgent(s, sims, t.token, t.accountId!, 'hyperliquid');
    const { workflowId } = await fillMarketOrder(t.token, { venue: 'hyperliquid', symbol: spec.symbol, qty: '0.01' });
    const { spans, one, chain } = await traceOf(workflowId);

    // A new routed intent is recorded and dispatched by one activity (patch routed-record-and-dispatch).
    const dispatch = one('RunActivity:recordAndDispatchRouted');
    const venueCalls = spans.filter(
      (x) => x.kind === SpanKind.CLIENT && x.parentSpanId === dispatch.spanContext().spanId,
    );
    expect(venueCalls.length).toBeGreaterThanOrEqual(1);
    for (const call of venueCalls) {
      expect(String(call.attributes['url.full'])).toMatch(
        new RegExp(`^${s.config.venues.urls.hyperliquid.replace(/\/$/, '')}/(exchange|info)$`),
      );
      expect(call.attributes['http.response.status_code']).toBe(200);
    }
    expect(venueCalls.map((x) => x.attributes['url.path'])).toContain('/exchange');
    // Its StartActivity span hangs from whichever of the run and the compose handler asked for the record first.
    const scheduledFrom = [one('RunWorkflow:intentWorkflow'), one('HandleUpdate:compose')].map(
      (x) => x.spanContext().spanId,
    );
    expect(scheduledFrom).toContain(one('StartActivity:recordAndDispatchRouted').parentSpanId);
    for (const call of venueCalls) {
      expect(chain(call).slice(0, 3)).toEqual([
        'POST',
        'RunActivity:recordAndDispatchRouted',
        'StartActivity:recordAndDispatchRouted',
      ]);
      expect(chain(call).at(-1)).toBe('POST /api/v1/oms/intents');
    }
  });

  it('continues a caller’s W3C trace: a request with traceparent gets a server span inside that trace', async () => {
    const t = await s.trader();
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parent = '00f067aa0ba902b7';
    const res = await s.call('GET', `/api/v1/accounts/${t.accountId}/positions`, {
      token: t.token,
      headers: { traceparent: `00-${traceId}-${parent}-01` },
    });
    expect(res.status).toBe(200);
    const server = await waitFor(
      async () => exporter.getFinishedSpans().find((x) => x.spanContext().traceId === traceId),
      (x) => x !== undefined,
    );
    expect(server!).toMatchObject({
      name: 'GET /api/v1/accounts/:id/positions',
      parentSpanId: parent,
      kind: SpanKind.SERVER,
    });
  });

  it('leaves histories replayable both ways: a traced run replays without the interceptors, and every saved history replays with them', async () => {
    const t = await s.trader();
    await publish(s.orm, await recordedTick('ETH.PAPER', 0));
    const { workflowId } = await fillMarketOrder(t.token, { venue: 'paper', symbol: 'ETH.PAPER', qty: '0.1' });
    const history = await s.temporal.workflow.getHandle(workflowId).fetchHistory();
    const plain = { workflowBundle: { codePath: inject('workflowBundlePath') } };
    const traced = {
      workflowBundle: { codePath: inject('tracedWorkflowBundlePath') },
      sinks: workerTracing(tracing).sinks,
    };
    await expect(Worker.runReplayHistory(plain, history, workflowId)).resolves.toBeUndefined();
    await expect(Worker.runReplayHistory(traced, history, workflowId)).resolves.toBeUndefined();
    const saved = readdirSync(HISTORIES_DIR).filter((f) => f.endsWith('.json'));
    expect(saved.length).toBeGreaterThanOrEqual(2);
    const histories = saved.map((f) => ({
      workflowId: f.replace('.json', ''),
      history: JSON.parse(readFileSync(path.join(HISTORIES_DIR, f), 'utf8')) as unknown,
    }));
    const failures: string[] = [];
    let replayed = 0;
    for await (const r of Worker.runReplayHistories(traced, histories)) {
      replayed++;
      if (r.error) failures.push(`${r.workflowId}: ${r.error.message}`);
    }
    expect(failures).toEqual([]);
    expect(replayed).toBe(saved.length);
  });
});

describe('tracing configuration', () => {
  it('is off without OTEL_EXPORTER_OTLP_ENDPOINT: nothing is started', () => {
    const base = { DATABASE_URL: 'postgres://u@127.0.0.1:5432/x', JWT_SECRET: TEST_JWT_SECRET };
    expect(tracingFromConfig(loadConfig(base), 'platform-api')).toBeUndefined();
    expect(() => loadConfig({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT/,
    );
  });

  it('with a collector, the api and worker processes export one trace per order to <endpoint>/v1/traces and flush it when stopped', async () => {
    const s = await startStack({ worker: false });
    const posts: { path: string; body: OtlpTraces }[] = [];
    const collector = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        posts.push({ path: req.url ?? '', body: JSON.parse(body) });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
    const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
    const worker = spawnWorker(s, { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
    const api = spawn(process.execPath, ['--import', 'tsx', 'api/server.ts'], {
      cwd: path.resolve(import.meta.dirname, '../..'),
      env: {
        ...stackEnv(s.config),
        PORT: '0',
        LOG_LEVEL: 'info',
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_SERVICE_NAME: 'api-under-test',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      // The api logs `api listening` with its base URL (PORT=0: any free port).
      const baseUrl = await new Promise<string>((resolve, reject) => {
        let out = '';
        api.stdout.on('data', (c) => {
          out += c;
          const m = /"baseUrl":"([^"]+)"/.exec(out);
          if (m) resolve(m[1]);
        });
        api.once('exit', (code) => reject(new Error(`api exited ${code}: ${out}`)));
      });
      await publish(s.orm, await recordedTick('BTC.PAPER', 0));
      const t = await s.trader();
      const res = await fetch(`${baseUrl}/api/v1/oms/intents`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${t.token}`,
          'x-tenant-slug': s.tenant.slug,
        },
        body: JSON.stringify({ venue: 'paper', symbol: 'BTC.PAPER', side: 'buy', type: 'market', qty: '0.01' }),
      });
      expect(res.status).toBe(201);
      const workflowId = intentWorkflowId(((await res.json()) as { intentId: string }).intentId);
      expect(await s.temporal.workflow.getHandle(workflowId).result()).toMatchObject({ state: 'filled' });
    } finally {
      worker.kill('SIGTERM');
      api.kill('SIGTERM');
      await Promise.all([exited(worker), exited(api)]);
      await new Promise<void>((r) => collector.close(() => r()));
      await s.stop();
    }
    expect(new Set(posts.map((p) => p.path))).toEqual(new Set(['/v1/traces']));
    const spans = posts.flatMap(({ body }) =>
      body.resourceSpans.flatMap((rs) => {
        const service = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue;
        return rs.scopeSpans.flatMap((ss) =>
          ss.spans.map((x) => ({
            service,
            name: x.name,
            traceId: x.traceId,
            spanId: x.spanId,
            parentSpanId: x.parentSpanId || undefined,
          })),
        );
      }),
    );
    const server = spans.find((x) => x.name === 'POST /api/v1/oms/intents');
    expect(server).toMatchObject({ service: 'api-under-test', parentSpanId: undefined });
    const order = spans.filter((x) => x.traceId === server!.traceId);
    const find = (name: string) => order.find((x) => x.name === name);
    expect(find('UpdateWithStartWorkflow:compose')).toMatchObject({
      service: 'api-under-test',
      parentSpanId: server!.spanId,
    });
    expect(find('RunWorkflow:intentWorkflow')).toMatchObject({
      service: 'platform-worker',
      parentSpanId: find('UpdateWithStartWorkflow:compose')!.spanId,
    });
    expect(find('RunActivity:recordAndDispatchPaper')).toMatchObject({
      service: 'platform-worker',
      parentSpanId: find('StartActivity:recordAndDispatchPaper')!.spanId,
    });
    expect([find('RunWorkflow:intentWorkflow')!.spanId, find('HandleUpdate:compose')?.spanId]).toContain(
      find('StartActivity:recordAndDispatchPaper')!.parentSpanId,
    );
  });
});

/** The part of an OTLP/HTTP JSON trace export this test reads. */
interface OtlpTraces {
  resourceSpans: {
    resource: { attributes: { key: string; value: { stringValue?: string } }[] };
    scopeSpans: { spans: { name: string; traceId: string; spanId: string; parentSpanId?: string }[] }[];
  }[];
}

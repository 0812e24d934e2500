/**
 * The worker's ops server (README "Operating it → Health and readiness", "→ Metrics"): a small
 * node:http server on `WORKER_HTTP_HOST:WORKER_HTTP_PORT` (default 127.0.0.1:9464; port 0 = any free
 * port), started by `createWorker` and stopped when the worker has stopped. No tenant, no authentication:
 *
 * - `GET /healthz`: the process is alive: `200 { ok: true }`.
 * - `GET /readyz`: PostgreSQL and Temporal answer and the Temporal worker's pollers run (state `RUNNING`):
 *   `200 { ok: true, checks: { postgres, temporal, worker } }`, else `503 { error: 'not_ready', detail, checks }`.
 * - `GET /metrics`: the worker's prom-client metrics (worker/metrics.ts) followed by the Temporal SDK's
 *   own (`temporal_*`), fetched from the Runtime's Prometheus endpoint when the process installed one
 *   (worker/main.ts does, on a free loopback port; test stacks do not, and their /metrics has no SDK part).
 *
 * Anything else is `404 not_found` (`405 method_not_allowed` for a method other than GET or HEAD).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { Runtime, type Worker } from '@temporalio/worker';
import { readinessAnswer, type ReadinessCheck, type ReadinessReport } from '../infra/readiness.js';

/** A running ops server: its base URL (`http://127.0.0.1:9464`) and its stop. */
export interface OpsServer {
  url: string;
  stop(): Promise<void>;
}

/** How long `/metrics` waits for the Temporal SDK's exporter before answering without it (ms). */
const SDK_METRICS_TIMEOUT_MS = 1_000;

/** The readiness check of the Temporal worker: its pollers run (`worker.getState()` is `RUNNING`). */
export function pollersRunning(worker: Pick<Worker, 'getState'>): ReadinessCheck {
  return async () => {
    const state = worker.getState();
    if (state !== 'RUNNING') throw new Error(`Temporal worker is ${state}, not RUNNING`);
  };
}

/**
 * `host:port` of the Temporal SDK's Prometheus exporter, when the process's Runtime was installed with
 * `telemetryOptions.metrics.prometheus` (worker/main.ts), else null. Call it after the worker's
 * NativeConnection exists (the Runtime is then the installed one, never a fresh default).
 */
export function sdkPrometheusAddress(): string | null {
  const exporter = Runtime.instance().options.runtimeOptions.metricsExporter;
  return exporter?.type === 'prometheus' ? exporter.socketAddr : null;
}

/**
 * A free TCP address on `host` (`127.0.0.1:<port>`) for the Temporal SDK's Prometheus exporter, which
 * cannot report a port it picked itself; the port is free when this returns.
 */
export async function freeLocalAddress(host = '127.0.0.1'): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(0, host, resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return `${host}:${port}`;
}

/**
 * The `/metrics` text: `registry`'s metrics, then the SDK exporter's at `sdkAddress` (if any). An SDK
 * exporter that does not answer within 1 s leaves a `# temporal sdk metrics unavailable: <reason>` comment.
 */
export async function workerMetricsText(registry: Registry, sdkAddress: string | null): Promise<string> {
  const own = await registry.metrics();
  if (!sdkAddress) return own;
  const sdk = await fetch(`http://${sdkAddress}/metrics`, { signal: AbortSignal.timeout(SDK_METRICS_TIMEOUT_MS) })
    .then(async (r) => (r.ok ? r.text() : `# temporal sdk metrics unavailable: HTTP ${r.status}\n`))
    .catch(
      (err: unknown) => `# temporal sdk metrics unavailable: ${err instanceof Error ? err.message : String(err)}\n`,
    );
  return `${own.endsWith('\n') ? own : `${own}\n`}${sdk}`;
}

type Answer = { status: number; type: string; body: string };
const json = (status: number, body: unknown): Answer => ({
  status,
  type: 'application/json; charset=utf-8',
  body: JSON.stringify(body),
});

/**
 * Starts the ops server on `host:port` (port 0 = any free port).
 * @throws Error (e.g. `EADDRINUSE`) when it cannot listen.
 */
export async function startOpsServer(opts: {
  host: string;
  port: number;
  logger: Logger;
  readiness: () => Promise<ReadinessReport>;
  metrics: { text(): Promise<string>; contentType: string };
}): Promise<OpsServer> {
  const routes: Record<string, () => Promise<Answer>> = {
    '/healthz': async () => json(200, { ok: true }),
    '/readyz': async () => {
      const { status, body } = readinessAnswer(await opts.readiness());
      return json(status, body);
    },
    '/metrics': async () => ({ status: 200, type: opts.metrics.contentType, body: await opts.metrics.text() }),
  };
  const answer = async (req: IncomingMessage): Promise<Answer> => {
    const path = new URL(req.url ?? '/', 'http://worker').pathname;
    const route = routes[path];
    if (!route)
      return json(404, {
        error: 'not_found',
        detail: `no route ${req.method} ${path}; routes: ${Object.keys(routes).join(', ')}`,
      });
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return json(405, { error: 'method_not_allowed', detail: `${path} answers GET` });
    return route();
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    answer(req)
      .catch((err: unknown) => {
        opts.logger.error({ err, path: req.url }, 'ops server request failed');
        return json(500, { error: 'internal_error' });
      })
      .then((a) => {
        res.writeHead(a.status, { 'content-type': a.type, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : a.body);
      })
      // Writing the answer can still throw (the client went away): log it rather than crash the worker.
      .catch((err: unknown) => opts.logger.error({ err, path: req.url }, 'ops server could not send its answer'));
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(opts.port, opts.host, resolve));
  const { port } = server.address() as AddressInfo;
  const host =
    opts.host === '0.0.0.0' || opts.host === '::'
      ? '127.0.0.1'
      : opts.host.includes(':')
        ? `[${opts.host}]`
        : opts.host;
  return {
    url: `http://${host}:${port}`,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

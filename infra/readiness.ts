/**
 * Readiness probes (README "Operating it → Health and readiness"), shared by the api's `GET /readyz`
 * (api/ops/routes.ts) and the worker's ops server (worker/ops-server.ts): each check resolves when its
 * dependency answers and throws with the reason when it does not; {@link checkReadiness} runs them all at
 * once, each bounded by a timeout, and names every dependency that is down.
 */
import { newPool } from '../db/pool.js';
import type { ConnectionLike } from '@temporalio/client';
import type { Logger } from 'pino';

/** How long one readiness check may take before it counts as down (ms). */
export const READINESS_TIMEOUT_MS = 2_000;

/** One dependency check: resolves when the dependency answers, throws (with the reason) when it does not. */
export type ReadinessCheck = () => Promise<void>;

/** The outcome of one readiness round: every check `up` or `down`; `detail` names each one down and why. */
export interface ReadinessReport {
  ok: boolean;
  checks: Record<string, 'up' | 'down'>;
  /** `postgres down: connect ECONNREFUSED 127.0.0.1:5432; temporal down: ...`, only when not ok. */
  detail?: string;
}

/** The `GET /readyz` answer of a report: `200 { ok: true, checks }` or `503 { error: 'not_ready', detail, checks }`. */
export function readinessAnswer(r: ReadinessReport): { status: 200 | 503; body: Record<string, unknown> } {
  return r.ok
    ? { status: 200, body: { ok: true, checks: r.checks } }
    : { status: 503, body: { error: 'not_ready', detail: r.detail, checks: r.checks } };
}

/** Rejects with `timeout after <ms> ms` when `work` has not settled by then. */
function bounded(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`timeout after ${ms} ms`)), ms)),
  );
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Runs every check concurrently, each within `timeoutMs`; never throws. */
export async function checkReadiness(
  checks: Record<string, ReadinessCheck>,
  timeoutMs = READINESS_TIMEOUT_MS,
): Promise<ReadinessReport> {
  const names = Object.keys(checks);
  const results = await Promise.allSettled(names.map((n) => bounded(Promise.resolve().then(checks[n]), timeoutMs)));
  const down = names.flatMap((n, i) => {
    const r = results[i];
    return r.status === 'rejected'
      ? [`${n} down: ${r.reason instanceof Error ? r.reason.message : String(r.reason)}`]
      : [];
  });
  return {
    ok: down.length === 0,
    checks: Object.fromEntries(names.map((n, i) => [n, results[i].status === 'fulfilled' ? 'up' : 'down'])),
    ...(down.length ? { detail: down.join('; ') } : {}),
  };
}

/**
 * PostgreSQL answers `select 1` on a pool of its own (one connection, `timeoutMs` to connect and to
 * query), so a probe never waits behind busy application connections and never piles up when the
 * server is gone. `close()` ends the pool.
 */
export function postgresCheck(
  databaseUrl: string,
  logger: Logger,
  timeoutMs = READINESS_TIMEOUT_MS,
): { check: ReadinessCheck; close(): Promise<void> } {
  const pool = newPool(
    {
      connectionString: databaseUrl,
      max: 1,
      connectionTimeoutMillis: timeoutMs,
      query_timeout: timeoutMs,
      idleTimeoutMillis: 30_000,
      allowExitOnIdle: true,
    },
    (err) => logger.warn({ err }, 'readiness pool connection lost'),
  );
  return {
    check: async () => void (await pool.query('select 1')),
    close: () => pool.end(),
  };
}

/**
 * The Temporal frontend answers `GetSystemInfo` (what the SDK itself calls to connect) within `timeoutMs`
 * on `connection` (a client Connection or the worker's NativeConnection).
 *
 * `settled()` resolves once no such call is in flight. Close the connection only after it: the client
 * Connection retries an unavailable frontend from timers of its own, and a retry that fires after
 * `close()` throws `Channel has been shut down` outside any promise (an uncaught exception at shutdown).
 */
export function temporalCheck(
  connection: Pick<ConnectionLike, 'workflowService' | 'withDeadline'>,
  timeoutMs = READINESS_TIMEOUT_MS,
): { check: ReadinessCheck; settled(): Promise<void> } {
  const inFlight = new Set<Promise<unknown>>();
  return {
    check: async () => {
      const call = connection.withDeadline(Date.now() + timeoutMs, () => connection.workflowService.getSystemInfo({}));
      inFlight.add(call);
      try {
        await call;
      } finally {
        inFlight.delete(call);
      }
    },
    settled: async () => void (await Promise.allSettled([...inFlight])),
  };
}

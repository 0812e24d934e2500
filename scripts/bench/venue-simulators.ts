/**
 * The four venue simulators on a thread of their own, for the venue bench (scripts/bench/venues.ts):
 * a real venue answers from its own machines, so its work (recovering every signature, matching,
 * JSON) must not queue on the event loop that runs the platform's api and worker. The thread starts
 * the simulators on the bench's database as `npm run dev` does (scripts/lib/dev-venues.ts: the marks
 * held in memory, kept current by the mark store's NOTIFY); the bench talks to it by messages:
 * the Kalshi key registration of agent authorisation, the time each venue has spent answering, and
 * stop.
 */
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import type { RoutedVenue } from '../../venues/types.js';
import type { Served } from '../../simulators/harness.js';
import { startDevSimulators } from '../lib/dev-venues.js';

/** What {@link startSimulatorThread} answers: the simulators as configuration, what agent authorisation needs, their figures, `stop()`. */
export interface SimulatorThread {
  /** Configuration pointing every routed venue at its simulator (config.ts names). */
  env: Record<string, string>;
  /** The Kalshi simulator's API-key page (simulators/kalshi.ts `registerKey`): the key id it assigns. */
  kalshi: { registerKey(member: string, publicKeyPem: string): Promise<string> };
  /** What each venue's simulator has answered so far (simulators/harness.ts). */
  served(): Promise<Record<RoutedVenue, Served>>;
  /** Stops the simulators (and their marks' connections) and ends the thread. */
  stop(): Promise<void>;
}

/** What the bench asks of the thread: `op` with its arguments. */
type Op = { op: 'registerKey'; member: string; publicKeyPem: string } | { op: 'served' } | { op: 'stop' };
/** A request to the thread, answered with the same `id`. */
type Request = Op & { id: number };
/** The thread's answers: ready (with the simulators' configuration), or a request's result or error. */
type Answer = { ready: Record<string, string> } | { id: number; result?: unknown; error?: string };

const ROLE = 'venue-simulators';

/** Starts the simulators on a new thread reading marks from `databaseUrl`; resolves once they listen. */
export async function startSimulatorThread(databaseUrl: string): Promise<SimulatorThread> {
  const worker = new Worker(new URL(import.meta.url), { workerData: { role: ROLE, databaseUrl } });
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let next = 0;
  const env = await new Promise<Record<string, string>>((resolve, reject) => {
    worker.once('error', reject);
    worker.on('message', (a: Answer) => {
      if ('ready' in a) return resolve(a.ready);
      const p = pending.get(a.id);
      pending.delete(a.id);
      if (a.error !== undefined) p?.reject(new Error(a.error));
      else p?.resolve(a.result);
    });
  });
  const call = <T>(req: Op): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      worker.postMessage({ ...req, id });
    });
  return {
    env,
    kalshi: { registerKey: (member, publicKeyPem) => call<string>({ op: 'registerKey', member, publicKeyPem }) },
    served: () => call<Record<RoutedVenue, Served>>({ op: 'served' }),
    async stop() {
      await call({ op: 'stop' });
      await worker.terminate();
    },
  };
}

// The thread itself.
if (!isMainThread && (workerData as { role?: string } | null)?.role === ROLE) {
  const { databaseUrl } = workerData as { databaseUrl: string };
  const port = parentPort!;
  const sims = await startDevSimulators(databaseUrl);
  const handle = async (req: Request): Promise<unknown> => {
    switch (req.op) {
      case 'registerKey':
        return sims.kalshi.registerKey(req.member, req.publicKeyPem);
      case 'served':
        return {
          hyperliquid: sims.hyperliquid.served(),
          aster: sims.aster.served(),
          polymarket: sims.polymarket.served(),
          kalshi: sims.kalshi.served(),
        };
      case 'stop':
        await sims.stop();
        return null;
    }
  };
  port.on('message', (req: Request) => {
    handle(req).then(
      (result) => port.postMessage({ id: req.id, result }),
      (err: unknown) => port.postMessage({ id: req.id, error: String((err as Error)?.message ?? err) }),
    );
  });
  port.postMessage({ ready: sims.env });
}

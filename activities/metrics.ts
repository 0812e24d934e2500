/**
 * What activities report to their worker's metrics (README "Operating it → Metrics"). The worker
 * implements it on its own prom-client registry (worker/metrics.ts) and passes it in through
 * `createActivities(deps)`; code that runs activities without a worker simply leaves it out.
 */
import type { IntentState } from '../domain/oms/intent.js';

/** Outcomes of webhook delivery attempts: an attempt's result, or the retry budget spent. */
export type WebhookOutcome = 'delivered' | 'failed' | 'skipped' | 'exhausted';

export interface ActivityMetrics {
  /** An intent reached a terminal state (`filled`, `canceled`, `rejected`) in a committed transaction; once per intent. */
  intentTerminal(venue: string, state: IntentState): void;
  /** One attempt of a dispatch activity on `venue` took `seconds` (it returned or threw). */
  dispatchSeconds(venue: string, seconds: number): void;
  /** A webhook delivery attempt ended with `outcome`, or a delivery spent its retry budget (`exhausted`). */
  webhook(outcome: WebhookOutcome): void;
}

/** Runs one dispatch attempt on `venue` and reports its duration, whether it returns or throws. */
export async function timedDispatch<T>(
  metrics: ActivityMetrics | undefined,
  venue: string,
  work: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    metrics?.dispatchSeconds(venue, (performance.now() - started) / 1000);
  }
}

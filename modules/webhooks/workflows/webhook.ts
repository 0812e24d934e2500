/**
 * `webhook-<endpointId>-<eventId>` (docs/api.md §6.4; docs/architecture.md "Temporal model"): delivers one account
 * event to one endpoint at least once. An attempt that fails waits `initialBackoffMs`, doubling
 * each time; when the next wait would pass `maxBackoffMs` (24 h in production) the delivery is
 * `failed` and the endpoint disabled (re-enabling is an operator action, which starts the failed
 * deliveries again). A disabled endpoint stops the retries at once (`skipped`). Timers are durable:
 * a worker restart mid-backoff resumes where it was.
 */
import { proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../../../activities/index.js';
import type { WebhookInput, WebhookOutcome } from './webhook.definitions.js';

// One attempt per activity run: the workflow owns the backoff (the receiver's failure is a result, not an error).
const { attemptWebhook, exhaustWebhook } = proxyActivities<Activities>({
  startToCloseTimeout: '60 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', backoffCoefficient: 2 },
});

export async function webhookWorkflow(input: WebhookInput): Promise<WebhookOutcome> {
  let wait = input.initialBackoffMs;
  for (let attempts = 1; ; attempts++) {
    const result = await attemptWebhook(input);
    if (result.outcome !== 'failed') return { eventId: input.eventId, status: result.outcome, attempts };
    if (wait > input.maxBackoffMs) {
      await exhaustWebhook(input, attempts);
      return { eventId: input.eventId, status: 'failed', attempts };
    }
    await sleep(wait);
    wait *= 2;
  }
}

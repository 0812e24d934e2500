/**
 * Contract of one webhook delivery `webhook-<endpointId>-<eventId>` (modules/webhooks/workflows/webhook.ts, docs/api.md §6.4):
 * its id, input and outcome.
 */

/** Workflow id of one event's delivery to one endpoint: `webhook-<endpointId>-<eventId>`. */
export const webhookWorkflowId = (endpointId: string, eventId: string) => `webhook-${endpointId}-${eventId}`;

/**
 * Input of `webhookWorkflow`. Durations are inputs (configuration in production, milliseconds in
 * tests): the first retry after `initialBackoffMs`, doubling up to `maxBackoffMs`; once the next
 * wait would pass `maxBackoffMs` the endpoint is disabled. `timeoutMs`: a slower answer is a failure.
 */
export interface WebhookInput {
  tenantId: string;
  endpointId: string;
  eventId: string;
  initialBackoffMs: number;
  maxBackoffMs: number;
  timeoutMs: number;
}

/** How a delivery ended. */
export interface WebhookOutcome {
  eventId: string;
  status: 'delivered' | 'failed' | 'skipped';
  attempts: number;
}

/**
 * Activities of `webhook-<endpointId>-<eventId>` (docs/api.md §6.4; modules/webhooks/workflows/webhook.ts): one attempt
 * to deliver an account event, and the endpoint's disabling once the retry budget is spent.
 *
 * The body is `{ eventId, type, occurredAt, accountId, venue, data }` (JSON; `eventId` is the
 * account event's id `<accountId>:<seq>` as `GET /accounts/{id}/events` shows it, stable:
 * receivers deduplicate on it; `type` the event kind, e.g.
 * `fill.executed`; `data` the `/ws/risk` frame body). Headers: `content-type: application/json`,
 * `x-webhook-signature: sha256=<hex HMAC-SHA256 of the raw body>`, `x-webhook-event-id`, and
 * `x-api-key` when the endpoint has one, sent by receiver.ts (connect-time target check, no
 * redirects). A 2xx within `timeoutMs` is delivered; anything else is a failed attempt, recorded as
 * the receiver's status and a short class (`http_<status>`, or receiver.ts `deliveryErrorClass`:
 * `forbidden_target`, `timeout`, `connect_refused`, `dns`, `tls`, …), never an error message.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { AccountEvent, WebhookDelivery, WebhookEndpoint } from '../../../db/entities.js';
import { scoped } from '../../../db/orm.js';
import { open, type KeyRing } from '../../../domain/custody/vault.js';
import { SIGNATURE_HEADER, signWebhook } from '../../../domain/webhooks/signature.js';
import type { WebhookInput } from '../workflows/webhook.definitions.js';
import type { ActivityMetrics } from '../../../activities/metrics.js';
import { deliveryErrorClass, postToReceiver, type Resolve } from './receiver.js';

/** What delivery needs; `metrics` counts attempts by outcome (activities/metrics.ts); `resolve`: DNS of receiver names (tests; default the system's). */
export interface WebhookDeps {
  orm: MikroORM;
  ring: KeyRing | null;
  /** `WEBHOOK_ALLOW_PRIVATE` of this worker: when true, non-public targets are delivered to (dev and tests; refused in production). */
  webhookAllowPrivate?: boolean;
  resolve?: Resolve;
  metrics?: ActivityMetrics;
}

/**
 * What one attempt did. `skipped`: the endpoint is disabled (the delivery is kept `failed`) or gone;
 * nothing was sent. `status`: the receiver's HTTP status; `error`: the failure's short class (module doc).
 */
export type AttemptResult = { outcome: 'delivered' | 'failed' | 'skipped'; status?: number; error?: string };

/** An account event's id, the same as `GET /accounts/{id}/events` shows: `<accountId>:<seq>`. */
export const webhookEventId = (accountId: string, seq: number) => `${accountId}:${seq}`;
const eventKeyOf = (eventId: string) => {
  const i = eventId.lastIndexOf(':');
  return { accountId: eventId.slice(0, i), seq: Number(eventId.slice(i + 1)) };
};

/** The JSON body of an event (module doc). */
export function webhookBody(e: {
  seq: number;
  kind: string;
  createdAt: Date;
  accountId: string;
  venue?: string | null;
  data: Record<string, unknown>;
}): string {
  return JSON.stringify({
    eventId: webhookEventId(e.accountId, e.seq),
    type: e.kind,
    occurredAt: new Date(e.createdAt).toISOString(),
    accountId: e.accountId,
    venue: e.venue ?? null,
    data: e.data,
  });
}

export function webhookActivities(deps: WebhookDeps) {
  return {
    /** One delivery attempt (module doc); records it in `webhook_deliveries`. Never throws for the receiver's failure. */
    async attemptWebhook(input: WebhookInput): Promise<AttemptResult> {
      const em = scoped(deps.orm, input.tenantId);
      const endpoint = await em.findOne(WebhookEndpoint, { id: input.endpointId });
      if (!endpoint) {
        deps.metrics?.webhook('skipped');
        return { outcome: 'skipped' };
      }
      if (endpoint.status !== 'enabled') {
        // Kept as failed: re-enabling the endpoint starts it again.
        await em.getConnection().execute(
          `insert into webhook_deliveries (endpoint_id, event_id, tenant_id, status, last_error) values (?, ?, ?, 'failed', 'endpoint_disabled')
           on conflict (endpoint_id, event_id) do update set status = case when webhook_deliveries.status = 'delivered' then 'delivered' else 'failed' end, last_error = excluded.last_error, updated_at = now()`,
          [input.endpointId, input.eventId, input.tenantId],
        );
        deps.metrics?.webhook('skipped');
        return { outcome: 'skipped' };
      }
      if (!deps.ring) throw new Error('AGENT_KEY_ENCRYPTION_KEYS is not set: webhook secrets cannot be opened');
      const event = await em.findOneOrFail(AccountEvent, eventKeyOf(input.eventId));
      const body = webhookBody(event);
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        [SIGNATURE_HEADER]: signWebhook(open(deps.ring, endpoint.sealedSecret), body),
        'x-webhook-event-id': input.eventId,
      };
      if (endpoint.sealedApiKey) headers['x-api-key'] = open(deps.ring, endpoint.sealedApiKey);
      let result: AttemptResult;
      try {
        const status = await postToReceiver({
          url: endpoint.url,
          headers,
          body,
          timeoutMs: input.timeoutMs,
          allowPrivate: deps.webhookAllowPrivate === true,
          resolve: deps.resolve,
        });
        result =
          status >= 200 && status < 300
            ? { outcome: 'delivered', status }
            : { outcome: 'failed', status, error: `http_${status}` };
      } catch (err) {
        result = { outcome: 'failed', error: deliveryErrorClass(err) };
      }
      const conn = em.getConnection();
      await conn.execute(
        `insert into webhook_deliveries (endpoint_id, event_id, tenant_id, status, attempts, last_status, last_error, delivered_at)
         values (?, ?, ?, ?, 1, ?, ?, ?)
         on conflict (endpoint_id, event_id) do update set status = case when webhook_deliveries.status = 'delivered' then 'delivered' else excluded.status end,
           attempts = webhook_deliveries.attempts + 1, last_status = excluded.last_status, last_error = excluded.last_error,
           delivered_at = coalesce(webhook_deliveries.delivered_at, excluded.delivered_at), updated_at = now()`,
        [
          input.endpointId,
          input.eventId,
          input.tenantId,
          result.outcome === 'delivered' ? 'delivered' : 'pending',
          result.status ?? null,
          result.error ?? null,
          result.outcome === 'delivered' ? new Date() : null,
        ],
      );
      deps.metrics?.webhook(result.outcome);
      return result;
    },

    /** The retry budget is spent: the delivery is `failed` and the endpoint disabled until an operator re-enables it. */
    async exhaustWebhook(input: WebhookInput, attempts: number): Promise<void> {
      const em = scoped(deps.orm, input.tenantId);
      await em.transactional(async (tx) => {
        await tx.nativeUpdate(
          WebhookDelivery,
          { endpointId: input.endpointId, eventId: input.eventId, status: { $ne: 'delivered' } },
          { status: 'failed' },
        );
        await tx.nativeUpdate(
          WebhookEndpoint,
          { id: input.endpointId, status: 'enabled' },
          {
            status: 'disabled',
            disabledAt: new Date(),
            disabledReason: `delivery of ${input.eventId} failed ${attempts} times over the retry budget`,
          },
        );
      });
      deps.metrics?.webhook('exhausted');
    },
  };
}

/** Webhook endpoints and deliveries as the API shows them (docs/api.md §6.4; webhooks.schemas.ts). */
import type { InferEntity } from '@mikro-orm/core';
import type { WebhookDelivery, WebhookEndpointRow } from '../../../db/entities.js';

/** An endpoint: never its secret or API key. */
export function toEndpointView(e: WebhookEndpointRow) {
  return {
    id: e.id,
    url: e.url,
    events: e.events,
    status: e.status as 'enabled' | 'disabled',
    disabledReason: e.disabledReason ?? null,
    disabledAt: e.disabledAt?.toISOString() ?? null,
    hasApiKey: e.sealedApiKey != null,
    secretRotatedAt: e.secretRotatedAt?.toISOString() ?? null,
    createdAt: new Date(e.createdAt).toISOString(),
  };
}

/** One delivery of an event to an endpoint (webhooks.schemas.ts `deliveryView`). */
export function toDeliveryView(d: InferEntity<typeof WebhookDelivery>) {
  return {
    eventId: d.eventId,
    status: d.status as 'pending',
    attempts: d.attempts,
    lastStatus: d.lastStatus ?? null,
    lastError: d.lastError ?? null,
    deliveredAt: d.deliveredAt?.toISOString() ?? null,
    updatedAt: new Date(d.updatedAt).toISOString(),
  };
}

/** Schemas of webhook endpoints (docs/api.md §6.4; operator audience, scope `tenant:config`). */
import { z } from 'zod';
import { listPage } from '../../../api/operator-common.schemas.js';

export const endpointParams = z.object({ id: z.string().min(1).max(255) });

export const createEndpointBody = z
  .object({
    url: z
      .string()
      .max(2048)
      .url()
      .refine((u) => /^https?:\/\//.test(u), 'http(s) URL')
      .meta({ description: 'The receiver; it must answer 2xx within the timeout (10 s by default)' }),
    events: z.array(z.string().min(1).max(64)).min(1).max(50).default(['*']).meta({
      description: 'Account event kinds to deliver (e.g. `fill.executed`, `intent.filled`), or `["*"]` for all',
    }),
    apiKey: z.string().min(8).max(200).optional().meta({
      description: 'Static `x-api-key` sent with every delivery, checked by the receiver in addition to the signature',
    }),
  })
  .meta({ id: 'CreateWebhookEndpoint' });

export const endpointView = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    status: z.enum(['enabled', 'disabled']),
    disabledReason: z.string().nullable(),
    disabledAt: z.string().nullable(),
    hasApiKey: z.boolean(),
    secretRotatedAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'WebhookEndpoint' });

export const endpointWithSecret = endpointView
  .extend({
    secret: z
      .string()
      .meta({ description: 'The HMAC-SHA256 signing secret: shown once, here; rotate to get a new one' }),
  })
  .meta({ id: 'WebhookEndpointWithSecret' });

export const endpointPage = listPage('WebhookEndpointPage', endpointView);

const deliveryView = z
  .object({
    eventId: z.string(),
    status: z.enum(['pending', 'delivered', 'failed']),
    attempts: z.number().int(),
    lastStatus: z.number().int().nullable(),
    lastError: z.string().nullable(),
    deliveredAt: z.string().nullable(),
    updatedAt: z.string(),
  })
  .meta({ id: 'WebhookDelivery' });

/** `GET /webhooks/{id}/deliveries`: the latest deliveries, newest first. */
export const deliveryList = z.object({ data: z.array(deliveryView) });

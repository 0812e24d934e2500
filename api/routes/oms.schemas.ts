/** Schemas of `/api/v1/oms/*` (spec §2.6, §4.4). */
import { z } from 'zod';
import { intentView } from '../../domain/oms/intent.js';

export { composeIntentBody, intentView } from '../../domain/oms/intent.js';

export const intentParams = z.object({ id: z.string().min(1) });
export const intentList = z.object({ intents: z.array(intentView).max(50) }).meta({ id: 'IntentList' });
export const IDEMPOTENCY_HEADER = { 'Idempotency-Key': '8-200 characters; same key and payload within 24 h replays the stored response with Idempotency-Replay: true' };

/** `POST /oms/cancel` (spec §4.4): the venue's order id, not the intent id. */
export const cancelBody = z.object({ venueOrderId: z.string().min(1) }).meta({ id: 'CancelOrder' });
export const cancelResponse = z
  .object({ ok: z.literal(true), intentId: z.string(), venueOrderId: z.string().nullable(), state: z.literal('canceled') })
  .meta({ id: 'CancelResult' });

/** `POST /oms/cancel-all`: every working order of the account, optionally of one symbol (Alpaca's DELETE /orders). */
export const cancelAllBody = z
  .object({ accountId: z.string().min(1).optional(), symbol: z.string().min(1).optional() })
  .meta({ id: 'CancelAll' });
export const cancelAllResponse = z
  .object({
    accountId: z.string(),
    canceled: z.array(z.object({ intentId: z.string(), venueOrderId: z.string().nullable() })),
    failed: z.array(z.object({ intentId: z.string(), venueOrderId: z.string().nullable(), error: z.string() })),
  })
  .meta({ id: 'CancelAllResult' });

/** Schemas of `/api/v1/oms/*` (spec §2.6, §4.4). */
import { z } from 'zod';
import { intentView } from '../../domain/oms/intent.js';

export { composeIntentBody, intentView } from '../../domain/oms/intent.js';

export const intentParams = z.object({ id: z.string().min(1) });
export const intentList = z.object({ intents: z.array(intentView).max(50) }).meta({ id: 'IntentList' });
export const IDEMPOTENCY_HEADER = { 'Idempotency-Key': '8-200 characters; same key and payload within 24 h replays the stored response with Idempotency-Replay: true' };

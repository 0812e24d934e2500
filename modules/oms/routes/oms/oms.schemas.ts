/** Schemas of `/api/v1/oms/*` (docs/api.md §2.6, §4.4). */
import { z } from 'zod';
import { INTENT_EXAMPLE, intentView } from '../../../../domain/oms/intent.js';
import { errorBody } from '../../../../api/openapi.js';

export { composeIntentBody, intentView } from '../../../../domain/oms/intent.js';

export const intentParams = z.object({ id: z.string().min(1).max(255) });

/** `POST /oms/intents/{id}/sign-result` (docs/api.md §3.1): the signature of the compose response's typed data. */
export const signResultBody = z
  .object({
    signedPayload: z.object({
      signature: z.string().min(1).max(1024).meta({ description: '0x-prefixed 65-byte EIP-712 signature' }),
    }),
  })
  .meta({ id: 'SignResultRequest' });
export const signResultResponse = z
  .object({
    ok: z.boolean(),
    intentId: z.string(),
    venueOrderId: z.string().nullable().optional(),
    resting: z.boolean().optional(),
    inlineFill: z.object({ qty: z.string(), avgPrice: z.string() }).optional(),
    error: z.string().optional(),
    detail: z.string().optional(),
  })
  .meta({ id: 'SignResult' });
/** `sign-result`'s `400`: a dispatch refusal (`{ ok: false, error, detail }`) or another refusal (`invalid_signature`). */
export const signResultRefusal = z.union([signResultResponse, errorBody]);

/** EIP-712 typed data as `eth_signTypedData_v4` takes it (venues/types.ts `Eip712TypedData`). */
const eip712TypedData = z
  .object({
    domain: z
      .object({
        name: z.string(),
        version: z.string(),
        chainId: z.number().int().optional(),
        verifyingContract: z.string().optional(),
      })
      .meta({ description: 'The EIP-712 domain' }),
    types: z.record(z.string(), z.array(z.object({ name: z.string(), type: z.string() }))),
    primaryType: z.string(),
    message: z
      .record(z.string(), z.unknown())
      .meta({ description: 'The values of `types[primaryType]`, field by field' }),
  })
  .meta({ id: 'Eip712TypedData' });

/** The compose answer: the intent, and for a self-signing credential what it signs (docs/api.md §3.1). */
export const composedIntentView = intentView
  .extend({
    signingRequest: z
      .object({ kind: z.literal('eip712'), typedData: eip712TypedData })
      .optional()
      .meta({
        description:
          'Self-signing credentials only: sign `typedData` with eth_signTypedData_v4 and send it to `POST /oms/intents/{id}/sign-result`',
      }),
  })
  .meta({
    id: 'ComposedIntent',
    example: { ...INTENT_EXAMPLE, state: 'signed_pending_dispatch', orderStatus: null, venueOrderId: null },
  });

export const intentList = z.object({ intents: z.array(intentView).max(50) }).meta({ id: 'IntentList' });

/** `POST /oms/cancel` (docs/api.md §4.4): the venue's order id, or the intent id (which a never-signed intent has alone). */
export const cancelBody = z
  .object({
    venueOrderId: z.string().min(1).max(255).optional().meta({ description: "The venue's order id" }),
    intentId: z.string().min(1).max(255).optional().meta({
      description: 'The intent id, instead of venueOrderId: an intent not yet dispatched has no venue order id',
    }),
  })
  .refine((b) => (b.venueOrderId === undefined) !== (b.intentId === undefined), {
    message: 'send exactly one of venueOrderId, intentId',
  })
  .meta({ id: 'CancelOrder', description: 'Exactly one of venueOrderId, intentId (docs/api.md §4.4)' });
export const cancelResponse = z
  .object({
    ok: z.literal(true),
    intentId: z.string(),
    venueOrderId: z.string().nullable(),
    state: z.literal('canceled'),
  })
  .meta({ id: 'CancelResult' });

/** `POST /oms/cancel-all`: every working order of the account, optionally of one symbol (Alpaca's DELETE /orders). */
export const cancelAllBody = z
  .object({ accountId: z.string().min(1).max(255).optional(), symbol: z.string().min(1).max(255).optional() })
  .meta({ id: 'CancelAll' });
export const cancelAllResponse = z
  .object({
    accountId: z.string(),
    canceled: z.array(z.object({ intentId: z.string(), venueOrderId: z.string().nullable() })),
    failed: z.array(z.object({ intentId: z.string(), venueOrderId: z.string().nullable(), error: z.string() })),
  })
  .meta({ id: 'CancelAllResult' });

/** `POST /oms/flatten` (liquidation and above): close every open position of the account. */
export const flattenBody = z.object({ accountId: z.string().min(1).max(255).optional() }).meta({ id: 'Flatten' });
/** `POST /oms/reverse` (fullTrading): close the position in `symbol` and open the same size on the other side. */
export const reverseBody = z
  .object({ symbol: z.string().min(1).max(255), accountId: z.string().min(1).max(255).optional() })
  .meta({ id: 'Reverse' });
export const batchPlanView = z
  .object({
    batchId: z.string(),
    kind: z.enum(['flatten', 'reverse']),
    accountId: z.string(),
    legs: z.array(
      z.object({
        n: z.number().int(),
        action: z.enum(['cancel', 'close', 'open']),
        intentId: z.string(),
        symbol: z.string(),
        side: z.enum(['buy', 'sell']).optional(),
        qty: z.string().optional(),
      }),
    ),
  })
  .meta({
    id: 'BatchPlan',
    description:
      'Legs run in order (cancels, closes, opens); each starts when the one before is done. Outcomes arrive on /ws/risk.',
  });

const modifyNumber = z
  .number()
  .positive()
  .meta({ description: 'A JSON number; a decimal string is refused (docs/api.md §4.4)' });
/** `POST /oms/modify`: cancel-replace of a working order with new numbers. */
export const modifyBody = z
  .object({
    intentId: z.string().min(1).max(255),
    newPrice: modifyNumber.optional(),
    newQty: modifyNumber.optional(),
    newTriggerPrice: modifyNumber.optional(),
    newStopLimitPrice: modifyNumber.optional(),
  })
  .refine((b) => [b.newPrice, b.newQty, b.newTriggerPrice, b.newStopLimitPrice].some((v) => v !== undefined), {
    message: 'send at least one of newPrice, newQty, newTriggerPrice, newStopLimitPrice',
  })
  .meta({ id: 'ModifyOrder' });
export const modifyResponse = z
  .object({ ok: z.literal(true), replacedIntentId: z.string(), intentId: z.string(), intent: intentView })
  .meta({ id: 'ModifyResult' });

/** `POST /oms/chase`: chase a working limit order toward the touch until it fills. */
export const chaseBody = z
  .object({
    intentId: z.string().min(1).max(255),
    maxAttempts: z
      .number()
      .int()
      .min(1)
      .max(100)
      .default(20)
      .meta({ description: 'Most cancel-replaces; the last order keeps working' }),
    intervalMs: z
      .number()
      .int()
      .min(100)
      .max(60_000)
      .default(500)
      .meta({ description: 'How often the touch is looked at, ms' }),
  })
  .meta({ id: 'Chase' });
export const chaseView = z
  .object({
    chaseId: z.string(),
    currentIntentId: z.string(),
    attempts: z.number(),
    maxAttempts: z.number(),
    state: z.enum(['chasing', 'filled', 'exhausted', 'ended']),
  })
  .meta({ id: 'ChaseState' });

/**
 * `Idempotency-Key` (docs/api.md §8): every operation whose OpenAPI entry documents the header (the OMS writes,
 * sign-result, route-intents, funding operations; generated/operations.ts) gets a random UUID key unless the
 * call names its own (`params: { header: { 'Idempotency-Key': key } }`). The same key with the same payload
 * within 24 h replays the stored answer (`Idempotency-Replay: true`); with another payload it is
 * `409 idempotency_key_conflict`. Name your own key to retry a write safely across calls or processes.
 */
import type { Middleware } from 'openapi-fetch';
import { IDEMPOTENT_OPERATIONS } from './generated/operations.js';

/** The header's name, as the document spells it. */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** Whether `METHOD schemaPath` documents an `Idempotency-Key` header. */
export function isIdempotentOperation(method: string, schemaPath: string): boolean {
  return IDEMPOTENT_OPERATIONS.has(`${method.toUpperCase()} ${schemaPath}`);
}

/** The middleware: adds `Idempotency-Key: <newKey()>` (default `crypto.randomUUID()`) where the operation documents it and none is set. */
export function idempotencyKeys(newKey: () => string = () => crypto.randomUUID()): Middleware {
  return {
    onRequest({ request, schemaPath }) {
      if (!isIdempotentOperation(request.method, schemaPath) || request.headers.has(IDEMPOTENCY_HEADER)) return;
      request.headers.set(IDEMPOTENCY_HEADER, newKey());
      return request;
    },
  };
}

/**
 * Webhook signatures (docs/api.md §6.4), for the platform and for receivers: header
 * `x-webhook-signature: sha256=<hex HMAC-SHA256 of the raw body bytes>` keyed by the endpoint's
 * secret. Receivers verify the RAW body before parsing it, in constant time, and check
 * `x-api-key` (when configured) in addition, never instead. Node's `crypto` only; copy this file
 * into a receiver as is (README "Webhooks" has an example receiver).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header the platform signs with. */
export const SIGNATURE_HEADER = 'x-webhook-signature';

/** `sha256=<hex>` of `rawBody` under `secret`. */
export function signWebhook(secret: string, rawBody: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

/**
 * Whether `header` is the signature of exactly `rawBody` under `secret`, compared in constant time.
 * False for a missing or malformed header.
 */
export function verifyWebhook(secret: string, rawBody: string | Buffer, header: string | undefined | null): boolean {
  if (!header || !/^sha256=[0-9a-f]{64}$/.test(header)) return false;
  const expected = Buffer.from(signWebhook(secret, rawBody));
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Schemas of the unversioned auth surface (docs/api.md §4.1, §2.2, §2.3). */
import { z } from 'zod';

export const apiTokenBody = z
  .object({ apiKey: z.string().min(1).max(255), apiSecret: z.string().min(1).max(255) })
  .meta({ id: 'ApiTokenRequest' });

export const apiTokenResponse = z
  .object({
    token: z.string(),
    tokenType: z.literal('Bearer'),
    tier: z.string().nullable().meta({ description: 'Trader tier; null for operator credentials' }),
    expiresAt: z.string().meta({ description: 'ISO 8601; 24 h after mint' }),
    audience: z.enum(['trader', 'operator']),
    tenantId: z.string(),
    accountId: z.string().nullable(),
    scopes: z.array(z.string()),
  })
  .meta({ id: 'ApiToken' });

export const revokeBody = z.object({ token: z.string().min(1).max(4096) }).meta({ id: 'RevokeTokenRequest' });
export const revokeResponse = z.object({ ok: z.literal(true), revoked: z.boolean() });

export const bootstrapBody = z
  .object({ apiKey: z.string().min(1).max(255), apiSecret: z.string().min(1).max(255) })
  .partial()
  .meta({ description: 'Either both fields, or an empty body with a bearer token' });

const handshake = z.object({ endpoint: z.string(), token: z.string(), expiresAt: z.string() });
export const bootstrapResponse = z
  .object({ success: z.literal(true), data: z.object({ riskEngineWss: handshake, quoteServiceWss: handshake }) })
  .meta({ id: 'Bootstrap' });

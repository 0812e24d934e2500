/** Schemas of self-serve tenant signup (docs/api.md §4.1 `/api/public/tenants/*`; no auth, no tenant). */
import { z } from 'zod';
import { RESERVED_SLUGS, SLUG_RE } from '../../../../domain/tenant/config.js';

export const signupBody = z
  .object({
    email: z.string().email().max(320).meta({ description: 'Where the verification token is mailed' }),
    slug: z
      .string()
      .regex(SLUG_RE, '3-32 characters: a-z, 0-9 and inner hyphens, starting with a letter')
      .refine((s) => !RESERVED_SLUGS.has(s), 'this slug is reserved')
      .meta({ description: 'The tenant’s slug (`X-Tenant-Slug`); unique across the platform', example: 'acme-dex' }),
  })
  .meta({ id: 'TenantSignup' });

export const signupView = z
  .object({
    signupId: z.string(),
    email: z.string(),
    slug: z.string(),
    status: z.literal('pending_verification'),
    expiresAt: z.string(),
  })
  .meta({ id: 'TenantSignupPending' });

export const verifyBody = z
  .object({ token: z.string().min(20).max(200).meta({ description: 'The token from the verification mail' }) })
  .meta({ id: 'TenantVerify' });

export const verifyView = z
  .object({
    tenant: z.object({ id: z.string(), slug: z.string(), displayName: z.string() }),
    adminInvite: z
      .object({ id: z.string(), email: z.string(), role: z.literal('admin'), expiresAt: z.string() })
      .meta({ description: 'Mailed to the signup address' }),
    operator: z
      .object({
        apiKey: z.string(),
        apiSecret: z.string().meta({ description: 'Shown once' }),
        scopes: z.array(z.string()),
      })
      .nullable()
      .meta({ description: 'An operator credential with firm:operate and prop:manage, where the platform enables it' }),
  })
  .meta({ id: 'TenantVerified' });

export const acceptInviteBody = z
  .object({ token: z.string().min(20).max(200).meta({ description: 'The token from the invite mail' }) })
  .meta({ id: 'AcceptInvite' });

export const acceptInviteView = z
  .object({
    tenant: z.object({ id: z.string(), slug: z.string() }),
    operator: z.object({
      apiKey: z.string(),
      apiSecret: z.string().meta({ description: 'Shown once' }),
      scopes: z.array(z.string()),
    }),
  })
  .meta({ id: 'InviteAccepted' });

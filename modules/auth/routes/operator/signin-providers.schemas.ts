/**
 * Schemas of the tenant's sign-in providers and invitations (docs/api.md §5.1 "Social sign-in"; operator audience,
 * scope `tenant:config`), modules/auth/routes/operator/signin-providers.ts.
 */
import { z } from 'zod';

const joinPolicy = z.enum(['open', 'invite_only', 'email_domains']).meta({
  description:
    'What the first sign-in of an unknown identity may do: `open` creates the trader and its default account; `invite_only` admits an invited verified email (POST /api/v1/sign-in/invites); `email_domains` admits a verified email of `emailDomains`',
});
const emailDomains = z
  .array(
    z
      .string()
      .regex(/^[a-z0-9.-]+\.[a-z]{2,}$/i, 'a domain such as example.com')
      .max(253),
  )
  .max(100)
  .meta({ description: 'The domains of `email_domains` (lower-cased)' });
const scopes = z
  .array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'an OAuth scope token'))
  .min(1)
  .max(20)
  .meta({ description: 'Scopes asked for; must include openid (default openid email profile)' });
const clientSecret = z.string().min(1).max(1024).meta({
  description: 'Sealed with the custody key ring and never shown again; absent for a public client (PKCE only)',
});

export const createProviderBody = z
  .object({
    slug: z
      .string()
      .regex(/^[a-z][a-z0-9-]{0,62}[a-z0-9]$/, '2-64 of a-z, 0-9 and inner hyphens, starting with a letter')
      .meta({ description: 'Names the provider in its routes (/api/auth/oidc/{slug}/…)' }),
    kind: z
      .enum(['oidc', 'email'])
      .meta({ description: '`oidc`: an OpenID provider; `email`: the magic link (one per tenant)' }),
    displayName: z.string().min(1).max(80).meta({ description: 'The button says “Sign in with <displayName>”' }),
    issuer: z.string().url().max(2048).optional().meta({
      description:
        'OpenID issuer URL (its /.well-known/openid-configuration is read); https unless OIDC_ALLOW_INSECURE',
    }),
    clientId: z.string().min(1).max(512).optional(),
    clientSecret: clientSecret.optional(),
    scopes: scopes.optional(),
    joinPolicy,
    emailDomains: emailDomains.optional(),
    enabled: z.boolean().optional().meta({ description: 'Default true' }),
  })
  .strict()
  .meta({ id: 'SigninProviderInput' });
/** A provider as the operator defines it (modules/auth/commands/signin-providers.ts `createProvider`). */
export type CreateProviderBody = z.output<typeof createProviderBody>;

export const updateProviderBody = z
  .object({
    displayName: z.string().min(1).max(80).optional(),
    clientSecret: clientSecret.optional(),
    scopes: scopes.optional(),
    joinPolicy: joinPolicy.optional(),
    emailDomains: emailDomains.optional(),
    enabled: z.boolean().optional(),
  })
  .strict()
  .meta({
    id: 'SigninProviderPatch',
    description: 'Absent fields stay; the issuer and client id are fixed (add another provider)',
  });
/** A change to a provider: the fields given replace the provider's (`updateProvider`). */
export type UpdateProviderBody = z.output<typeof updateProviderBody>;

export const providerView = z
  .object({
    id: z.string(),
    slug: z.string(),
    kind: z.enum(['oidc', 'email']),
    displayName: z.string(),
    issuer: z.string().nullable(),
    clientId: z.string().nullable(),
    hasClientSecret: z.boolean().meta({ description: 'A secret is set (it is never shown)' }),
    scopes: z.array(z.string()),
    joinPolicy: z.enum(['open', 'invite_only', 'email_domains']),
    emailDomains: z.array(z.string()),
    enabled: z.boolean(),
    startPath: z.string().meta({ description: 'Where the sign-in button goes' }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'SigninProvider' });

export const providerList = z.object({ data: z.array(providerView) }).meta({ id: 'SigninProviderList' });

export const providerIdParams = z.object({ providerId: z.string().min(1).max(64) });

export const inviteBody = z
  .object({
    email: z.string().email().max(320).meta({ description: 'Lower-cased; the verified email the sign-in must prove' }),
    ownerId: z.string().min(1).max(255).optional().meta({
      description: 'Join as this existing trader (one with an account here) instead of a new one',
    }),
  })
  .strict()
  .meta({ id: 'SigninInviteInput' });

export const inviteView = z
  .object({
    id: z.string(),
    email: z.string(),
    ownerId: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'SigninInvite' });

export const deletedProvider = z
  .object({ id: z.string(), deleted: z.literal(true) })
  .meta({ id: 'SigninProviderDeleted' });

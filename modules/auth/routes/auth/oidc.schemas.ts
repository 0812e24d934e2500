/**
 * Schemas of the social and email sign-in routes and of linked identities (docs/api.md §5.1 "Social sign-in"),
 * modules/auth/routes/auth/oidc.ts.
 */
import { z } from 'zod';

/** A page path to come back to on this origin: `/` followed by anything but a second `/` or `\` (no other host). */
const returnTo = z
  .string()
  .max(2048)
  .regex(/^\/(?![/\\])[^\s]*$/, 'a path on this site, starting with a single /')
  .optional()
  .meta({ description: 'The page path to come back to after sign-in (default `/`); never another site' });

export const providerParams = z.object({
  provider: z.string().min(1).max(64).meta({ description: 'The provider’s slug, as GET /api/auth/providers lists it' }),
});

export const signinOption = z
  .object({
    slug: z.string(),
    kind: z.enum(['oidc', 'email']),
    displayName: z.string().meta({ description: 'What the sign-in button says: “Sign in with <displayName>”' }),
    startPath: z.string().meta({
      description:
        'Where the button goes: `GET` it in the browser for `oidc` (a redirect to the provider); `POST { email }` for `email`',
    }),
  })
  .meta({ id: 'SigninOption' });

export const signinOptions = z
  .object({ providers: z.array(signinOption).meta({ description: 'The tenant’s enabled providers, oldest first' }) })
  .meta({ id: 'SigninOptions' });

export const oidcStartQuery = z.object({
  returnTo,
  link: z
    .enum(['true', 'false'])
    .optional()
    .meta({ description: '`true`: link the identity to the signed-in trader (cookie session) instead of signing in' }),
});

export const oidcCallbackQuery = z
  .object({
    code: z.string().max(4096).optional(),
    state: z.string().max(512).optional(),
    error: z.string().max(256).optional(),
    error_description: z.string().max(2048).optional(),
    iss: z.string().max(2048).optional(),
    session_state: z.string().max(512).optional(),
  })
  .meta({ description: 'The provider’s authorisation response (RFC 6749 §4.1.2, RFC 9207 `iss`)' });

export const emailStartBody = z
  .object({
    email: z.string().email().max(320).meta({ description: 'Where the link goes; lower-cased' }),
    returnTo,
    link: z.boolean().optional().meta({
      description:
        '`true`: the link links this address to the signed-in trader (cookie or bearer) instead of signing in',
    }),
  })
  .meta({ id: 'EmailSigninStart' });

export const emailStartResponse = z
  .object({
    sent: z.literal(true).meta({
      description:
        'Always true when the tenant offers email sign-in: whether the address may sign in is decided when the link is used',
    }),
    expiresAt: z.string().meta({ description: 'ISO 8601; the link works once, for 15 minutes' }),
  })
  .meta({ id: 'EmailSigninSent' });

export const emailVerifyQuery = z.object({
  token: z.string().min(1).max(256).meta({ description: 'The token of the mailed link' }),
});

export const linkedIdentity = z
  .object({
    id: z.string(),
    kind: z.enum(['oidc', 'email', 'wallet']),
    issuer: z
      .string()
      .meta({ description: 'The OpenID issuer; `email` for a magic-link address; `siwe` for a wallet' }),
    subject: z
      .string()
      .meta({ description: 'The ID token’s `sub`, the lower-case email, or the lower-case wallet address' }),
    email: z.string().nullable(),
    providerId: z.string().nullable().meta({ description: 'The provider it was linked through; null for a wallet' }),
    createdAt: z.string(),
    lastSignInAt: z.string().nullable(),
  })
  .meta({ id: 'LinkedIdentity' });

export const identityList = z.object({ identities: z.array(linkedIdentity) }).meta({ id: 'LinkedIdentities' });

export const identityParams = z.object({ identityId: z.string().min(1).max(64) });

export const okResponse = z.object({ ok: z.literal(true) }).meta({ id: 'SigninOk' });

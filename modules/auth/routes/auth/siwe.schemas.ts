/** Schemas of the SIWE cookie-session routes (docs/api.md §5.1; EIP-4361), modules/auth/routes/auth/siwe.ts. */
import { z } from 'zod';

export const siweNonceResponse = z
  .object({
    nonce: z
      .string()
      .meta({ description: 'Put it in the EIP-4361 message; single use, valid 5 minutes, for this tenant only' }),
    expiresAt: z.string().meta({ description: 'ISO 8601' }),
  })
  .meta({ id: 'SiweNonce' });

export const siweVerifyBody = z
  .object({
    message: z.string().min(1).max(4096).meta({
      description:
        'The EIP-4361 message the wallet signed. `domain` (host[:port]) and the origin of `uri` must be one of the tenant’s registered origins or the API’s public base URL (never taken from the request’s Host); `nonce` from POST /api/auth/siwe/nonce; any chain id; version 1.',
    }),
    signature: z
      .string()
      .min(1)
      .max(1024)
      .meta({ description: 'The wallet’s personal_sign signature over `message` (0x…); EOA wallets' }),
  })
  .meta({ id: 'SiweVerify' });

export const sessionView = z
  .object({
    sessionId: z.string().meta({
      description:
        'The session’s public id; intents it composes carry credential `wallet:<address>` (visible to every session of that wallet)',
    }),
    walletAddress: z.string().meta({ description: 'The signing wallet, lower-case' }),
    accountId: z.string().meta({
      description:
        'The account the wallet is linked to: the one with an active agent whose owner is this wallet and signed its authorisation (Hyperliquid, Aster, Polymarket; never Kalshi)',
    }),
    tier: z.literal('fullTrading'),
    expiresAt: z.string().meta({ description: 'ISO 8601; 24 h after sign-in' }),
  })
  .meta({
    id: 'Session',
    description: 'Sets the httpOnly, SameSite=Lax `service_session` cookie (Secure over https).',
  });

export const logoutResponse = z.object({ ok: z.literal(true) }).meta({ id: 'Logout' });

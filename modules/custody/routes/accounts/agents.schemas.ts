/**
 * Schemas of the agent custody routes (docs/api.md §1 custody, §7 agent codes): create an agent for an
 * account on a routed venue, submit the owner's authorisation, list, revoke.
 */
import { z } from 'zod';
import { ROUTED_VENUES } from '../../../../domain/oms/intent.js';

export const agentParams = z.object({ id: z.string().min(1).max(255), agentId: z.string().min(1).max(255) });

export const createAgentBody = z
  .object({
    venue: z.enum(ROUTED_VENUES).meta({ description: 'Routed venue the agent trades on' }),
    owner: z.string().min(1).max(128).meta({
      description:
        "The user's account on the venue: the master wallet address (0x…, Hyperliquid, Aster, Polymarket funder) or the Kalshi member id. Reads go to it; on Hyperliquid, Aster and Polymarket it signs the authorisation, and the active agent then lets that wallet sign in with Ethereum as this account's trader. Kalshi: a label nobody signs, so it never links a wallet for sign-in.",
      example: '0x5e9ee1089755c3435139848e47e6635505d5a13a',
    }),
    expiresInDays: z.number().int().min(1).max(180).default(30).meta({
      description:
        'Authorisation lifetime, days (1–180, default 30); compose answers `403 agent_authorization_expired` after it',
    }),
  })
  .superRefine((b, ctx) => {
    if (b.venue !== 'kalshi' && !/^0x[0-9a-fA-F]{40}$/.test(b.owner))
      ctx.addIssue({
        code: 'custom',
        path: ['owner'],
        message: `${b.venue} owners are EVM addresses (0x + 40 hex)`,
        params: { code: 'owner_address' },
      });
  })
  .meta({ id: 'CreateAgent' });

export const authorizeAgentBody = z
  .object({
    signature: z.string().min(1).max(1024).meta({
      description:
        "The owner's signature over `authorization.typedData` (0x + 130 hex, eth_signTypedData_v4). Kalshi: the key id the venue assigned when the owner registered `authorization.publicKeyPem`.",
    }),
    keyId: z
      .string()
      .min(1)
      .max(128)
      .optional()
      .meta({ description: 'Kalshi only: the API key id (same as `signature`)' }),
  })
  .meta({ id: 'AuthorizeAgent' });

export const agentView = z
  .object({
    agentId: z.string(),
    accountId: z.string(),
    venue: z.enum(ROUTED_VENUES),
    owner: z.string(),
    agentAddress: z
      .string()
      .meta({ description: 'The agent’s public address (Kalshi: the key id once registered, `pending` before)' }),
    agentName: z.string(),
    status: z.enum(['pending_authorization', 'active', 'revoked']),
    expiresAt: z.string(),
    authorizedAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'Agent' });

export const createdAgentView = agentView
  .extend({
    authorization: z.record(z.string(), z.unknown()).meta({
      description:
        'What the owner signs: `{ kind: "eip712", typedData, action? }` (sign typedData with eth_signTypedData_v4), or for Kalshi `{ kind: "rsa_public_key", publicKeyPem }` (register it under Account & security; send the key id back)',
    }),
  })
  .meta({ id: 'CreatedAgent' });

/** `GET /accounts/{id}/agents`. */
export const agentListView = z.object({ agents: z.array(agentView) });

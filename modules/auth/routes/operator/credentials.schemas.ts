/**
 * Schemas of credential management (docs/api.md §2.1, §4.8 `/api/v1/operator/credentials`, scope
 * `credentials:manage`). USD amounts are decimal strings; a trader's envelope and allowlists are checked at
 * compose (domain/auth/envelope.ts). A field of the other audience is refused (`unrecognized_keys` at issue).
 */
import { z } from 'zod';
import { VENUE_SYMBOLS } from '../../../../domain/market/symbols.js';
import { COMPOSE_VENUES } from '../../../../domain/oms/intent.js';
import { AUDIENCES, SCOPES, TIERS } from '../../../../domain/gates.js';
import { evmAddress, idParams, listPage, listQuery, usdAmount } from '../../../../api/operator-common.schemas.js';

/** Every symbol some venue lists (`GET /api/v1/symbols/{venue}`). */
const LISTED_SYMBOLS = new Set(Object.values(VENUE_SYMBOLS).flatMap((list) => list.map((s) => s.symbol)));

/** The same values once each, in their first order. */
const unique = <T>(values: T[]) => [...new Set(values)];

const label = z.string().min(1).max(120).meta({ description: 'What the credential is for, shown in lists' });

const envelopeInput = z
  .object({
    maxOrderNotionalUsd: usdAmount
      .nullable()
      .optional()
      .meta({ description: 'Largest order, qty × price (limit, stop-limit or trigger price, else the mark), USD' }),
    maxPositionNotionalUsd: usdAmount
      .nullable()
      .optional()
      .meta({ description: 'Largest position in the symbol after the order fills, |qty| × price, USD' }),
    maxLeverage: z.number().positive().max(1000).nullable().optional().meta({ description: 'Highest order leverage' }),
    dailyLossLimitUsd: usdAmount.nullable().optional().meta({
      description:
        "Loss today (UTC: realised net of fees + unrealised at the mark, the account's) at which orders that add exposure stop, USD",
    }),
  })
  .strict()
  .meta({
    id: 'RiskEnvelopeInput',
    description: 'A trader credential’s limits, each null or absent = none (on PATCH: absent = unchanged)',
  });

const allowedVenues = z
  .array(z.enum(COMPOSE_VENUES))
  .min(1)
  .max(COMPOSE_VENUES.length)
  .transform(unique)
  .nullable()
  .meta({ description: 'Venues compose accepts from this trader; null = every venue' });

const allowedSymbols = z
  .array(
    z
      .string()
      .max(64)
      .refine((s) => LISTED_SYMBOLS.has(s), {
        message: 'a venue-suffixed symbol listed by GET /api/v1/symbols/{venue}',
        params: { code: 'symbol_unknown' },
      }),
  )
  .min(1)
  .max(500)
  .transform(unique)
  .nullable()
  .meta({ description: 'Venue-suffixed symbols compose accepts from this trader (`BTC.PAPER`); null = every symbol' });

const rateLimit = z
  .object({
    perSecond: z.int().min(1).max(100_000),
    burst: z.int().min(0).max(1_000_000),
  })
  .nullable()
  .meta({ description: "Own requests per second and burst per 10 s; null = the deployment's (§8 Rate limits)" });

const signerAddress = evmAddress.nullable().meta({
  description: 'The wallet (agent wallet) that signs this trader’s own intents (§3.1); null = platform-signed',
});

const scopes = z
  .array(z.enum(SCOPES))
  .max(SCOPES.length)
  .transform(unique)
  .meta({ description: 'Operator scopes (§5.4), each one the issuing operator holds itself' });

const traderIssue = z
  .object({
    audience: z.literal('trader'),
    label: label.optional(),
    tier: z.enum(TIERS).default('fullTrading'),
    accountId: z.string().min(1).max(255).optional().meta({
      description:
        "The active account: the credential acts for its owner. Absent: a new trader with a paper account under the tenant's account policy",
    }),
    signerAddress: signerAddress.optional(),
    envelope: envelopeInput.optional(),
    allowedVenues: allowedVenues.optional(),
    allowedSymbols: allowedSymbols.optional(),
    rateLimit: rateLimit.optional(),
  })
  .strict();

const operatorIssue = z
  .object({
    audience: z.literal('operator'),
    label: label.optional(),
    scopes,
    rateLimit: rateLimit.optional(),
  })
  .strict();

export const issueCredentialBody = z
  .discriminatedUnion('audience', [traderIssue, operatorIssue])
  .meta({ id: 'IssueCredential' });
export type IssueCredentialBody = z.output<typeof issueCredentialBody>;

export const updateCredentialBody = z
  .object({
    label: label.optional(),
    tier: z.enum(TIERS).optional().meta({ description: 'Trader only' }),
    scopes: scopes.optional().meta({ description: 'Operator only; replaces the scopes' }),
    signerAddress: signerAddress.optional(),
    envelope: envelopeInput.optional().meta({ description: 'Trader only; each key given replaces that limit' }),
    allowedVenues: allowedVenues.optional(),
    allowedSymbols: allowedSymbols.optional(),
    rateLimit: rateLimit.optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, { message: 'name at least one field to change' })
  .meta({ id: 'UpdateCredential' });
export type UpdateCredentialBody = z.output<typeof updateCredentialBody>;

export const credentialListQuery = listQuery.extend({
  audience: z.enum(AUDIENCES).optional(),
  ownerId: z.string().min(1).max(255).optional(),
  accountId: z.string().min(1).max(255).optional(),
});

export const credentialParams = idParams;

export const credentialView = z
  .object({
    id: z.string(),
    apiKey: z.string(),
    audience: z.enum(AUDIENCES),
    label: z.string(),
    ownerId: z.string().meta({ description: 'The trader (or operator) it acts for; owns the accounts' }),
    accountId: z.string().nullable(),
    tier: z.enum(TIERS).nullable(),
    scopes: z.array(z.string()),
    signerAddress: z.string().nullable(),
    envelope: z.object({
      maxOrderNotionalUsd: z.string().nullable(),
      maxPositionNotionalUsd: z.string().nullable(),
      maxLeverage: z.number().nullable(),
      dailyLossLimitUsd: z.string().nullable(),
    }),
    allowedVenues: z.array(z.string()).nullable(),
    allowedSymbols: z.array(z.string()).nullable(),
    rateLimit: z.object({ perSecond: z.number(), burst: z.number() }).nullable(),
    secretRotatedAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'ManagedCredential' });

export const credentialWithSecret = credentialView
  .extend({ apiSecret: z.string().meta({ description: 'Shown this once; only its scrypt hash is stored' }) })
  .meta({ id: 'ManagedCredentialWithSecret' });

export const credentialPage = listPage('ManagedCredentialPage', credentialView);

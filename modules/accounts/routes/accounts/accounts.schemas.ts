/** Schemas of `/api/v1/accounts/*` and `/api/v1/sandbox/paper-account` (docs/api.md §2.5, §4.3, §8). */
import { z } from 'zod';
import { pageQuery } from '../../../../domain/pagination.js';
import { positiveDecimal } from '../../../../domain/oms/decimal-input.js';

export const accountParams = z.object({ id: z.string().min(1).max(255) });

export const createAccountBody = z
  .object({
    name: z.string().min(1).max(100).default('Paper account'),
    initialDepositUsd: positiveDecimal.optional().meta({
      description:
        "Opening paper balance, USD; default and ceiling from the tenant's deposit policy (`accounts.deposit`: 100000 and 1000000 unless set)",
    }),
  })
  .meta({ id: 'CreateAccount' });

export const patchAccountBody = z
  .object({
    name: z.string().min(1).max(100).optional(),
    settings: z
      .object({
        smartRouting: z
          .boolean()
          .optional()
          .meta({ description: 'Smart order routing (POST /api/v1/oms/route-intents); off unless true' }),
      })
      .strict()
      .optional()
      .meta({ description: 'Merged into the stored settings; only the keys listed here (another key: 400)' }),
  })
  .refine((b) => b.name !== undefined || b.settings !== undefined, { message: 'send name or settings' })
  .meta({ id: 'UpdateAccount' });

export const accountView = z
  .object({
    accountId: z.string(),
    accountNumber: z.string(),
    name: z.string(),
    executionMode: z.enum(['internalised', 'routed']),
    baseCurrency: z.string(),
    tradingGroupId: z.string().nullable(),
    settings: z.record(z.string(), z.unknown()),
    createdAt: z.string(),
  })
  .meta({ id: 'Account' });

const usd = z.string().meta({ description: 'Decimal string, USD' });
export const accountStateView = z
  .object({
    accountId: z.string(),
    accountNumber: z.string(),
    perVenue: z.array(
      z.object({
        venue: z.string(),
        exchange: z.string(),
        equityUsd: usd,
        balanceUsd: usd,
        marginUsedUsd: usd,
        marginAvailableUsd: usd,
        unrealizedPnlUsd: usd,
        openPositions: z.number(),
      }),
    ),
  })
  .meta({ id: 'AccountState' });

/** Spec §8: cap 1000 on orders, trades, fills; 500 on events. */
export const historyQuery = pageQuery(1000);
export const eventsQuery = pageQuery(500).extend({
  kind: z.string().max(255).optional(),
  venue: z.string().max(255).optional(),
  from: z.iso.datetime().optional(),
  to: z.iso.datetime().optional(),
});

/** `POST /accounts/{id}/manual-trades` (docs/api.md §2.10): one off-platform round trip. */
export const manualTradeBody = z
  .object({
    symbol: z.string().min(1).max(255).meta({ description: 'Venue-suffixed, e.g. BTC.PAPER' }),
    side: z.enum(['long', 'short']).meta({ description: "The position's direction, not buy or sell" }),
    qty: z.number().positive(),
    entryTime: z.iso.datetime(),
    exitTime: z.iso.datetime(),
    entryPrice: z.number().positive(),
    exitPrice: z.number().positive(),
    fees: z.number().min(0).optional().meta({ description: 'USD' }),
  })
  .refine((b) => Date.parse(b.exitTime) >= Date.parse(b.entryTime), {
    message: 'exitTime must not be before entryTime',
    path: ['exitTime'],
  })
  .meta({ id: 'ManualTrade' });

/** `GET /accounts/{id}/funding`: the deposit, withdrawal and transfer ledger (cap 1000). */
export const fundingQuery = pageQuery(1000);

export const pageOf = (key: string, item: z.ZodType = z.record(z.string(), z.unknown())) =>
  z.object({
    [key]: z.array(item),
    nextCursor: z.string().nullable().meta({ description: 'Opaque; null at the end' }),
  });

/** Schemas of `/api/v1/accounts/*` and `/api/v1/sandbox/paper-account` (docs/api.md §2.5, §4.3, §8). */
import { z } from 'zod';
import { pageQuery } from '../../../../domain/pagination.js';
import { positiveDecimal } from '../../../../domain/oms/decimal-input.js';
import { EXECUTION_MODES } from '../../../../domain/oms/execution.js';
import { dec, fmt } from '../../../../domain/decimal.js';
import { FUNDING_OPERATION_STATUSES, FUNDING_OPERATION_TYPES } from '../../../../domain/funding/operations.js';
import { usdAmount } from '../../../../api/operator-common.schemas.js';
import { positionSchema, workingOrderSchema } from '../../../../api/views.schemas.js';

export const accountParams = z.object({ id: z.string().min(1).max(255) });

export const createAccountBody = z
  .object({
    name: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .meta({ description: '`Paper account` (internalised) or `Routed account` when absent' }),
    executionMode: z.enum(EXECUTION_MODES).optional().meta({
      description:
        "Where the account's orders execute (docs/api.md §1); only under the tenant's `accounts.executionMode: trader_choice` may it differ from the tenant's mode (else `403 execution_mode_not_allowed`); default the tenant's mode, `internalised` under `trader_choice`",
    }),
    initialDepositUsd: positiveDecimal.optional().meta({
      description:
        "Opening paper balance of an internalised account, USD; default and ceiling from the tenant's deposit policy (`accounts.deposit`: 100000 and 1000000 unless set). A routed account takes none (`deposit_not_applicable`)",
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
    executionMode: z.enum(EXECUTION_MODES),
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
    unavailable: z
      .array(z.object({ venue: z.string(), reason: z.string() }))
      .optional()
      .meta({ description: 'Routed accounts only: venues that could not be read now, and why (docs/api.md §2.5)' }),
  })
  .meta({ id: 'AccountState' });

/** `GET /accounts/{id}/positions`: the open positions (a routed account's as its venues report them). */
export const positionListView = z.object({
  positions: z.array(positionSchema),
  unavailable: z
    .array(z.object({ venue: z.string(), reason: z.string() }))
    .optional()
    .meta({ description: 'Routed accounts only: venues that could not be read now, and why (docs/api.md §2.5)' }),
});

/** `GET /accounts/{id}/open-orders`: the working orders, oldest first. */
export const openOrdersView = z.object({ orders: z.array(workingOrderSchema) });

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

/** A funding operation's amount: USD, a decimal string > 0 (never a JSON number), canonical on the way in. */
const fundingAmount = usdAmount.transform((v) => fmt(dec(v)));

/** `POST /accounts/{id}/deposits` and `/withdrawals` (docs/api.md §4.3 "Funding operations"). */
export const fundingAmountBody = z.object({ amountUsd: fundingAmount }).meta({ id: 'FundingAmount' });

/** `POST /accounts/{id}/transfers`: to another of the caller's internalised accounts. */
export const transferBody = z
  .object({
    toAccountId: z.string().min(1).max(255).meta({ description: "Another of the caller's internalised accounts" }),
    amountUsd: fundingAmount,
  })
  .meta({ id: 'FundingTransfer' });

/** A funding operation (docs/api.md §4.3 "Funding operations"). */
export const fundingOperationView = z
  .object({
    operationId: z.string(),
    type: z.enum(FUNDING_OPERATION_TYPES),
    status: z.enum(FUNDING_OPERATION_STATUSES).meta({
      description: '`completed` (the balance moved), `pending` (waits for an operator), `rejected` (nothing moved)',
    }),
    accountId: z.string().meta({ description: "A deposit's account; a withdrawal's or transfer's source" }),
    toAccountId: z.string().nullable().meta({ description: "A transfer's destination; null otherwise" }),
    amountUsd: usd,
    rejectReason: z.string().nullable(),
    createdAt: z.string(),
    decidedAt: z.string().nullable().meta({ description: 'When it left `pending` (at once when never held)' }),
  })
  .meta({ id: 'FundingOperation' });

/** `GET /accounts/{id}/funding`: the deposit, withdrawal and transfer ledger (cap 1000). */
export const fundingQuery = pageQuery(1000);

export const pageOf = (key: string, item: z.ZodType = z.record(z.string(), z.unknown())) =>
  z.object({
    [key]: z.array(item),
    nextCursor: z.string().nullable().meta({ description: 'Opaque; null at the end' }),
  });

/**
 * Schemas of the views db/views.ts maps rows to (docs/api.md §2.5, §2.6, §2.8), one per view, for the routes
 * that answer them (accounts, reports) and the OpenAPI document: a working order, a fill, a position, a
 * closed round trip. Decimals are strings, times ISO 8601. The intent itself is domain/oms/intent.ts `intentView`.
 */
import { z } from 'zod';
import { intentView } from '../domain/oms/intent.js';

const usd = z.string().meta({ description: 'Decimal string, USD' });

/** A working order (db/views.ts `workingOrderView`): the intent and what is left of it. */
export const workingOrderSchema = intentView
  .extend({ remainingQty: z.string().meta({ description: 'qty − filledQty, contracts' }) })
  .meta({ id: 'WorkingOrder' });

/** A fill (db/views.ts `fillView`). */
export const fillSchema = z
  .object({
    fillId: z.string(),
    intentId: z.string(),
    accountId: z.string(),
    venue: z.string(),
    symbol: z.string(),
    side: z.enum(['buy', 'sell']),
    qty: z.string(),
    price: usd,
    feeUsd: usd,
    liquidity: z.enum(['maker', 'taker']),
    realizedPnlUsd: usd.meta({ description: 'Realised PnL of this fill before fees, USD' }),
    venueOrderId: z.string(),
    venueTradeId: z.string(),
    executedAt: z.string(),
  })
  .meta({ id: 'Fill' });

/**
 * A position (db/views.ts `positionView`; a routed account's as its venue reports it, modules/accounts/queries/
 * venue-account.ts, with what the venue does not report null).
 */
export const positionSchema = z
  .object({
    accountId: z.string(),
    venue: z.string(),
    symbol: z.string(),
    side: z.enum(['long', 'short', 'flat']),
    qty: z.string().meta({ description: 'Signed contracts: + long, − short' }),
    avgEntryPrice: usd,
    markPrice: usd.nullable().meta({ description: 'Null without a fresh mark' }),
    notionalUsd: usd.nullable(),
    unrealizedPnlUsd: usd.nullable(),
    realizedPnlUsd: usd.nullable().meta({ description: "Null for a routed account's position" }),
    leverage: z.string().nullable().meta({ description: 'Null where the venue reports none (prediction markets)' }),
    openedAt: z.string().nullable(),
    updatedAt: z.string().nullable().meta({ description: "Null for a routed account's position" }),
  })
  .meta({ id: 'Position' });

/** A closed round trip (db/views.ts `tradeView`). */
export const tradeSchema = z
  .object({
    tradeId: z.string(),
    accountId: z.string(),
    venue: z.string(),
    symbol: z.string(),
    side: z.enum(['long', 'short']),
    qty: z.string(),
    entryPrice: usd,
    exitPrice: usd,
    realizedPnlUsd: usd,
    feesUsd: usd,
    openedAt: z.string(),
    closedAt: z.string(),
    source: z
      .enum(['platform', 'manual'])
      .meta({ description: '`platform` (paired from fills) or `manual` (imported: PnL yes, volume no)' }),
  })
  .meta({ id: 'Trade' });

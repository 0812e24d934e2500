/**
 * Schemas of the views db/views.ts maps rows to (docs/api.md §2.5, §2.6, §2.8), one per view, for the routes
 * that answer them (accounts, reports) and the OpenAPI document: a working order, a fill, a position, a
 * closed round trip. Decimals are strings, times ISO 8601. The intent itself is domain/oms/intent.ts `intentView`.
 */
import { z } from 'zod';
import { INTENT_EXAMPLE, intentView } from '../domain/oms/intent.js';

const usd = z.string().meta({ description: 'Decimal string, USD' });

/** A working order (db/views.ts `workingOrderView`): the intent and what is left of it. */
export const workingOrderSchema = intentView
  .extend({ remainingQty: z.string().meta({ description: 'qty − filledQty, contracts' }) })
  .meta({ id: 'WorkingOrder', example: { ...INTENT_EXAMPLE, remainingQty: '0.01' } });

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
  .meta({
    id: 'Fill',
    example: {
      fillId: 'fil_5c0e9b7a3d2f41e68a90',
      intentId: 'int_7f3a9c2e41b85d06e1c4',
      accountId: 'acc_3b81f0c29d6e4a7512ce',
      venue: 'paper',
      symbol: 'BTC.PAPER',
      side: 'buy',
      qty: '0.01',
      price: '64250.5',
      feeUsd: '0.2249',
      liquidity: 'taker',
      realizedPnlUsd: '0',
      venueOrderId: '91827364501',
      venueTradeId: '55120398877',
      executedAt: '2026-05-14T09:30:01.482Z',
    },
  });

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
  .meta({
    id: 'Position',
    example: {
      accountId: 'acc_3b81f0c29d6e4a7512ce',
      venue: 'paper',
      symbol: 'BTC.PAPER',
      side: 'long',
      qty: '0.01',
      avgEntryPrice: '64250.5',
      markPrice: '64410',
      notionalUsd: '644.1',
      unrealizedPnlUsd: '1.595',
      realizedPnlUsd: '0',
      leverage: '5',
      openedAt: '2026-05-14T09:30:01.482Z',
      updatedAt: '2026-05-14T09:42:10.000Z',
    },
  });

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
  .meta({
    id: 'Trade',
    example: {
      tradeId: 'trd_a41c7e92b05d36f8e217',
      accountId: 'acc_3b81f0c29d6e4a7512ce',
      venue: 'paper',
      symbol: 'BTC.PAPER',
      side: 'long',
      qty: '0.01',
      entryPrice: '64250.5',
      exitPrice: '65010',
      realizedPnlUsd: '7.595',
      feesUsd: '0.4524',
      openedAt: '2026-05-14T09:30:01.482Z',
      closedAt: '2026-05-14T13:05:44.910Z',
      source: 'platform',
    },
  });

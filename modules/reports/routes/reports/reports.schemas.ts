/** Schemas of `/api/v1/reports/*` (docs/api.md §4.7): a window over the caller's accounts. */
import { z } from 'zod';

export const reportQuery = z
  .object({
    accountId: z.string().min(1).max(255).optional().meta({ description: 'Default: every account of the caller' }),
    from: z.iso.datetime().optional().meta({ description: 'Inclusive, ISO 8601' }),
    to: z.iso.datetime().optional().meta({ description: 'Exclusive, ISO 8601' }),
    limit: z.coerce.number().int().min(1).max(1000).default(500),
  })
  .meta({ id: 'ReportWindow' });

/** A row list of the window, newest first: `{ [key]: item[] }` (orders, fills, closed positions). */
export const reportListView = (key: string, item: z.ZodType) => z.object({ [key]: z.array(item) });

export const dailyPnlView = z
  .object({
    days: z.array(
      z.object({
        date: z.string().meta({ description: 'UTC day, YYYY-MM-DD' }),
        realizedPnlUsd: z
          .string()
          .meta({ description: 'Sum of realised PnL of round trips closed that day, before fees' }),
        feesUsd: z.string(),
        netPnlUsd: z.string(),
        trades: z.number().int(),
      }),
    ),
  })
  .meta({ id: 'DailyPnl', description: 'PnL is computed from trades (docs/api.md §2.8), manual trades included.' });

export const fundingReportView = z
  .object({
    funding: z.array(
      z.object({
        accountId: z.string(),
        venue: z.string(),
        symbol: z.string(),
        hour: z.string().meta({ description: 'Start of the funding hour, ISO (UTC)' }),
        positionQty: z.string().meta({ description: 'Signed contracts held at payment (+ long, − short)' }),
        markPrice: z.string().meta({ description: 'USD' }),
        rate: z.string().meta({ description: 'Funding rate of the hour, a fraction' }),
        amountUsd: z.string().meta({ description: '−(positionQty × markPrice × rate): negative = the account paid' }),
        paidAt: z.string(),
      }),
    ),
    totalUsd: z.string(),
  })
  .meta({
    id: 'FundingReport',
    description:
      'Funding payments on paper perps, newest first. Hourly (Hyperliquid convention), by the Temporal Schedule `funding-paper`; the rate of an hour is the recorded real Hyperliquid rate at row (hour index since the Unix epoch) mod (recorded rows) of `<COIN>_perp_1h-funding_rate.csv`.',
  });

/** Schemas of `/api/v1/reports/*` (spec §4.7): a window over the caller's accounts. */
import { z } from 'zod';

export const reportQuery = z
  .object({
    accountId: z.string().min(1).optional().meta({ description: "Default: every account of the caller" }),
    from: z.iso.datetime().optional().meta({ description: 'Inclusive, ISO 8601' }),
    to: z.iso.datetime().optional().meta({ description: 'Exclusive, ISO 8601' }),
    limit: z.coerce.number().int().min(1).max(1000).default(500),
  })
  .meta({ id: 'ReportWindow' });

export const dailyPnlView = z
  .object({
    days: z.array(
      z.object({
        date: z.string().meta({ description: 'UTC day, YYYY-MM-DD' }),
        realizedPnlUsd: z.string().meta({ description: 'Sum of realised PnL of round trips closed that day, before fees' }),
        feesUsd: z.string(),
        netPnlUsd: z.string(),
        trades: z.number().int(),
      }),
    ),
  })
  .meta({ id: 'DailyPnl', description: 'PnL is computed from trades (spec §2.8), manual trades included.' });

/** Schemas of trading groups (docs/api.md §4.8 `/api/v1/trading-groups/*`, scope `prop:manage`). */
import { z } from 'zod';
import { listPage } from '../../../api/operator-common.schemas.js';

export const tradingGroupBody = z
  .object({
    name: z.string().min(1).max(120),
    leverageCaps: z.record(z.string().min(1).max(32), z.number().int().min(1).max(200)).meta({
      description: 'Venue slug → maximum leverage, enforced at compose (`400 leverage_above_cap`)',
      example: { paper: 10 },
    }),
  })
  .meta({ id: 'TradingGroupInput' });

export const tradingGroupView = z
  .object({ id: z.string(), name: z.string(), leverageCaps: z.record(z.string(), z.number()), createdAt: z.string() })
  .meta({ id: 'TradingGroup' });
export const tradingGroupPage = listPage('TradingGroupPage', tradingGroupView);

/** Schemas of risk profiles and trading groups (docs/api.md §4.8 `/api/v1/risk-profiles/*`, `/api/v1/trading-groups/*`, scope `prop:manage`). */
import { z } from 'zod';
import { listPage, usdAmount } from './operator-common.schemas.js';

export const idParams = z.object({ id: z.string().min(1) });

export const riskProfileBody = z
  .object({
    name: z.string().min(1).max(120),
    maxOrderNotionalUsd: usdAmount.nullable().optional().meta({ description: 'Largest order, qty × price (limit) or mark (market), USD; null = no limit' }),
    maxPositionNotionalUsd: usdAmount.nullable().optional().meta({ description: 'Largest position after the order, |qty| × price, USD; null = no limit' }),
  })
  .meta({ id: 'RiskProfileInput' });

export const riskProfileView = z
  .object({ id: z.string(), name: z.string(), maxOrderNotionalUsd: z.string().nullable(), maxPositionNotionalUsd: z.string().nullable(), createdAt: z.string() })
  .meta({ id: 'RiskProfile' });
export const riskProfilePage = listPage('RiskProfilePage', riskProfileView);

export const tradingGroupBody = z
  .object({
    name: z.string().min(1).max(120),
    leverageCaps: z.record(z.string().min(1), z.number().int().min(1).max(200)).meta({ description: 'Venue slug → maximum leverage, enforced at compose (`400 leverage_above_cap`)', example: { paper: 10 } }),
  })
  .meta({ id: 'TradingGroupInput' });

export const tradingGroupView = z
  .object({ id: z.string(), name: z.string(), leverageCaps: z.record(z.string(), z.number()), createdAt: z.string() })
  .meta({ id: 'TradingGroup' });
export const tradingGroupPage = listPage('TradingGroupPage', tradingGroupView);

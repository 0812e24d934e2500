/** Schemas of risk profiles (docs/api.md §4.8 `/api/v1/risk-profiles/*`, scope `prop:manage`). */
import { z } from 'zod';
import { listPage, usdAmount } from '../../../api/operator-common.schemas.js';

export const riskProfileBody = z
  .object({
    name: z.string().min(1).max(120),
    maxOrderNotionalUsd: usdAmount
      .nullable()
      .optional()
      .meta({ description: 'Largest order, qty × price (limit) or mark (market), USD; null = no limit' }),
    maxPositionNotionalUsd: usdAmount
      .nullable()
      .optional()
      .meta({ description: 'Largest position after the order, |qty| × price, USD; null = no limit' }),
  })
  .meta({ id: 'RiskProfileInput' });

export const riskProfileView = z
  .object({
    id: z.string(),
    name: z.string(),
    maxOrderNotionalUsd: z.string().nullable(),
    maxPositionNotionalUsd: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'RiskProfile' });
export const riskProfilePage = listPage('RiskProfilePage', riskProfileView);

/** Schemas of challenge templates (docs/api.md §3.5, §4.8 `/api/v1/prop-templates/*`, scope `prop:manage`). */
import { z } from 'zod';
import { fraction, listPage, listQuery, usdAmount } from '../../../api/operator-common.schemas.js';

export const templateParams = z.object({ id: z.string().min(1).max(255) });

const rules = {
  name: z.string().min(1).max(120),
  priceUsd: usdAmount.meta({ description: 'Challenge price, USD: the on-chain deposit into the firm’s PropInstance' }),
  accountSizeUsd: usdAmount.meta({ description: 'Starting balance of the challenge’s paper account, USD' }),
  profitTargetPct: fraction.meta({ description: 'Profit to pass, fraction of the account size ("0.08" = 8 %)' }),
  maxDailyLossPct: fraction.meta({
    description: 'Largest loss from the UTC day’s starting equity, fraction of the account size',
  }),
  maxDrawdownPct: fraction.meta({ description: 'Largest fall from the peak equity, fraction of the account size' }),
  minTradingDays: z
    .number()
    .int()
    .min(0)
    .max(365)
    .meta({ description: 'UTC days with at least one fill needed to pass' }),
  payoutSplitPct: fraction.meta({
    description: 'The trader’s share of the profit ("0.8" = 80 %): the payout ceiling at a pass',
  }),
  tradingGroupId: z
    .string()
    .min(1)
    .max(255)
    .nullable()
    .optional()
    .meta({ description: 'Per-venue leverage caps for the challenge accounts' }),
  riskProfileId: z
    .string()
    .min(1)
    .max(255)
    .nullable()
    .optional()
    .meta({ description: 'Order and position notional limits for the challenge accounts' }),
};

export const createTemplateBody = z
  .object({
    firmId: z.string().min(1).max(255),
    ...rules,
    venue: z
      .enum(['paper'])
      .default('paper')
      .meta({ description: 'Where challenge accounts trade (internalised: `paper`)' }),
  })
  .meta({ id: 'CreatePropTemplate' });

export const patchTemplateBody = z
  .object(Object.fromEntries(Object.entries(rules).map(([k, v]) => [k, v.optional()])))
  .meta({ id: 'PatchPropTemplate' }) as z.ZodType<Partial<z.infer<z.ZodObject<typeof rules>>>>;

export const templateListQuery = listQuery.extend({
  firmId: z.string().min(1).max(255).optional(),
  archived: z.enum(['true', 'false']).optional(),
});

export const templateView = z
  .object({
    id: z.string(),
    firmId: z.string(),
    name: z.string(),
    priceUsd: z.string(),
    accountSizeUsd: z.string(),
    profitTargetPct: z.string(),
    maxDailyLossPct: z.string(),
    maxDrawdownPct: z.string(),
    minTradingDays: z.number().int(),
    payoutSplitPct: z.string(),
    venue: z.string(),
    tradingGroupId: z.string().nullable(),
    riskProfileId: z.string().nullable(),
    archived: z.boolean(),
    createdAt: z.string(),
  })
  .meta({ id: 'PropTemplate' });

export const templatePage = listPage('PropTemplatePage', templateView);

/** Schemas of prop accounts (docs/api.md §3.5, §4.8 `/api/v1/prop-accounts/*`, §5.4 `prop:manage`). */
import { z } from 'zod';
import { listPage, listQuery } from '../../../api/operator-common.schemas.js';

export const propAccountParams = z.object({ id: z.string().min(1).max(255) });

export const PROP_ACCOUNT_STATUSES = [
  'pending_payment',
  'active',
  'passed',
  'breached',
  'funded',
  'suspended',
] as const;

export const propAccountListQuery = listQuery.extend({
  firmId: z.string().min(1).max(255).optional(),
  status: z.enum(PROP_ACCOUNT_STATUSES).optional(),
});

/**
 * The record fields a prop account answers with, as the operator (`PropAccount`) and the trader
 * (`Challenge`, challenges.schemas.ts) both see them: USD paid out so far, the attempt number, the
 * deposit's transaction hash, when it passed / breached (ISO 8601, null until then) and when it was created.
 */
export const propAccountRecordFields = {
  paidOutUsd: z.string(),
  attempt: z.number().int(),
  depositTxHash: z.string().nullable(),
  passedAt: z.string().nullable(),
  breachedAt: z.string().nullable(),
  createdAt: z.string(),
};

export const propAccountViewSchema = z
  .object({
    id: z.string(),
    firmId: z.string(),
    templateId: z.string(),
    accountId: z.string(),
    ownerId: z.string(),
    status: z.enum(PROP_ACCOUNT_STATUSES),
    startingBalanceUsd: z.string(),
    peakEquityUsd: z.string(),
    tradingDays: z.number().int(),
    breachReason: z.string().nullable(),
    payoutCeilingUsd: z.string().nullable(),
    ...propAccountRecordFields,
  })
  .meta({ id: 'PropAccount' });

export const propAccountPage = listPage('PropAccountPage', propAccountViewSchema);

/** Schemas of `PATCH /api/v1/accounts/{id}/suspension` (docs/api.md §4.8, §5.4 `prop:manage`). */
import { z } from 'zod';

export const suspensionBody = z
  .object({
    suspended: z.boolean(),
    reason: z.string().min(1).max(500).optional().meta({ description: 'Shown to the trader in `account_suspended`' }),
  })
  .meta({ id: 'AccountSuspension' });

export const suspensionView = z
  .object({
    accountId: z.string(),
    suspended: z.boolean(),
    suspendedAt: z.string().nullable(),
    reason: z.string().nullable(),
  })
  .meta({ id: 'AccountSuspensionState' });

/** Schemas of `/api/v1/oms/brackets/*` (docs/api.md §3.3, §4.4). */
import { z } from 'zod';

const triggerNumber = z
  .number()
  .positive()
  .meta({ description: 'Trigger price, USD, a JSON number (docs/api.md §4.4)' });
const oneOf = (b: { tpPrice?: number; slPrice?: number }) => b.tpPrice !== undefined || b.slPrice !== undefined;
/** The two legs' triggers (at least one is required). */
const legs = { tpPrice: triggerNumber.optional(), slPrice: triggerNumber.optional() };
/** An id or symbol, bounded by its column (varchar(255)). */
const ref = z.string().min(1).max(255);
/** `POST /oms/brackets/attach` (docs/api.md §4.4): take-profit and/or stop-loss on a parent intent's fill. */
export const attachBracketBody = z
  .object({ parentIntentId: ref, ...legs })
  .refine(oneOf, { message: 'send tpPrice, slPrice or both' })
  .meta({ id: 'AttachBracket' });
/** `POST /oms/brackets/attach-to-position`: the same on the open position in `symbol`. */
export const attachToPositionBody = z
  .object({ symbol: ref, accountId: ref.optional(), ...legs })
  .refine(oneOf, { message: 'send tpPrice, slPrice or both' })
  .meta({ id: 'AttachBracketToPosition' });
/** `POST /oms/brackets/modify`: move one or both legs. */
export const modifyBracketBody = z
  .object({ bracketId: ref, ...legs })
  .refine(oneOf, { message: 'send tpPrice, slPrice or both' })
  .meta({ id: 'ModifyBracket' });
export const bracketParams = z.object({ bracketId: ref });
export const bracketView = z
  .object({
    bracketId: z.string(),
    accountId: z.string(),
    parentIntentId: z.string().nullable(),
    state: z.enum(['staged', 'armed', 'closed', 'canceled']),
    staged: z.boolean(),
    symbol: z.string(),
    tpPrice: z.string().nullable(),
    slPrice: z.string().nullable(),
    legs: z.object({ tp: z.string().nullable(), sl: z.string().nullable() }),
    filledLeg: z.enum(['tp', 'sl']).nullable(),
  })
  .meta({
    id: 'Bracket',
    description:
      '`staged` until the parent fills; then reduce-only take_profit and stop legs; one filling cancels the other (OCO).',
  });

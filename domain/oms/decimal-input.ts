/**
 * Decimal request fields (docs/api.md §2.6): a decimal string (preferred) or a JSON number, coerced
 * exactly to a canonical decimal string. Numbers go through their shortest round-trip form,
 * so `0.1` becomes `"0.1"`; no float arithmetic ever happens on them.
 */
import { z } from 'zod';
import { dec, fmt } from '../decimal.js';

const DECIMAL = /^(?:0|[1-9]\d*)(?:\.\d+)?$/;

/** A strictly positive decimal given as a string or a number; output: canonical decimal string. */
export const positiveDecimal = z
  .union([z.string().max(64).regex(DECIMAL, 'must be a plain decimal string such as "0.01"'), z.number().finite()])
  .transform((v, ctx) => {
    const d = dec(v);
    if (d.lte(0)) {
      ctx.addIssue({ code: 'custom', message: 'must be greater than 0' });
      return z.NEVER;
    }
    return fmt(d);
  })
  .meta({ description: 'Decimal string (preferred) or number, > 0', example: '0.01' });

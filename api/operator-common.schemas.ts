/**
 * Field schemas shared by the operator surfaces (docs/api.md §4.8): USD amounts and fractions as decimal
 * strings (never JS numbers: money stays decimal end to end), EVM addresses, list pages.
 */
import { z } from 'zod';
import { isAddress } from 'viem';
import { Decimal, isPlainDecimal } from '../domain/decimal.js';
import { pageQuery } from '../domain/pagination.js';

/** A USD amount > 0 as a decimal string (`"100"`, `"2500.50"`). */
export const usdAmount = z
  .string()
  .max(64)
  .refine(
    (v) => isPlainDecimal(v) && new Decimal(v).gt(0),
    'a decimal string greater than 0, such as "100" or "2500.50"',
  )
  .meta({ description: 'USD, decimal string', example: '100' });

/** A fraction 0 < x ≤ 1 as a decimal string (`"0.08"` = 8 %). */
export const fraction = z
  .string()
  .max(64)
  .refine(
    (v) => isPlainDecimal(v) && new Decimal(v).gt(0) && new Decimal(v).lte(1),
    'a decimal string greater than 0 and at most 1, such as "0.08"',
  )
  .meta({ description: 'Fraction as a decimal string: "0.08" = 8 %', example: '0.08' });

/** An EVM address (0x + 40 hex; a mixed-case one must carry a valid EIP-55 checksum). */
export const evmAddress = z
  .string()
  .refine((v) => isAddress(v), 'an EVM address (0x + 40 hex, EIP-55 checksum when mixed-case)')
  .meta({ description: 'EVM address', example: '0x5FbDB2315678afecb367f032d93F642f64180aa3' });

/** The answer of a `DELETE` of a collection row (api/collection.ts): `{ id, deleted: true }`. */
export const deletedView = z.object({ id: z.string(), deleted: z.literal(true) }).meta({ id: 'Deleted' });

/** `?limit=&cursor=` (default 100, cap 500), newest first. */
export const listQuery = pageQuery(500);

/** A page of `item`: `{ data, nextCursor, hasMore }`. */
export const listPage = (id: string, item: z.ZodType) =>
  z.object({ data: z.array(item), nextCursor: z.string().nullable(), hasMore: z.boolean() }).meta({ id });

/** `{ id }` of one row of an operator collection (risk profiles, trading groups). */
export const idParams = z.object({ id: z.string().min(1).max(255) });

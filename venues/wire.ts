/**
 * What the venues' wire modules (activities/venues/<venue>/wire.ts) share: the field kinds their
 * JSON shapes (zod schemas, checked by venues/http.ts) are written with, each wire.ts
 * saying its venue's units; and the reading of a venue's order-status table.
 */
import { z } from 'zod';
import type { OrderStatus } from '../domain/oms/intent.js';

/** A text field. */
export const text = z.string();
/** A decimal number sent as text (`"0.001"`): prices, sizes, fees. */
export const decimal = z.string();
/** A JSON number: ids, counts, cents, epoch times. */
export const int = z.number();
/** A number the adapter reads with `Number()` / `String()`: a JSON number, or the same as text. */
export const numberish = z.union([z.number(), z.string()]);

/**
 * The platform status of a venue status by `table` (keys lower-case; the status is compared
 * lower-case). @throws Error `unknown <venue> order status <status>` on one the table does not know.
 */
export function statusReader(venue: string, table: Record<string, OrderStatus>): (status: string) => OrderStatus {
  return (status) => {
    const s = table[status.toLowerCase()];
    if (!s) throw new Error(`unknown ${venue} order status ${status}`);
    return s;
  };
}

/**
 * Schemas of `GET /api/v1/accounts/{id}/order-history` (docs/api.md §4.3, §3.2, §8: cap 1000).
 */
import { z } from 'zod';
import { COMPOSE_VENUES, ORDER_STATUSES } from '../../../../domain/oms/intent.js';
import { pageQuery } from '../../../../domain/pagination.js';

export const orderHistoryQuery = pageQuery(1000).extend({
  venue: z.enum(COMPOSE_VENUES).optional().meta({ description: 'One venue; default every venue the account trades' }),
  symbol: z.string().min(1).max(64).optional().meta({
    description: 'Venue-suffixed symbol (`BTC.HL`); venue-native ids for instruments the platform does not list',
  }),
  status: z.enum(ORDER_STATUSES).optional().meta({ description: 'Venue order status (docs/api.md §3.2)' }),
});

export const venueOrderView = z
  .object({
    venue: z.string(),
    venueOrderId: z.string().meta({ description: "The venue's order id (paper: platform-minted)" }),
    clientOrderId: z
      .string()
      .nullable()
      .meta({ description: 'The client order id the venue holds (the platform derives it from the intent id)' }),
    intentId: z.string().nullable().meta({
      description: 'The platform intent that placed it; null for an order placed in the venue’s own interface',
    }),
    source: z
      .enum(['platform', 'venue'])
      .meta({ description: '`venue`: placed outside the platform (the venue’s own interface or another client)' }),
    symbol: z.string(),
    side: z.enum(['buy', 'sell']),
    type: z.string(),
    qty: z.string(),
    price: z.string().nullable(),
    status: z.enum(ORDER_STATUSES),
    filledQty: z.string(),
    avgFillPrice: z.string().nullable(),
    updatedAt: z.string(),
  })
  .meta({ id: 'VenueOrder' });

export const orderHistoryView = z.object({ orders: z.array(venueOrderView), nextCursor: z.string().nullable() }).meta({
  id: 'OrderHistory',
  description: 'Newest change first. No `hasMore` (account history route, docs/api.md §8).',
});

/** Response schemas of `GET /api/v1/venues` and `GET /api/v1/symbols/{venue}` (docs/api.md §4.2), documented in the OpenAPI document. */
import { z } from 'zod';

/** One venue adapter the tenant offers (modules/market/presenters/venues.ts `venueCatalog`). */
const venueView = z
  .object({
    slug: z.string().meta({ description: 'Venue slug, e.g. `hyperliquid`' }),
    assetClasses: z.array(z.enum(['perp', 'prediction'])).meta({ description: 'Those of its offered symbols' }),
    orderTypes: z.array(z.string()),
    timeInForce: z.array(z.string()),
    symbolSuffix: z.string().meta({ description: 'Suffix of its symbols, e.g. `HL` in `BTC.HL`' }),
    wired: z
      .literal(true)
      .meta({ description: 'Always true: a venue this deployment does not dispatch to is not listed' }),
  })
  .meta({ id: 'Venue' });

/** `GET /api/v1/venues`. */
export const venueListView = z.object({ venues: z.array(venueView) });

/** One symbol (modules/market/presenters/venues.ts `symbolView`). */
const symbolView = z
  .object({
    symbol: z.string().meta({ description: 'Venue-suffixed, e.g. `BTC.PAPER`' }),
    base: z.string(),
    quote: z.literal('USD'),
    assetClass: z.enum(['perp', 'prediction']),
    tickSize: z.string().meta({ description: 'Minimum price increment, USD decimal string' }),
    szDecimals: z.number().int().meta({ description: 'Decimal places of an order size (contracts)' }),
    maxLeverage: z.number(),
    venueSymbol: z.string().nullable().meta({ description: "The venue's own instrument id; null on `paper`" }),
  })
  .meta({ id: 'Symbol' });

/** `GET /api/v1/symbols/{venue}`. */
export const symbolListView = z.object({ venue: z.string(), symbols: z.array(symbolView) });

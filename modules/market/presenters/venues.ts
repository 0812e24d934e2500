/**
 * What `GET /api/v1/venues` and `GET /api/v1/symbols/{venue}` show a tenant (docs/api.md §4.2): the venue
 * adapters and symbols this deployment trades that the tenant's `venues` section offers (docs/api.md §2.4).
 * A venue's asset classes are those of the symbols it offers, so nothing is listed that has no symbol.
 */
import { VENUE_SUFFIX, VENUE_SYMBOLS, type SymbolSpec } from '../../../domain/market/symbols.js';
import { ORDER_TYPES, TIME_IN_FORCE } from '../../../domain/oms/intent.js';
import { enabledSymbols, type TenantVenues } from '../../../domain/tenant/entitlements.js';

/** The venue adapters `/api/v1/venues` may list, with their order types and times in force; `paper` is never listed. */
const VENUE_ADAPTERS = {
  hyperliquid: { orderTypes: [...ORDER_TYPES], timeInForce: [...TIME_IN_FORCE] },
  aster: { orderTypes: [...ORDER_TYPES], timeInForce: [...TIME_IN_FORCE] },
  polymarket: { orderTypes: ['market', 'limit'], timeInForce: ['Gtc', 'Ioc'] },
  kalshi: { orderTypes: ['market', 'limit'], timeInForce: ['Gtc', 'Ioc'] },
} as const;

/**
 * The venues the tenant offers that have at least one offered symbol: `{ slug, assetClasses, orderTypes,
 * timeInForce, symbolSuffix, wired }`, `assetClasses` those of the offered symbols, `wired` always true
 * (a venue this deployment does not dispatch to is not listed).
 */
export function venueCatalog(venues: TenantVenues) {
  return Object.entries(VENUE_ADAPTERS).flatMap(([slug, adapter]) => {
    const assetClasses = [...new Set(enabledSymbols(venues, slug, VENUE_SYMBOLS[slug] ?? []).map((s) => s.assetClass))];
    if (!assetClasses.length) return [];
    return [
      {
        slug,
        assetClasses,
        orderTypes: [...adapter.orderTypes],
        timeInForce: [...adapter.timeInForce],
        symbolSuffix: VENUE_SUFFIX[slug as keyof typeof VENUE_SUFFIX],
        wired: true,
      },
    ];
  });
}

/** One symbol as `/api/v1/symbols/{venue}` shows it. */
export function symbolView(s: SymbolSpec) {
  return {
    symbol: s.symbol,
    base: s.base,
    quote: s.quote,
    assetClass: s.assetClass,
    tickSize: s.tickSize,
    szDecimals: s.szDecimals,
    maxLeverage: s.maxLeverage,
    venueSymbol: s.venueSymbol ?? null,
  };
}

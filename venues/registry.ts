/**
 * The routed venue adapters by slug (a table), and the nonce unit each venue's agent key uses
 * (docs/venues.md: Hyperliquid ms, Aster µs; Polymarket and Kalshi sign timestamps in ms).
 */
import { hyperliquidAdapter } from './hyperliquid/adapter.js';
import { asterAdapter } from './aster/adapter.js';
import { polymarketAdapter } from './polymarket/adapter.js';
import { kalshiAdapter } from './kalshi/adapter.js';
import type { RoutedVenue, VenueAdapter } from './types.js';

/** Adapter of each routed venue. */
export const ADAPTERS: Record<RoutedVenue, VenueAdapter> = {
  hyperliquid: hyperliquidAdapter,
  aster: asterAdapter,
  polymarket: polymarketAdapter,
  kalshi: kalshiAdapter,
};

/**
 * Whether placing an order on the venue signs a nonce of ours (`VenueContext.nextNonce`): Hyperliquid's action nonce,
 * Aster's request nonce. Polymarket's order `timestamp` is the clock's (its own V2 client's `Date.now()`; the salt
 * makes the order unique) and Kalshi signs its request's own timestamp: no nonce of ours.
 * Routed dispatch allocates such an order's nonce beside the intent's record (modules/oms/activities/routed.ts).
 */
export const NONCE_AT_PLACE: Record<RoutedVenue, boolean> = {
  hyperliquid: true,
  aster: true,
  polymarket: false,
  kalshi: false,
};

/** Nonce unit of each venue's agent key (db/agent-nonces.ts). */
export const NONCE_UNIT: Record<RoutedVenue, 'ms' | 'us'> = {
  hyperliquid: 'ms',
  aster: 'us',
  polymarket: 'ms',
  kalshi: 'ms',
};

/**
 * The venues whose marks follow their own public WebSocket under `VENUE_FEEDS=live` (docs/architecture.md
 * "Market data", docs/venues.md §1.8, §2.4, §3.5), as one table: the venue, its socket URL from its REST base
 * URL, the feed class. The worker (worker/worker.ts) starts one feed per venue for that venue's symbols and keeps
 * the replay for the rest.
 */
import type { Logger } from 'pino';
import type { TapePrint } from '../../../domain/market/replay.js';
import type { SymbolSpec } from '../../../domain/market/symbols.js';
import type { MarkTick } from '../../../domain/market/types.js';
import { AsterMarkFeed, asterWsUrl } from './venue-feed-aster.js';
import { HyperliquidMarkFeed, hyperliquidWsUrl } from './venue-feed-hyperliquid.js';
import { PolymarketMarkFeed, polymarketWsUrl } from './venue-feed-polymarket.js';
import type { VenueFeedOptions, VenueMarkFeed } from './venue-feed.js';

/** Per live venue: its socket URL from the REST base URL, and its feed. */
const LIVE_VENUES = {
  hyperliquid: { wsUrl: hyperliquidWsUrl, Feed: HyperliquidMarkFeed },
  aster: { wsUrl: asterWsUrl, Feed: AsterMarkFeed },
  polymarket: { wsUrl: polymarketWsUrl, Feed: PolymarketMarkFeed },
} satisfies Record<string, { wsUrl: (apiUrl: string) => string; Feed: new (o: VenueFeedOptions) => VenueMarkFeed }>;

/** Whether `venue`'s marks follow its WebSocket under `VENUE_FEEDS=live` (else the replay publishes them). */
export const isLiveVenue = (venue: string): venue is keyof typeof LIVE_VENUES => venue in LIVE_VENUES;

/**
 * Starts one live feed per venue of {@link LIVE_VENUES} that has symbols in `symbols`, against `apiUrls[venue]`'s
 * socket, handing each tick to `onTick`; logs stale and fresh edges and errors. Answers the started feeds (stop
 * them at shutdown).
 */
export function startLiveFeeds(opts: {
  symbols: readonly SymbolSpec[];
  apiUrls: Record<keyof typeof LIVE_VENUES, string>;
  onTick: (tick: MarkTick, prints: TapePrint[]) => Promise<void>;
  logger: Logger;
}): VenueMarkFeed[] {
  const { logger } = opts;
  return Object.entries(LIVE_VENUES).flatMap(([venue, { wsUrl, Feed }]) => {
    const symbols = opts.symbols.filter((s) => s.venue === venue);
    if (!symbols.length) return [];
    const url = wsUrl(opts.apiUrls[venue as keyof typeof LIVE_VENUES]);
    const feed = new Feed({
      url,
      symbols,
      onTick: opts.onTick,
      onStale: (symbol, stale) =>
        stale
          ? logger.warn({ symbol, url }, 'live mark feed: no book data, symbol stale')
          : logger.info({ symbol, url }, 'live mark feed: symbol fresh again'),
      onError: (err) => logger.warn({ err, url }, 'live mark feed error'),
    });
    feed.start();
    logger.info({ venue, url }, 'live mark feed started');
    return [feed];
  });
}

/**
 * The venues whose marks follow their own public WebSocket under `VENUE_FEEDS=live` (docs/architecture.md
 * "Market data", docs/venues.md §1.8, §2.4, §3.5, §4.4), as one table: the venue, its socket URL from its REST base
 * URL and how its feed is built. Which venues can go live, and why one cannot without credentials (Kalshi, which
 * authenticates even its market data, without the platform's read key), is domain/market/live-venues.ts, so the api
 * labels its answers' `source` by the same rule. The worker (worker/worker.ts) starts one feed per live venue for that venue's
 * symbols and keeps the replay for the rest.
 */
import type { Logger } from 'pino';
import type { TapePrint } from '../../../domain/market/replay.js';
import type { SymbolSpec } from '../../../domain/market/symbols.js';
import type { MarkTick } from '../../../domain/market/types.js';
import { liveFeedGap, type LiveFeedKeys, type LiveFeedVenue } from '../../../domain/market/live-venues.js';
import { AsterMarkFeed, asterWsUrl } from './venue-feed-aster.js';
import { HyperliquidMarkFeed, hyperliquidWsUrl } from './venue-feed-hyperliquid.js';
import { KalshiMarkFeed, kalshiWsUrl } from './venue-feed-kalshi.js';
import { PolymarketMarkFeed, polymarketWsUrl } from './venue-feed-polymarket.js';
import type { VenueFeedOptions, VenueMarkFeed } from './venue-feed.js';

/** The worker's and the tests' way in to the live decision (defined in domain/market/live-venues.ts for the api too). */
export { isLiveVenue } from '../../../domain/market/live-venues.js';

/** A live venue's socket URL from its REST base URL, and its feed. */
interface LiveVenue {
  wsUrl: (apiUrl: string) => string;
  feed: (o: VenueFeedOptions, keys: LiveFeedKeys) => VenueMarkFeed;
}

/**
 * Per live venue (module doc); which venues these are, and when one lacks its credentials, is
 * domain/market/live-venues.ts (`isLiveVenue`, `liveFeedGap`), which the api's `source` labels read too.
 */
const LIVE_VENUES = {
  hyperliquid: { wsUrl: hyperliquidWsUrl, feed: (o) => new HyperliquidMarkFeed(o) },
  aster: { wsUrl: asterWsUrl, feed: (o) => new AsterMarkFeed(o) },
  polymarket: { wsUrl: polymarketWsUrl, feed: (o) => new PolymarketMarkFeed(o) },
  kalshi: { wsUrl: kalshiWsUrl, feed: (o, keys) => new KalshiMarkFeed({ ...o, key: keys.kalshi! }) },
} satisfies Record<LiveFeedVenue, LiveVenue>;

const NO_KEYS: LiveFeedKeys = { kalshi: null };

/**
 * Starts one live feed per venue of {@link LIVE_VENUES} that has symbols in `symbols` (others are ignored), against
 * `apiUrls[venue]`'s socket, handing each tick to `onTick`; logs stale and fresh edges and errors. A venue with
 * symbols that cannot go live with `keys` (Kalshi without its read key) gets one warning saying why, and no feed (its
 * symbols stay on the replay, domain/market/live-venues.ts `isLiveVenue`). Answers the started feeds (stop them at shutdown).
 */
export function startLiveFeeds(opts: {
  symbols: readonly SymbolSpec[];
  apiUrls: Record<LiveFeedVenue, string>;
  keys?: LiveFeedKeys;
  onTick: (tick: MarkTick, prints: TapePrint[]) => Promise<void>;
  logger: Logger;
}): VenueMarkFeed[] {
  const { logger } = opts;
  const keys = opts.keys ?? NO_KEYS;
  return (Object.entries(LIVE_VENUES) as [LiveFeedVenue, LiveVenue][]).flatMap(([venue, { wsUrl, feed: build }]) => {
    const symbols = opts.symbols.filter((s) => s.venue === venue);
    if (!symbols.length) return [];
    const gap = liveFeedGap(venue, keys);
    if (gap !== null) {
      logger.warn({ venue }, `live mark feed not started: ${gap}`);
      return [];
    }
    const url = wsUrl(opts.apiUrls[venue]);
    const feed = build(
      {
        url,
        symbols,
        onTick: opts.onTick,
        onStale: (symbol, stale) =>
          stale
            ? logger.warn({ symbol, url }, 'live mark feed: no book data, symbol stale')
            : logger.info({ symbol, url }, 'live mark feed: symbol fresh again'),
        onError: (err) => logger.warn({ err, url }, 'live mark feed error'),
      },
      keys,
    );
    feed.start();
    logger.info({ venue, url }, 'live mark feed started');
    return [feed];
  });
}

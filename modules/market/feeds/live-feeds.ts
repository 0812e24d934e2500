/**
 * The venues whose marks follow their own public WebSocket under `VENUE_FEEDS=live` (docs/architecture.md
 * "Market data", docs/venues.md §1.8, §2.4, §3.5, §4.4), as one table: the venue, its socket URL from its REST base
 * URL, how its feed is built, and for a venue that authenticates even its market data (Kalshi) why it cannot go live
 * without the platform's read key. The worker (worker/worker.ts) starts one feed per live venue for that venue's
 * symbols and keeps the replay for the rest.
 */
import type { Logger } from 'pino';
import type { TapePrint } from '../../../domain/market/replay.js';
import type { SymbolSpec } from '../../../domain/market/symbols.js';
import type { MarkTick } from '../../../domain/market/types.js';
import { AsterMarkFeed, asterWsUrl } from './venue-feed-aster.js';
import { HyperliquidMarkFeed, hyperliquidWsUrl } from './venue-feed-hyperliquid.js';
import { KalshiMarkFeed, kalshiWsUrl, type KalshiFeedKey } from './venue-feed-kalshi.js';
import { PolymarketMarkFeed, polymarketWsUrl } from './venue-feed-polymarket.js';
import type { VenueFeedOptions, VenueMarkFeed } from './venue-feed.js';

/** The platform-level credentials of the venues whose market data needs one (config.ts `venues.feedKeys`). */
export interface LiveFeedKeys {
  /** Kalshi's read key (`KALSHI_FEED_KEY_ID`, `KALSHI_FEED_PRIVATE_KEY`), or null when unset. */
  kalshi: KalshiFeedKey | null;
}

/** A live venue: its socket URL from the REST base URL, its feed, and (when it needs credentials) why it lacks them. */
interface LiveVenue {
  wsUrl: (apiUrl: string) => string;
  feed: (o: VenueFeedOptions, keys: LiveFeedKeys) => VenueMarkFeed;
  /** Why the venue cannot follow its socket with `keys` (it stays on the replay), or null when it can. */
  unavailable?: (keys: LiveFeedKeys) => string | null;
}

/** Per live venue (module doc). */
const LIVE_VENUES = {
  hyperliquid: { wsUrl: hyperliquidWsUrl, feed: (o) => new HyperliquidMarkFeed(o) },
  aster: { wsUrl: asterWsUrl, feed: (o) => new AsterMarkFeed(o) },
  polymarket: { wsUrl: polymarketWsUrl, feed: (o) => new PolymarketMarkFeed(o) },
  kalshi: {
    wsUrl: kalshiWsUrl,
    feed: (o, keys) => new KalshiMarkFeed({ ...o, key: keys.kalshi! }),
    unavailable: (keys) =>
      keys.kalshi
        ? null
        : 'KALSHI_FEED_KEY_ID and KALSHI_FEED_PRIVATE_KEY are not both set: Kalshi signs even its market-data socket, so the *.KX marks keep the replay',
  },
} satisfies Record<string, LiveVenue>;

type LiveVenueName = keyof typeof LIVE_VENUES;

const NO_KEYS: LiveFeedKeys = { kalshi: null };

/** Why `venue` cannot follow its socket with `keys`, or null when it can (or is no live venue). */
const gapOf = (venue: LiveVenueName, keys: LiveFeedKeys): string | null =>
  (LIVE_VENUES[venue] as LiveVenue).unavailable?.(keys) ?? null;

/**
 * Whether `venue`'s marks follow its WebSocket under `VENUE_FEEDS=live` with the credentials `keys` (default none:
 * Kalshi then is not live); else the replay publishes them.
 */
export const isLiveVenue = (venue: string, keys: LiveFeedKeys = NO_KEYS): venue is LiveVenueName =>
  venue in LIVE_VENUES && gapOf(venue as LiveVenueName, keys) === null;

/**
 * Starts one live feed per venue of {@link LIVE_VENUES} that has symbols in `symbols` (others are ignored), against
 * `apiUrls[venue]`'s socket, handing each tick to `onTick`; logs stale and fresh edges and errors. A venue with
 * symbols that cannot go live with `keys` (Kalshi without its read key) gets one warning saying why, and no feed (its
 * symbols stay on the replay, {@link isLiveVenue}). Answers the started feeds (stop them at shutdown).
 */
export function startLiveFeeds(opts: {
  symbols: readonly SymbolSpec[];
  apiUrls: Record<LiveVenueName, string>;
  keys?: LiveFeedKeys;
  onTick: (tick: MarkTick, prints: TapePrint[]) => Promise<void>;
  logger: Logger;
}): VenueMarkFeed[] {
  const { logger } = opts;
  const keys = opts.keys ?? NO_KEYS;
  return (Object.entries(LIVE_VENUES) as [LiveVenueName, LiveVenue][]).flatMap(([venue, { wsUrl, feed: build }]) => {
    const symbols = opts.symbols.filter((s) => s.venue === venue);
    if (!symbols.length) return [];
    const gap = gapOf(venue, keys);
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

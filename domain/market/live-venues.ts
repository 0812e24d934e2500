/**
 * Where a pair's market data comes from in a deployment (docs/architecture.md "Market data", docs/venues.md §1.8,
 * §2.4, §3.5, §4.4, docs/api.md §4.6): under `VENUE_FEEDS=live` the venues of {@link LIVE_FEED_VENUES} follow their
 * own public WebSocket, Kalshi only with the platform's read key; every other pair (paper, and any pair under
 * `VENUE_FEEDS=replay`) replays a recording. The one decision both the worker (modules/market/feeds/live-feeds.ts
 * starts the feeds) and the api (modules/market/queries/market.ts labels the answers' `source`) take.
 */

/** The platform-level credentials of the venues whose market data needs one (config.ts `venues.feedKeys`). */
export interface LiveFeedKeys {
  /** Kalshi's read key (`KALSHI_FEED_KEY_ID`, `KALSHI_FEED_PRIVATE_KEY` PEM), or null when unset. */
  kalshi: { keyId: string; privateKeyPem: string } | null;
}

/** No credentials: the venues that need one are not live. */
const NO_KEYS: LiveFeedKeys = { kalshi: null };

/**
 * Per venue that can follow its own socket: why it cannot with the credentials given (it then stays on the
 * replay), or null when it can.
 */
const LIVE_FEED_VENUES = {
  hyperliquid: () => null,
  aster: () => null,
  polymarket: () => null,
  kalshi: (keys: LiveFeedKeys) =>
    keys.kalshi
      ? null
      : 'KALSHI_FEED_KEY_ID and KALSHI_FEED_PRIVATE_KEY are not both set: Kalshi signs even its market-data socket, so the *.KX marks keep the replay',
} satisfies Record<string, (keys: LiveFeedKeys) => string | null>;

/** A venue that can follow its own WebSocket (`hyperliquid`, `aster`, `polymarket`, `kalshi`). */
export type LiveFeedVenue = keyof typeof LIVE_FEED_VENUES;

/**
 * Why `venue` cannot follow its socket with `keys` (Kalshi without its read key: a sentence for the worker's log),
 * or null when it can. A venue outside {@link LiveFeedVenue} (paper) never can: `no live feed`.
 */
export function liveFeedGap(venue: string, keys: LiveFeedKeys = NO_KEYS): string | null {
  return venue in LIVE_FEED_VENUES ? LIVE_FEED_VENUES[venue as LiveFeedVenue](keys) : `${venue} has no live feed`;
}

/**
 * Whether `venue`'s marks follow its WebSocket under `VENUE_FEEDS=live` with the credentials `keys` (default none:
 * Kalshi then is not live); else the replay publishes them.
 */
export const isLiveVenue = (venue: string, keys: LiveFeedKeys = NO_KEYS): venue is LiveFeedVenue =>
  liveFeedGap(venue, keys) === null;

/** What decides a deployment's market-data sources: config.ts `venueFeeds` and `venues.feedKeys`. */
export interface MarketFeeds {
  /** `VENUE_FEEDS`: `live` = the live venues follow their sockets, `replay` = every pair replays. */
  venueFeeds: 'replay' | 'live';
  feedKeys: LiveFeedKeys;
}

/**
 * Whether `venue`'s marks (and, for the perps, tape) come from the venue itself in a deployment configured `feeds`:
 * `VENUE_FEEDS=live` and {@link isLiveVenue}.
 */
export const followsVenue = (feeds: MarketFeeds, venue: string): venue is LiveFeedVenue =>
  feeds.venueFeeds === 'live' && isLiveVenue(venue, feeds.feedKeys);

/**
 * Every value of a quote's, tape's or stats' `source` (docs/api.md §4.6), with its meaning: the venue's own
 * WebSocket (`live:<venue>`), or the recording a replayed pair follows.
 */
export const MARK_SOURCES = {
  'live:hyperliquid': "Hyperliquid's own WebSocket (`VENUE_FEEDS=live`, `*.HL`)",
  'live:aster': "Aster's own WebSocket (`VENUE_FEEDS=live`, `*.ASTER`)",
  'live:polymarket': "Polymarket's own WebSocket (`VENUE_FEEDS=live`, `*.PM`)",
  'live:kalshi': "Kalshi's own WebSocket (`VENUE_FEEDS=live` with the platform's Kalshi read key, `*.KX`)",
  'replay:hyperliquid': 'the recorded Hyperliquid coin, replayed (paper, and every perp under `VENUE_FEEDS=replay`)',
  'replay:polymarket':
    'the recorded daily prices of a Polymarket outcome token, replayed (prediction symbols under `VENUE_FEEDS=replay`; `*.KX` without the Kalshi read key)',
} as const satisfies Record<`live:${LiveFeedVenue}` | `replay:${'hyperliquid' | 'polymarket'}`, string>;

/** One value of {@link MARK_SOURCES}. */
export type MarkSource = keyof typeof MARK_SOURCES;

/**
 * Where a pair's marks, book and tape come from in a deployment configured `feeds` (its quotes', tape's and
 * stats' `source`): `live:<venue>` when {@link followsVenue}; else the recording it replays, `replay:polymarket`
 * for a prediction symbol (`*.PM`, `*.KX`: modules/market/feeds/prediction-marks.ts), `replay:hyperliquid` for a
 * perp (modules/market/feeds/mark-feed.ts).
 */
export function markSource(feeds: MarketFeeds, spec: { venue: string; assetClass: 'perp' | 'prediction' }): MarkSource {
  if (followsVenue(feeds, spec.venue)) return `live:${spec.venue}`;
  return spec.assetClass === 'prediction' ? 'replay:polymarket' : 'replay:hyperliquid';
}

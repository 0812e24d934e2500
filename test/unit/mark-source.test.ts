/**
 * The `source` of a quote, tape and stats answer (docs/api.md §4.6, domain/market/live-venues.ts `markSource`): a live
 * venue's pair under `VENUE_FEEDS=live` names the venue's socket, everything else the recording it replays. The
 * answers of a stack under `VENUE_FEEDS=live` are test/venues/hyperliquid-ws-worker.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { markSource, type MarketFeeds } from '../../domain/market/live-venues.js';
import { VENUE_SYMBOLS } from '../../domain/market/symbols.js';

const KALSHI_KEY = { keyId: '00000000-0000-4000-8000-000000000000', privateKeyPem: 'pem' };

/** The source of each venue's first symbol under `feeds`. */
const sources = (feeds: MarketFeeds) =>
  Object.fromEntries(
    ['paper', 'hyperliquid', 'aster', 'polymarket', 'kalshi'].map((v) => [v, markSource(feeds, VENUE_SYMBOLS[v][0])]),
  );

describe('markSource', () => {
  it('under VENUE_FEEDS=replay every pair names the recording it replays', () => {
    const replayed = {
      paper: 'replay:hyperliquid',
      hyperliquid: 'replay:hyperliquid',
      aster: 'replay:hyperliquid',
      polymarket: 'replay:polymarket',
      kalshi: 'replay:polymarket',
    };
    expect(sources({ venueFeeds: 'replay', feedKeys: { kalshi: null } })).toStrictEqual(replayed);
    expect(sources({ venueFeeds: 'replay', feedKeys: { kalshi: KALSHI_KEY } })).toStrictEqual(replayed);
  });

  it('under VENUE_FEEDS=live the live venues name their socket, Kalshi only with its read key; paper replays', () => {
    expect(sources({ venueFeeds: 'live', feedKeys: { kalshi: null } })).toStrictEqual({
      paper: 'replay:hyperliquid',
      hyperliquid: 'live:hyperliquid',
      aster: 'live:aster',
      polymarket: 'live:polymarket',
      kalshi: 'replay:polymarket',
    });
    expect(sources({ venueFeeds: 'live', feedKeys: { kalshi: KALSHI_KEY } }).kalshi).toBe('live:kalshi');
  });
});

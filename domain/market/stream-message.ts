/**
 * What a market stream producer announces on the PostgreSQL channel `market_stream`
 * (modules/market/feeds/streams.ts) and the api fans out to `/ws/market` topics (api/ws/market-hub.ts,
 * api/ws/market.ts). Decimal strings, ISO times.
 */
import type { WireBook } from './book-delta.js';

/** Intervals aggregated live (the `candle` messages) and their lengths, ms. */
export const LIVE_INTERVALS = { '1m': 60_000, '1h': 3_600_000 } as const;

/** A tape print on the wire: decimal strings, ISO time. */
export interface WirePrint {
  tradeId: string;
  ts: string;
  price: string;
  size: string;
  side: 'buy' | 'sell';
}

/** What a producer announces on `market_stream` (the api fans these out to `/ws/market` topics). */
export type StreamMessage =
  | {
      k: 'book';
      venue: string;
      symbol: string;
      bookSeq: number;
      prevBookSeq: number | null;
      ts: string;
      book: WireBook;
      delta: WireBook | null;
      bbo: { bid: string; ask: string; mark: string };
    }
  | { k: 'trades'; venue: string; symbol: string; prints: WirePrint[] }
  | {
      k: 'vap';
      venue: string;
      symbol: string;
      ts: string;
      bucket: string;
      levels: { price: string; buyVolume: string; sellVolume: string }[];
      prints: number;
    }
  | { k: 'candle'; venue: string; symbol: string; interval: string; bar: Record<string, unknown> };

/**
 * The live mark feed of Hyperliquid symbols (docs/architecture.md "Market data"): one WebSocket to the
 * venue's public socket (`wss://api.hyperliquid.xyz/ws`, or the simulator's `/ws`), subscribed to
 * `l2Book` and `trades` of every requested coin. The lifecycle (reconnect with backoff and resubscribe,
 * ping and silent-connection reopen, staleness, the tick loop) is the shared {@link VenueMarkFeed}
 * (venue-feed.ts); this module is the Hyperliquid protocol: `{"method":"subscribe",…}` per coin and
 * channel, `{"method":"ping"}` every `pingMs` (the venue closes a connection idle for 60 s), an `l2Book`
 * frame is the coin's whole book (levels as the venue sends them), a `trades` frame lists prints (ids =
 * `tid`). Prices and sizes go from the venue's decimal strings straight to Decimal, never through a float.
 */
import { Decimal } from '../../../domain/decimal.js';
import type { BookLevel } from '../../../domain/market/types.js';
import { socketUrlOf, VenueMarkFeed, type FrameSink, type VenueFeedOptions, type VenueProtocol } from './venue-feed.js';

/** Options of {@link HyperliquidMarkFeed}: `url` as {@link hyperliquidWsUrl} builds it, `symbols` the `*.HL` ones (the coin subscribed is each one's `base`). */
export type HyperliquidMarkFeedOptions = VenueFeedOptions;

/** The venue's WebSocket URL for an API base URL: `https://api.hyperliquid.xyz` → `wss://api.hyperliquid.xyz/ws`. */
export const hyperliquidWsUrl = (apiUrl: string): string => socketUrlOf(apiUrl, '/ws');

/** One `{px, sz, n}` level as the venue sends it. */
interface WireLevel {
  px: string;
  sz: string;
  n: number;
}

const level = (l: WireLevel): BookLevel => ({ price: new Decimal(l.px), size: new Decimal(l.sz) });

/** Hyperliquid's side of the feed: `l2Book` + `trades` per coin, application ping. */
const HYPERLIQUID: VenueProtocol = {
  name: 'hyperliquid',
  keyOf: (spec) => spec.base,
  subscribe: (coins) =>
    coins.flatMap((coin) => [
      JSON.stringify({ method: 'subscribe', subscription: { type: 'l2Book', coin } }),
      JSON.stringify({ method: 'subscribe', subscription: { type: 'trades', coin } }),
    ]),
  ping: { text: '{"method":"ping"}' },
  onFrame(raw: unknown, sink: FrameSink) {
    const msg = raw as { channel?: string; data?: unknown };
    if (msg.channel === 'l2Book') {
      const d = msg.data as { coin: string; levels: [WireLevel[], WireLevel[]] };
      sink.book(d.coin, { bids: d.levels[0].map(level), asks: d.levels[1].map(level) });
    } else if (msg.channel === 'trades') {
      for (const t of msg.data as {
        coin: string;
        side: 'B' | 'A';
        px: string;
        sz: string;
        time: number;
        tid: number;
      }[])
        sink.print(t.coin, {
          tradeId: String(t.tid),
          ts: t.time,
          price: new Decimal(t.px),
          size: new Decimal(t.sz),
          side: t.side === 'B' ? 'buy' : 'sell',
        });
    } else if (msg.channel === 'error') sink.error(new Error(`hyperliquid ws: ${String(msg.data)}`));
  },
};

/**
 * A live feed of Hyperliquid marks (module doc; lifecycle in {@link VenueMarkFeed}). `start()` connects
 * (and keeps reconnecting); `stop()` closes the socket and waits for `onTick` calls in flight.
 */
export class HyperliquidMarkFeed extends VenueMarkFeed {
  /** @throws Error on a duplicate coin or a non-positive period. */
  constructor(opts: HyperliquidMarkFeedOptions) {
    super(opts, HYPERLIQUID);
  }
}

/**
 * The live mark feed of Aster symbols (docs/venues.md §2, docs/architecture.md "Market data"): one
 * WebSocket to Aster's futures market streams (`wss://fstream.asterdex.com/ws`, or the simulator's `/ws`),
 * Binance-style. On every (re)connection one `{"method":"SUBSCRIBE","params":[…],"id":1}` asks, per symbol,
 * `<symbol>@depth20@500ms` (partial book depth: the top 20 levels a side, whole, every 500 ms — each frame
 * replaces the book, so no REST snapshot and no `U`/`u`/`pu` gap resync is needed) and `<symbol>@aggTrade`
 * (the prints; id = the aggregate trade id `a`, side = the taker's: `m` true, the buyer was the maker, is a sell).
 * Raw-stream payloads are read, and combined ones (`{"stream","data"}`) too. Liveness is checked with
 * WebSocket ping frames (the venue answers them; it sends its own every 5 minutes, answered by `ws`), and the
 * venue's 24 h connection cut is an ordinary drop: reconnect, resubscribe. Lifecycle, staleness and the
 * tick loop are the shared {@link VenueMarkFeed} (venue-feed.ts). Prices and sizes go from the venue's
 * decimal strings straight to Decimal.
 */
import { Decimal } from '../../../domain/decimal.js';
import type { BookLevel } from '../../../domain/market/types.js';
import { socketUrlOf, VenueMarkFeed, type FrameSink, type VenueFeedOptions, type VenueProtocol } from './venue-feed.js';

/** Options of {@link AsterMarkFeed}: `url` as {@link asterWsUrl} builds it, `symbols` the `*.ASTER` ones (streams named by each one's lower-case `venueSymbol`). */
export type AsterMarkFeedOptions = VenueFeedOptions;

/** The partial-depth stream asked per symbol: 20 levels a side, pushed every 500 ms. */
export const ASTER_DEPTH_STREAM = 'depth20@500ms';

/**
 * The market-stream URL for an Aster REST base URL: the venue's `https://fapi.<host>` → `wss://fstream.<host>/ws`
 * (`https://fapi.asterdex.com` → `wss://fstream.asterdex.com/ws`); any other host (the simulator) keeps its host
 * and port, `http` → `ws`, path `/ws`.
 */
export const asterWsUrl = (apiUrl: string): string =>
  socketUrlOf(apiUrl, '/ws', (h) => (h.startsWith('fapi.') ? `fstream.${h.slice('fapi.'.length)}` : h));

/** A `[price, qty]` level as the venue sends it. */
type WireLevel = [string, string];

const level = (l: WireLevel): BookLevel => ({ price: new Decimal(l[0]), size: new Decimal(l[1]) });

/** Aster's side of the feed: partial depth + aggTrade per symbol, WebSocket ping frames. */
const ASTER: VenueProtocol = {
  name: 'aster',
  keyOf: (spec) => {
    if (!spec.venueSymbol) throw new Error(`${spec.symbol} has no venue symbol`);
    return spec.venueSymbol.toLowerCase();
  },
  subscribe: (keys) => [
    JSON.stringify({
      method: 'SUBSCRIBE',
      params: keys.flatMap((k) => [`${k}@${ASTER_DEPTH_STREAM}`, `${k}@aggTrade`]),
      id: 1,
    }),
  ],
  ping: 'frame',
  onFrame(raw: unknown, sink: FrameSink) {
    const outer = raw as { stream?: unknown; data?: unknown; code?: unknown; msg?: unknown };
    const msg = (typeof outer.stream === 'string' ? outer.data : outer) as Record<string, unknown>;
    if (msg.e === 'depthUpdate') {
      const key = String(msg.s).toLowerCase();
      sink.book(key, { bids: (msg.b as WireLevel[]).map(level), asks: (msg.a as WireLevel[]).map(level) });
    } else if (msg.e === 'aggTrade') {
      sink.print(String(msg.s).toLowerCase(), {
        tradeId: String(msg.a),
        ts: Number(msg.T),
        price: new Decimal(String(msg.p)),
        size: new Decimal(String(msg.q)),
        side: msg.m === true ? 'sell' : 'buy',
      });
    } else if (outer.code !== undefined) sink.error(new Error(`aster ws: ${JSON.stringify(outer)}`));
  },
};

/**
 * A live feed of Aster marks (module doc; lifecycle in {@link VenueMarkFeed}). `start()` connects (and
 * keeps reconnecting); `stop()` closes the socket and waits for `onTick` calls in flight.
 */
export class AsterMarkFeed extends VenueMarkFeed {
  /** @throws Error on a symbol without `venueSymbol`, a duplicate one or a non-positive period. */
  constructor(opts: AsterMarkFeedOptions) {
    super(opts, ASTER);
  }
}

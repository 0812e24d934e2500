/**
 * The Polymarket simulator's CLOB market channel (docs/venues.md §3), on the simulator's port at `/ws/market`,
 * as the venue serves `wss://ws-subscriptions-clob.polymarket.com/ws/market` (docs.polymarket.com, "Market
 * Channel" and its AsyncAPI description). Text frames:
 * - in: `{"assets_ids":[token ids],"type":"market"}` (the subscription on opening; `type` case-insensitive),
 *   `{"assets_ids":[…],"operation":"subscribe"|"unsubscribe"}` (later changes), `PING` (answered `PONG`);
 * - out, on each subscription: one JSON array of `book` events, one per listed token the simulator knows:
 *   `{"event_type":"book","asset_id","market","bids":[{price,size}],"asks":[{price,size}],"timestamp","hash",
 *   "tick_size","last_trade_price"}` — `market`, `asset_id`, `bids`, `asks`, `tick_size` and `last_trade_price`
 *   what `GET /book?token_id=` answers at that moment (same level order: bids and asks best last), `timestamp`
 *   and `hash` that answer's;
 * - out, when a subscribed book's levels change (checked every `intervalMs`): `{"event_type":"price_change",
 *   "market","price_changes":[{asset_id,price,size,side,hash,best_bid,best_ask}],"timestamp"}` — per changed
 *   level its new aggregate `size` (`"0"`: the level is gone), `side` `BUY` (bid) or `SELL` (ask), `hash` the new
 *   book's `GET /book` hash, `best_bid`/`best_ask` the new touch (`"0"` for an empty side);
 * - out, per fill: `{"event_type":"last_trade_price","asset_id","market","price","side","size","fee_rate_bps",
 *   "timestamp","transaction_hash"}` (`side` the taker's, `timestamp` Unix ms as a string).
 * Not imitated: `tick_size_change` (the simulator's ticks never change), `best_bid_ask`/`new_market`/
 * `market_resolved` (`custom_feature_enabled`), the user channel, the 500-asset limit, answers to malformed
 * frames (ignored). Test controls: `dropConnections()`, `silence()` (from the harness) and `loseNextChange()`
 * (the next `price_change` is not sent, as a frame lost on the way).
 */
import type { WebSocket } from 'ws';
import { socketConnections, type SimulatorSocket } from './harness.js';

/** One aggregated level as the venue sends it: price (USD per share, 0–1) and size (shares), decimal strings. */
export interface PolymarketLevel {
  price: string;
  size: string;
}

/** `GET /book?token_id=`'s answer as the simulator builds it (simulators/polymarket.ts). */
export interface PolymarketBookAnswer {
  market: string;
  asset_id: string;
  timestamp: string;
  bids: PolymarketLevel[];
  asks: PolymarketLevel[];
  min_order_size: string;
  tick_size: string;
  neg_risk: boolean;
  last_trade_price: string;
  hash: string;
}

/** One fill as `last_trade_price` shows it (decimal strings; `timestamp` Unix ms; `side` the taker's). */
export interface PolymarketTradeEvent {
  asset_id: string;
  market: string;
  price: string;
  size: string;
  side: 'BUY' | 'SELL';
  fee_rate_bps: string;
  timestamp: string;
  transaction_hash: string;
}

/** Where the channel takes its data from: the simulator's `GET /book`. */
export interface PolymarketWsSource {
  /** `GET /book?token_id=<assetId>`'s answer now, or null for a token not listed. */
  book(assetId: string): Promise<PolymarketBookAnswer | null>;
}

/** The channel's server side (module doc). */
export interface PolymarketWs extends SimulatorSocket {
  /** Sends `last_trade_price` of the fill to every subscriber of its token. */
  publishTrade(t: PolymarketTradeEvent): void;
  /** The next `price_change` frame is not sent (its book still counts as sent): a lost frame. */
  loseNextChange(): void;
}

/** A `book` event of `b` (module doc). */
const bookEvent = (b: PolymarketBookAnswer) => ({
  event_type: 'book',
  asset_id: b.asset_id,
  market: b.market,
  bids: b.bids,
  asks: b.asks,
  timestamp: b.timestamp,
  hash: b.hash,
  tick_size: b.tick_size,
  last_trade_price: b.last_trade_price,
});

/** The best of a side as the venue orders it (best last), `"0"` when empty. */
const best = (side: PolymarketLevel[]) => side.at(-1)?.price ?? '0';

/** The changed levels from `before` to `after` of one side: new size, `"0"` for a level gone. */
function changed(before: PolymarketLevel[], after: PolymarketLevel[]): PolymarketLevel[] {
  const was = new Map(before.map((l) => [l.price, l.size]));
  const now = new Map(after.map((l) => [l.price, l.size]));
  const out: PolymarketLevel[] = [];
  for (const [price, size] of now) if (was.get(price) !== size) out.push({ price, size });
  for (const price of was.keys()) if (!now.has(price)) out.push({ price, size: '0' });
  return out;
}

/**
 * The simulator's market channel (module doc) over `source`; `assetIds` are the tokens listed, `intervalMs`
 * (default 100) how often subscribed books are compared for `price_change`.
 */
export function polymarketWs(
  source: PolymarketWsSource,
  assetIds: readonly string[],
  opts: { intervalMs?: number } = {},
): PolymarketWs {
  const listed = new Set(assetIds);
  let silenced = false;
  let loseNext = false;

  const send = (ws: WebSocket, msg: unknown) => {
    if (ws.readyState === ws.OPEN && !silenced) ws.send(typeof msg === 'string' ? msg : JSON.stringify(msg));
  };

  async function snapshot(ws: WebSocket, subs: Map<string, PolymarketBookAnswer | null>, ids: string[]) {
    const events: unknown[] = [];
    for (const id of ids) {
      const b = await source.book(id);
      if (!b || !subs.has(id)) continue;
      subs.set(id, b);
      events.push(bookEvent(b));
    }
    if (events.length) send(ws, events);
  }

  let ticking = false;
  async function tick(): Promise<void> {
    if (ticking || silenced) return;
    ticking = true;
    try {
      for (const [ws, subs] of conns)
        for (const [id, last] of subs) {
          if (!last) continue;
          const b = await source.book(id);
          if (!b || subs.get(id) !== last) continue;
          const changes = [
            ...changed(last.bids, b.bids).map((l) => ({ ...l, side: 'BUY' })),
            ...changed(last.asks, b.asks).map((l) => ({ ...l, side: 'SELL' })),
          ];
          if (!changes.length) continue;
          subs.set(id, b);
          if (loseNext) {
            loseNext = false;
            continue;
          }
          send(ws, {
            event_type: 'price_change',
            market: b.market,
            price_changes: changes.map((c) => ({
              asset_id: id,
              price: c.price,
              size: c.size,
              side: c.side,
              hash: b.hash,
              best_bid: best(b.bids),
              best_ask: best(b.asks),
            })),
            timestamp: b.timestamp,
          });
        }
    } finally {
      ticking = false;
    }
  }

  function onMessage(ws: WebSocket, subs: Map<string, PolymarketBookAnswer | null>, raw: string): void {
    if (raw === 'PING') return send(ws, 'PONG');
    let msg: { assets_ids?: unknown; type?: unknown; operation?: unknown };
    try {
      msg = JSON.parse(raw) as typeof msg;
    } catch {
      return;
    }
    if (!msg || typeof msg !== 'object' || !Array.isArray(msg.assets_ids)) return;
    const ids = msg.assets_ids.filter((a): a is string => typeof a === 'string' && listed.has(a));
    const op = typeof msg.operation === 'string' ? msg.operation.toLowerCase() : undefined;
    if (op === 'unsubscribe') {
      for (const id of ids) subs.delete(id);
      return;
    }
    if (op !== 'subscribe' && (typeof msg.type !== 'string' || msg.type.toLowerCase() !== 'market')) return;
    for (const id of ids) subs.set(id, null);
    void snapshot(ws, subs, ids).catch(() => undefined);
  }

  /** Per socket: the subscribed tokens and the book last sent of each (null until its snapshot went out). */
  const sockets = socketConnections<Map<string, PolymarketBookAnswer | null>>({
    accepts: (path) => path === '/ws/market',
    intervalMs: opts.intervalMs ?? 100,
    tick,
    open(ws) {
      const subs = new Map<string, PolymarketBookAnswer | null>();
      ws.on('message', (data) => onMessage(ws, subs, Buffer.isBuffer(data) ? data.toString('utf8') : String(data)));
      return subs;
    },
  });
  const conns = sockets.conns;

  return {
    upgrade: sockets.upgrade,
    publishTrade(t) {
      for (const [ws, subs] of conns) if (subs.has(t.asset_id)) send(ws, { event_type: 'last_trade_price', ...t });
    },
    loseNextChange() {
      loseNext = true;
    },
    dropConnections: sockets.dropConnections,
    silence(on) {
      silenced = on;
    },
    connections: sockets.connections,
    lag: sockets.lag,
    close: sockets.close,
  };
}

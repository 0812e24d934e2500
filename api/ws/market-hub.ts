/**
 * Fan-out of the market streams to `/ws/market` sockets (docs/architecture.md: one producer per symbol, any
 * number of api processes). Each api process LISTENs on `market_stream` (payloads are the
 * producer's {@link StreamMessage}s, complete, so no read follows) and hands every message to the
 * listeners of its pair. While a pair has listeners here, this process keeps its demand registered
 * so the producer keeps streaming it.
 *
 * The LISTEN connection reconnects by itself (db/notices.ts); once it LISTENs again the demand of every
 * pair with listeners is registered anew (waking a producer at once if none streams it). Sockets see a gap
 * in `bookSeq` for what went by meanwhile and re-seed from the snapshot (api/ws/market.ts).
 */
import type { Logger } from 'pino';
import { startNotices } from '../../db/notices.js';
import type { MarketStreams } from '../../db/market-streams.js';
import { LIVE_INTERVALS, type StreamMessage } from '../../domain/market/stream-message.js';

/** Receives every message of one pair. */
export type MarketListener = (msg: StreamMessage) => void;

/** The market hub of one api process. */
export interface MarketHub {
  /** Listens to a pair (`<venue> <symbol>`) and registers demand for it; returns the unsubscribe. */
  subscribe(pairKey: string, fn: MarketListener): () => void;
  /** Closes its connection. */
  stop(): Promise<void>;
}

/** The `application_name` of the market hub's LISTEN connection (pg_stat_activity). */
export const MARKET_HUB_APPLICATION = 'platform-market-hub';

/** Demand of pairs with listeners is refreshed this often, ms (well inside the producer's idle window). */
const DEMAND_KEEPALIVE_MS = 60_000;

/** Candle bars arrive with PostgreSQL's timestamp text: give them ISO times, `closeTime` and `closed`. */
function normaliseCandle(msg: Extract<StreamMessage, { k: 'candle' }>): StreamMessage {
  const openMs = new Date(String(msg.bar.openTime)).getTime();
  const len = LIVE_INTERVALS[msg.interval as keyof typeof LIVE_INTERVALS] ?? 60_000;
  return {
    ...msg,
    bar: {
      ...msg.bar,
      openTime: new Date(openMs).toISOString(),
      closeTime: new Date(openMs + len - 1).toISOString(),
      closed: false,
    },
  };
}

/**
 * Starts the hub on a LISTEN connection of its own (reconnecting). Resolves once it LISTENs (or once a
 * first connection attempt failed: it keeps reconnecting with backoff); never rejects.
 */
export async function startMarketHub(databaseUrl: string, streams: MarketStreams, logger: Logger): Promise<MarketHub> {
  const subs = new Map<string, Set<MarketListener>>();
  const demand = (key: string, force = false) => {
    const [venue, symbol] = key.split(' ');
    streams.demand(venue, symbol, force).catch((err: unknown) => logger.error({ err, key }, 'market demand failed'));
  };

  const onMessage = (payload: string) => {
    if (!payload) return;
    let msg: StreamMessage;
    try {
      msg = JSON.parse(payload) as StreamMessage;
    } catch (err) {
      return void logger.error({ err }, 'bad market_stream payload');
    }
    const fns = subs.get(`${msg.venue} ${msg.symbol}`);
    if (!fns?.size) return;
    if (msg.k === 'candle') msg = normaliseCandle(msg);
    for (const fn of fns) fn(msg);
  };
  const listener = await startNotices(
    databaseUrl,
    [
      {
        channels: { market_stream: onMessage },
        // Back after a loss: the pairs with listeners are demanded again (their producer may have gone meanwhile).
        async ready() {
          for (const [key, fns] of subs) if (fns.size) demand(key, true);
        },
        up: () => undefined,
        lost: () => undefined,
      },
    ],
    logger,
    { application: MARKET_HUB_APPLICATION, name: 'market hub' },
  );
  const keepalive = setInterval(() => {
    for (const [key, fns] of subs) if (fns.size) demand(key);
  }, DEMAND_KEEPALIVE_MS);

  return {
    subscribe(pairKey, fn) {
      const fns = subs.get(pairKey) ?? subs.set(pairKey, new Set()).get(pairKey)!;
      demand(pairKey, fns.size === 0);
      fns.add(fn);
      return () => subs.get(pairKey)?.delete(fn);
    },
    async stop() {
      clearInterval(keepalive);
      await listener.stop();
    },
  };
}

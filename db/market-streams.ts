/**
 * The api's side of the on-demand market streams (docs/api.md §4.6 cold cache; modules/market/feeds/streams.ts
 * is the producer): registering demand for a pair, and reading what its producer keeps (the L2
 * book with its `bookSeq`, the tape). Demand writes are throttled per process so hot reads cost
 * one query, not two.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { platformEm } from './orm.js';
import type { WireBook } from '../domain/market/book-delta.js';

/** A pair counts as live while its producer's heartbeat is younger than this, ms (see LIVE_WITHIN_MS). */
const LIVE_WITHIN_MS = 3_000;
/** A process re-registers demand for a pair at most this often, ms. */
const DEMAND_REFRESH_MS = 10_000;

/** The streamed book of a pair: `bookSeq` increases by one per change; prices USD, sizes contracts. */
export interface StreamedBook extends WireBook {
  bookSeq: number;
  ts: string;
}

/** One print of the tape (decimal strings; `side` is the aggressor). */
export interface TapeRow {
  tradeId: string;
  ts: string;
  price: string;
  size: string;
  side: 'buy' | 'sell';
}

/** Demand and reads of market streams for one api process. */
export class MarketStreams {
  private readonly lastDemand = new Map<string, number>();

  constructor(private readonly orm: MikroORM) {}

  private exec<T extends object[]>(sql: string, params: unknown[]): Promise<T> {
    return platformEm(this.orm).getConnection().execute<T>(sql, params);
  }

  /**
   * Registers demand for a pair (keeps or starts its stream). When the pair has no live producer,
   * wakes the producers at once (NOTIFY `market_demand`). Throttled per process unless `force`.
   */
  async demand(venue: string, symbol: string, force = false): Promise<void> {
    const key = `${venue} ${symbol}`;
    const now = Date.now();
    if (!force && now - (this.lastDemand.get(key) ?? 0) < DEMAND_REFRESH_MS) return;
    this.lastDemand.set(key, now);
    await this.exec<object[]>(
      `with up as (insert into market_streams (venue, symbol, demanded_at) values (?, ?, now())
                   on conflict (venue, symbol) do update set demanded_at = now() returning heartbeat_at)
       select pg_notify('market_demand', ?) from up where up.heartbeat_at is null or up.heartbeat_at < now() - interval '${LIVE_WITHIN_MS} milliseconds'`,
      [venue, symbol, key],
    );
  }

  /** Whether a producer streams the pair now (heartbeat younger than 3 s). */
  async isLive(venue: string, symbol: string): Promise<boolean> {
    const rows = await this.exec<{ live: boolean }[]>(
      `select heartbeat_at > now() - interval '${LIVE_WITHIN_MS} milliseconds' as live from market_streams where venue = ? and symbol = ?`,
      [venue, symbol],
    );
    return rows[0]?.live === true;
  }

  /**
   * The streamed book of a live pair, or null when no producer streams it (the caller answers
   * `503 cold_cache` after {@link demand}).
   */
  async book(venue: string, symbol: string): Promise<StreamedBook | null> {
    const rows = await this.exec<{ book_seq: string; ts: Date; bids: [string, string][]; asks: [string, string][] }[]>(
      `select b.book_seq, b.ts, b.bids, b.asks from market_streams s join market_books b using (venue, symbol)
        where s.venue = ? and s.symbol = ? and s.heartbeat_at > now() - interval '${LIVE_WITHIN_MS} milliseconds'`,
      [venue, symbol],
    );
    const r = rows[0];
    return r ? { bookSeq: Number(r.book_seq), ts: new Date(r.ts).toISOString(), bids: r.bids, asks: r.asks } : null;
  }

  /** The newest `limit` prints of a pair, newest first. */
  async tape(venue: string, symbol: string, limit: number): Promise<TapeRow[]> {
    const rows = await this.exec<{ trade_id: string; ts: Date; price: string; size: string; side: 'buy' | 'sell' }[]>(
      'select trade_id, ts, price::text, size::text, side from market_trades where venue = ? and symbol = ? order by id desc limit ?',
      [venue, symbol, limit],
    );
    return rows.map((r) => ({
      tradeId: r.trade_id,
      ts: new Date(r.ts).toISOString(),
      price: r.price,
      size: r.size,
      side: r.side,
    }));
  }
}

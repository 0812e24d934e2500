/**
 * Live candle aggregation (docs/api.md §2.9, §4.6): every mark-feed tick folds into the current 1m and 1h
 * bar of its pair in `candles` (`live = true`, source {@link LIVE_CANDLE_SOURCE}): the first mark of
 * a bar opens it, high and low follow the mark, the latest mark closes it, volume adds the size of
 * the trade prints the replay passed over (contracts). Each upsert is announced on `market_stream`
 * as a `candle` message for `/ws/market`. One statement per tick; prices never leave decimal text.
 */
import type pg from 'pg';
import { Decimal, fmt } from '../../../domain/decimal.js';
import type { TapePrint } from '../../../domain/market/replay.js';
import type { MarkTick } from '../../../domain/market/types.js';
import { LIVE_INTERVALS } from '../../../domain/market/stream-message.js';
import { LIVE_CANDLE_SOURCE } from '../../../domain/market/candle-series.js';

/** Folds one tick (and the prints since the previous one) into the live bars of its pair. */
export async function recordLiveBars(db: pg.Pool | pg.Client, tick: MarkTick, prints: TapePrint[]): Promise<void> {
  const volume = fmt(prints.reduce((v, p) => v.plus(p.size), new Decimal(0)));
  const mark = fmt(tick.mark);
  const entries = Object.entries(LIVE_INTERVALS);
  await db.query(
    `with up as (
       insert into candles (venue, symbol, interval, open_time, open, high, low, close, volume, source, live)
       select $1, $2, i, to_timestamp(floor($3::bigint / len) * len / 1000.0), $4::numeric, $4::numeric, $4::numeric, $4::numeric, $5::numeric, $6, true
         from unnest($7::text[], $8::bigint[]) as x(i, len)
       on conflict (venue, symbol, interval, open_time) do update
         set high = greatest(candles.high, excluded.high), low = least(candles.low, excluded.low), close = excluded.close, volume = candles.volume + excluded.volume
       returning interval, open_time, open::text, high::text, low::text, close::text, volume::text)
     select pg_notify('market_stream', json_build_object('k', 'candle', 'venue', $1::text, 'symbol', $2::text, 'interval', up.interval,
              'bar', json_build_object('openTime', up.open_time, 'open', up.open, 'high', up.high, 'low', up.low, 'close', up.close, 'volume', up.volume))::text) from up`,
    [
      tick.venue,
      tick.symbol,
      tick.ts,
      mark,
      volume,
      LIVE_CANDLE_SOURCE,
      entries.map(([i]) => i),
      entries.map(([, len]) => len),
    ],
  );
}

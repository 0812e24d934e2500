/**
 * The bar series of every listed symbol (docs/api.md §2.9): one continuous series whose newest bar
 * closes at the current mark, read by candles and stats (./candles.ts) and by indicators and backtests
 * (./bars.ts), so all of them see the same bars.
 *
 * - Perps (every venue's): the recorded Hyperliquid bars of the symbol's coin placed on the replay's
 *   clock and rebased to meet the first replayed bar (`recorded:hyperliquid:rebased`,
 *   domain/market/candle-series.ts), then the live bars the worker aggregates from the replayed marks
 *   (`live:replay`; under `VENUE_FEEDS=live` a live venue's own marks, stored under the same label), the current mark folded into the newest by the live-bar rule. The seam is the
 *   first live bar; before any, the current mark's bar. With neither, the recorded bars as recorded.
 * - Prediction symbols (`*.PM`, `*.KX`): bars of the replayed marks on the replay clock
 *   (`replay:polymarket`, domain/market/prediction-replay.ts), computed, not stored, up to the first live bar the
 *   worker aggregated (under `VENUE_FEEDS=live` from the venue's own marks; `live:replay`), then the live bars; the
 *   current mark folds into the newest bar.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { Decimal } from '../../../domain/decimal.js';
import {
  LIVE_CANDLE_SOURCE,
  foldMark,
  rebaseBar,
  rebaseOnto,
  replayedBars,
  type PriceBar,
  type Rebase,
} from '../../../domain/market/candle-series.js';
import { predictionMark } from '../../../domain/market/prediction-replay.js';
import { LIVE_INTERVALS } from '../../../domain/market/stream-message.js';
import type { SymbolSpec } from '../../../domain/market/symbol-spec.js';
import { platformEm } from '../../../db/orm.js';
import { tokenPrices } from '../../../infra/recorded-polymarket.js';

/**
 * The source of a prediction symbol's replayed bars: the recorded daily prices (its live bars, once the worker has
 * aggregated any, carry the stored live label).
 */
const PREDICTION_BAR_SOURCE = 'replay:polymarket';

/** A series interval: `1m` or `1h`. */
export type SeriesInterval = keyof typeof LIVE_INTERVALS;

/** Which bars to read: those opening in [`from`, `to`] (Unix ms, inclusive; ±Infinity: unbounded), the newest or the oldest `limit` of them. */
export interface SeriesWindow {
  from: number;
  to: number;
  limit: number;
  take: 'newest' | 'oldest';
}

/** A bar and the source it came from (its part of an answer's `source`). */
export interface SourcedBar {
  bar: PriceBar;
  source: string;
}

/** Bars of a window, oldest first, and the rebase of the recorded bars among them (absent when none are). */
export interface Series {
  bars: SourcedBar[];
  rebase?: Rebase & { seamTime: number };
}

/** One stretch of a series: its bars in [lo, hi], at most `n`, ascending or descending. */
type Segment = (lo: number, hi: number, n: number, dir: 'asc' | 'desc') => Promise<SourcedBar[]>;

/** `+`-joined distinct sources of the bars, oldest first; `none` for no bars. */
export const sourceOf = (bars: SourcedBar[]) => [...new Set(bars.map((b) => b.source))].join('+') || 'none';

/**
 * The bars of `spec`'s `interval` series in window `w`, oldest first.
 * Prediction bars never open after now.
 */
export function readSeries(orm: MikroORM, spec: SymbolSpec, interval: SeriesInterval, w: SeriesWindow) {
  return spec.assetClass === 'prediction'
    ? predictionSeries(orm, spec, interval, w)
    : perpSeries(orm, spec, interval, w);
}

/** A candle row as read, decimal text. */
interface CandleRow {
  open_time: Date;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
  source: string;
}

const barOf = (r: CandleRow): PriceBar => ({
  openTime: new Date(r.open_time).getTime(),
  open: new Decimal(r.open),
  high: new Decimal(r.high),
  low: new Decimal(r.low),
  close: new Decimal(r.close),
  volume: new Decimal(r.volume),
});

/** A bound for SQL: ISO text, null when unbounded. */
const at = (ms: number) => (Number.isFinite(ms) ? new Date(ms).toISOString() : null);

/** At most `n` stored bars of a pair, recorded (`live` false) or live, opening in [lo, hi] (Unix ms), in order `dir`. */
async function candleRows(
  orm: MikroORM,
  spec: SymbolSpec,
  interval: string,
  live: boolean,
  [lo, hi, n, dir]: Parameters<Segment>,
): Promise<CandleRow[]> {
  if (n <= 0 || hi < lo) return [];
  return platformEm(orm)
    .getConnection()
    .execute<CandleRow[]>(
      `select open_time, open::text, high::text, low::text, close::text, volume::text, source from candles
        where venue = ? and symbol = ? and interval = ? and live = ?
          and open_time >= coalesce(?::timestamptz, '-infinity') and open_time <= coalesce(?::timestamptz, 'infinity')
        order by open_time ${dir === 'asc' ? 'asc' : 'desc'} limit ?`,
      [spec.venue, spec.symbol, interval, live, at(lo), at(hi), n],
    );
}

/**
 * Where a series joins, in one round trip of primary-key reads: its first and newest live bar, its newest recorded
 * bar before them (a perp's; a prediction symbol has none), and its current mark (each null when absent).
 */
async function seriesEdges(orm: MikroORM, spec: SymbolSpec, interval: string) {
  const [row] = await platformEm(orm)
    .getConnection()
    .execute<
      {
        first_live: Date | null;
        first_open: string | null;
        newest: CandleRow | null;
        last_recorded: Date | null;
        recorded_close: string | null;
        mark: string | null;
        mark_ts: Date | null;
      }[]
    >(
      `with k as (select ?::text as venue, ?::text as symbol, ?::text as interval)
       select f.open_time as first_live, f.open::text as first_open,
              case when n.open_time is null then null else json_build_object('open_time', n.open_time, 'open', n.open::text,
                'high', n.high::text, 'low', n.low::text, 'close', n.close::text, 'volume', n.volume::text, 'source', n.source) end as newest,
              r.open_time as last_recorded, r.close::text as recorded_close, m.mark::text as mark, m.ts as mark_ts
         from k
         left join lateral (select open_time, open from candles c where c.venue = k.venue and c.symbol = k.symbol
                             and c.interval = k.interval and c.live order by c.open_time asc limit 1) f on true
         left join lateral (select * from candles c where c.venue = k.venue and c.symbol = k.symbol
                             and c.interval = k.interval and c.live order by c.open_time desc limit 1) n on true
         left join lateral (select open_time, close from candles c where c.venue = k.venue and c.symbol = k.symbol
                             and c.interval = k.interval and not c.live and c.open_time < coalesce(f.open_time, 'infinity')
                             order by c.open_time desc limit 1) r on true
         left join marks m on m.venue = k.venue and m.symbol = k.symbol`,
      [spec.venue, spec.symbol, interval],
    );
  return {
    firstLive: row.first_live
      ? { openTime: new Date(row.first_live).getTime(), price: new Decimal(row.first_open!) }
      : null,
    newestLive: row.newest ? barOf(row.newest) : null,
    lastRecorded: row.last_recorded
      ? { openTime: new Date(row.last_recorded).getTime(), close: new Decimal(row.recorded_close!) }
      : null,
    mark: row.mark ? { price: new Decimal(row.mark), ts: new Date(row.mark_ts!).getTime() } : null,
  };
}

/**
 * The live part of a series: its stored live bars (the newest with the current mark folded in) and the bar the mark
 * opens after every live bar (`markBar`, when it does), as segments.
 */
function liveTail(
  orm: MikroORM,
  spec: SymbolSpec,
  interval: SeriesInterval,
  e: Awaited<ReturnType<typeof seriesEdges>>,
) {
  const len = LIVE_INTERVALS[interval];
  const folded = e.mark ? foldMark(e.newestLive ?? undefined, e.mark, len) : undefined;
  // The mark either moves the newest live bar or opens the bar after every live bar.
  const refolded = folded && folded.openTime === e.newestLive?.openTime ? folded : undefined;
  const markBar = folded && !refolded ? folded : undefined;
  const live: Segment = async (...window) =>
    e.newestLive
      ? (await candleRows(orm, spec, interval, true, window)).map((r) =>
          new Date(r.open_time).getTime() === refolded?.openTime ? { bar: refolded, source: r.source } : stored(r),
        )
      : [];
  const mark: Segment = async (lo, hi, n) =>
    markBar && n > 0 && markBar.openTime >= lo && markBar.openTime <= hi
      ? [{ bar: markBar, source: LIVE_CANDLE_SOURCE }]
      : [];
  return { live, mark, markBar };
}

/** A perp's series: rebased recorded history, live bars, the current mark folded in (see the module doc). */
async function perpSeries(orm: MikroORM, spec: SymbolSpec, interval: SeriesInterval, w: SeriesWindow): Promise<Series> {
  const len = LIVE_INTERVALS[interval];
  const e = await seriesEdges(orm, spec, interval);
  const { live, mark, markBar } = liveTail(orm, spec, interval, e);
  const seam = e.firstLive ?? (markBar ? { openTime: markBar.openTime, price: markBar.open } : null);
  const rebase =
    seam && e.lastRecorded
      ? { ...rebaseOnto(e.lastRecorded, seam, len, spec.tickSize), seamTime: seam.openTime }
      : undefined;
  let rebased = false;
  const history: Segment = async (lo, hi, n, dir) => {
    if (!rebase) return seam ? [] : (await candleRows(orm, spec, interval, false, [lo, hi, n, dir])).map(stored);
    const last = Math.min(hi - rebase.shiftMs, e.lastRecorded!.openTime);
    const rows = await candleRows(orm, spec, interval, false, [lo - rebase.shiftMs, last, n, dir]);
    rebased ||= rows.length > 0;
    return rows.map((r) => ({ bar: rebaseBar(barOf(r), rebase), source: `${r.source}:rebased` }));
  };
  const bars = await readSegments([history, live, mark], w);
  return { bars, rebase: rebased ? rebase : undefined };
}

const stored = (r: CandleRow): SourcedBar => ({ bar: barOf(r), source: r.source });

/** Reads consecutive segments (oldest first) for a window: from the newest backwards or the oldest forwards. */
async function readSegments(segments: Segment[], w: SeriesWindow): Promise<SourcedBar[]> {
  const newest = w.take === 'newest';
  const out: SourcedBar[] = [];
  for (const read of newest ? [...segments].reverse() : segments) {
    if (out.length >= w.limit) break;
    out.push(...(await read(w.from, w.to, w.limit - out.length, newest ? 'desc' : 'asc')));
  }
  return newest ? out.reverse() : out;
}

/**
 * A prediction symbol's series: bars of its replayed marks up to now, then (once the worker has aggregated any: under
 * `VENUE_FEEDS=live` from the venue's own marks) its live bars, the current mark folded into the newest bar. The
 * replayed bars stop before the first live bar; with no live bar the mark folds into the replayed bar it falls in.
 */
async function predictionSeries(
  orm: MikroORM,
  spec: SymbolSpec,
  interval: SeriesInterval,
  w: SeriesWindow,
): Promise<Series> {
  const [prices, e] = await Promise.all([tokenPrices(spec.sourceCoin), seriesEdges(orm, spec, interval)]);
  const len = LIVE_INTERVALS[interval];
  const now = Date.now();
  const marks = prices?.map((p) => predictionMark(spec.tickSize, p));
  // With no live bar yet, the mark folds into the replayed bar holding it (a later mark bar is not opened).
  const nowOpen = Math.floor(now / len) * len;
  const nowBar = marks && !e.firstLive ? replayedBars(marks, len, nowOpen, 1, now)[0] : undefined;
  const folded = nowBar && e.mark ? foldMark(nowBar, e.mark, len) : undefined;
  const replayed: Segment = async (from, to, n, dir) => {
    const hi = Math.floor(Math.min(to, now, e.firstLive ? e.firstLive.openTime - len : Infinity) / len) * len;
    const lo = Math.ceil(from / len) * len;
    if (!marks || hi < lo || n <= 0) return [];
    const count = Math.min(n, (hi - lo) / len + 1); // (hi - lo) is Infinity when `from` is unbounded
    const lastOpen = dir === 'asc' && Number.isFinite(lo) ? lo + (count - 1) * len : hi;
    const bars = replayedBars(marks, len, lastOpen, count, now).map((bar) => ({
      bar: folded && bar.openTime === folded.openTime ? folded : bar,
      source: PREDICTION_BAR_SOURCE,
    }));
    return dir === 'asc' ? bars : bars.reverse();
  };
  const { live, mark } = liveTail(orm, spec, interval, e);
  return { bars: await readSegments(e.firstLive ? [replayed, live, mark] : [replayed], w) };
}

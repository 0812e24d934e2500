/**
 * The bars a compute or backtest request covers (docs/api.md §4.7; the window semantics of `limit` are
 * indicators.schemas.ts `barWindowFields`): the pair's §2.9 series (./series.ts), the same bars, times
 * and prices `GET /market/candles` serves.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { ApiError } from '../../../domain/errors.js';
import { MAX_BARS, type Bar } from '../../../domain/indicators/registry.js';
import { findSymbol } from '../../../domain/market/symbols.js';
import { fmt } from '../../../domain/decimal.js';
import { readSeries, sourceOf } from './series.js';

/** Bar length of an interval, ms. */
export const INTERVAL_MS = { '1m': 60_000, '1h': 3_600_000 } as const;
/** Bars taken when neither `limit` nor a closed `from`-`to` window is given. */
const DEFAULT_BARS = 1000;

/** A bar window request (the shared fields of compute and backtest bodies). */
export interface BarWindow {
  venue: string;
  symbol: string;
  interval: keyof typeof INTERVAL_MS;
  from?: string;
  to?: string;
  limit?: number;
}

/** Loaded bars, oldest first, with the candle source and the covered window (ISO 8601). */
export interface LoadedBars {
  bars: Bar[];
  source: string;
  window: { from: string | null; to: string | null };
}

/**
 * Loads the bars of a window (semantics on `limit` in indicators.schemas.ts), oldest first.
 * @throws ApiError `400 symbol_unknown` on a pair this deployment does not trade, `400
 * validation_failed` (code `too_many_bars`) when a from-to window without `limit` holds more than
 * {@link MAX_BARS} bars.
 */
export async function loadBars(orm: MikroORM, w: BarWindow): Promise<LoadedBars> {
  const spec = findSymbol(w.venue, w.symbol);
  if (!spec)
    throw new ApiError('symbol_unknown', `unknown pair ${w.venue}/${w.symbol}; see GET /api/v1/symbols/${w.venue}`);
  if (w.from && w.to && Date.parse(w.from) >= Date.parse(w.to))
    throw new ApiError('validation_failed', [
      { path: 'body.to', message: 'to must be after from', code: 'invalid_window' },
    ]);
  const closed = !!(w.from && w.to && w.limit === undefined);
  const { bars: read } = await readSeries(orm, spec, w.interval, {
    from: w.from ? Date.parse(w.from) : -Infinity,
    to: w.to ? Date.parse(w.to) - 1 : Infinity, // `to` is exclusive
    limit: closed ? MAX_BARS + 1 : (w.limit ?? DEFAULT_BARS),
    take: w.from ? 'oldest' : 'newest',
  });
  if (closed && read.length > MAX_BARS) {
    throw new ApiError('validation_failed', [
      {
        path: 'body',
        message: `the window ${w.from} to ${w.to} holds more than ${MAX_BARS} ${w.interval} bars; narrow it or set limit`,
        code: 'too_many_bars',
      },
    ]);
  }
  const bars = read.map(({ bar }) => ({
    openTime: bar.openTime,
    open: fmt(bar.open),
    high: fmt(bar.high),
    low: fmt(bar.low),
    close: fmt(bar.close),
    volume: fmt(bar.volume),
  }));
  return {
    bars,
    source: sourceOf(read),
    window: {
      from: bars.length ? new Date(bars[0].openTime).toISOString() : null,
      to: bars.length ? new Date(bars.at(-1)!.openTime + INTERVAL_MS[w.interval] - 1).toISOString() : null,
    },
  };
}

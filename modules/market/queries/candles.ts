/**
 * Candles and 24 h stats (docs/api.md §2.9, §4.6): a listed symbol's continuous 1m or 1h series
 * (./series.ts), its newest bar closing at the current mark; a recorded Polymarket outcome
 * (`<marketId>-<OUTCOME>.PM`, not listed) charts its daily prices, `1d`.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { ApiError } from '../../../domain/errors.js';
import { Decimal, fmt } from '../../../domain/decimal.js';
import { findSymbol } from '../../../domain/market/symbols.js';
import { findPolymarketOutcome } from '../../../infra/recorded-polymarket.js';
import { markSource, type MarketFeeds } from '../../../domain/market/live-venues.js';
import { markOf, tickerVenue } from './market.js';
import { readSeries, sourceOf } from './series.js';

/** Bar length per interval, ms. */
const INTERVAL_MS = { '1m': 60_000, '1h': 3_600_000, '1d': 86_400_000 } as const;

/** 1m bars in the 24 h of the stats window. */
const DAY_OF_1M = 1440;

/** A candles request (market.schemas.ts `candleQuery`). */
export interface CandleQuery {
  interval: keyof typeof INTERVAL_MS;
  limit: number;
  endTime?: string;
}

/** Daily bars of a recorded Polymarket outcome. @throws ApiError `400 symbol_unknown`, `400 validation_failed`. */
async function recordedOutcomeCandles(symbol: string, query: CandleQuery) {
  const found = await findPolymarketOutcome(symbol);
  if (!found)
    throw new ApiError(
      'symbol_unknown',
      `unknown Polymarket outcome ${symbol}; see GET /api/v1/symbols/polymarket and GET /api/v1/market/polymarket/markets`,
    );
  if (query.interval !== '1d')
    throw new ApiError('validation_failed', [
      {
        path: 'query.interval',
        message: 'recorded Polymarket outcomes have daily prices only: interval=1d',
        code: 'interval_unavailable',
      },
    ]);
  const until = query.endTime ? query.endTime.slice(0, 10) : '9999-12-31';
  const points = found.outcome.history.filter((p) => p.date <= until).slice(-query.limit);
  const bars = points.map((p) => {
    const open = Date.parse(`${p.date}T00:00:00Z`);
    const price = fmt(p.price);
    return {
      openTime: new Date(open).toISOString(),
      closeTime: new Date(open + INTERVAL_MS['1d'] - 1).toISOString(),
      open: price,
      high: price,
      low: price,
      close: price,
      volume: '0',
      closed: true,
    };
  });
  return {
    venue: 'polymarket',
    symbol,
    interval: '1d',
    bars,
    source: 'recorded:polymarket',
    window: { from: bars[0]?.openTime ?? null, to: bars.at(-1)?.closeTime ?? null },
  };
}

/**
 * OHLCV bars of a pair, oldest first (candlesView): the listed symbol's continuous 1m or 1h series; a
 * recorded Polymarket outcome's daily prices.
 * @throws ApiError `400 symbol_unknown`, `400 validation_failed` (`interval_unavailable`).
 */
export async function candles(orm: MikroORM, venue: string, symbol: string, query: CandleQuery) {
  const spec = findSymbol(venue, symbol);
  if (!spec && venue === 'polymarket') return recordedOutcomeCandles(symbol, query);
  if (!spec) throw new ApiError('symbol_unknown', `unknown pair ${venue}/${symbol}; see GET /api/v1/symbols/${venue}`);
  if (query.interval === '1d')
    throw new ApiError('validation_failed', [
      {
        path: 'query.interval',
        message:
          'listed symbols have 1m and 1h bars; the daily prices of a recorded Polymarket outcome are GET /api/v1/market/candles/polymarket/<marketId>-<OUTCOME>.PM?interval=1d',
        code: 'interval_unavailable',
      },
    ]);
  const len = INTERVAL_MS[query.interval];
  const to = query.endTime ? Date.parse(query.endTime) : Infinity;
  const { bars, rebase } = await readSeries(orm, spec, query.interval, {
    from: -Infinity,
    to,
    limit: query.limit,
    take: 'newest',
  });
  const now = Date.now();
  const out = bars.map(({ bar }) => ({
    openTime: new Date(bar.openTime).toISOString(),
    closeTime: new Date(bar.openTime + len - 1).toISOString(),
    open: fmt(bar.open),
    high: fmt(bar.high),
    low: fmt(bar.low),
    close: fmt(bar.close),
    volume: fmt(bar.volume),
    closed: bar.openTime + len <= now,
  }));
  return {
    venue,
    symbol,
    interval: query.interval,
    bars: out,
    source: sourceOf(bars),
    ...(rebase && {
      rebase: {
        shiftMs: rebase.shiftMs,
        recordedClose: fmt(rebase.recordedClose),
        seamPrice: fmt(rebase.seamPrice),
        seamTime: new Date(rebase.seamTime).toISOString(),
        decimals: rebase.decimals,
      },
    }),
    window: { from: out[0]?.openTime ?? null, to: out.at(-1)?.closeTime ?? null },
  };
}

/**
 * Mark and 24 h statistics of a venue-suffixed ticker (statsView) over the newest 24 h of its 1m series
 * (the bars `GET /market/candles/{venue}/{symbol}?interval=1m` serves). `source.mark` is where the mark comes from
 * in a deployment configured `feeds` (`live:<venue>` or `replay:…`, domain/market/live-venues.ts `markSource`),
 * `source.bars` the bars' stored sources.
 * @throws ApiError `400 symbol_unknown`, `503 cold_cache` (no mark yet).
 */
export async function stats(orm: MikroORM, ticker: string, feeds: MarketFeeds) {
  const venue = tickerVenue(ticker);
  const spec = venue ? findSymbol(venue, ticker) : undefined;
  if (!spec) throw new ApiError('symbol_unknown', `unknown ticker ${ticker}; see GET /api/v1/symbols/{venue}`);
  const m = await markOf(orm, spec.venue, ticker);
  const { bars } = await readSeries(orm, spec, '1m', {
    from: -Infinity,
    to: Infinity,
    limit: DAY_OF_1M,
    take: 'newest',
  });
  const last = bars.at(-1)?.bar.openTime;
  const day = last === undefined ? [] : bars.filter((b) => b.bar.openTime > last - DAY_OF_1M * INTERVAL_MS['1m']);
  const first = day[0]?.bar;
  const mark = new Decimal(m.mark);
  return {
    ticker,
    venue: spec.venue,
    markPrice: m.mark,
    open24h: first ? fmt(first.open) : null,
    high24h: first ? fmt(Decimal.max(...day.map((b) => b.bar.high))) : null,
    low24h: first ? fmt(Decimal.min(...day.map((b) => b.bar.low))) : null,
    volume24h: first ? fmt(day.reduce((v, b) => v.plus(b.bar.volume), new Decimal(0))) : null,
    change24h: first ? fmt(mark.minus(first.open)) : null,
    changePct24h: first ? fmt(mark.minus(first.open).div(first.open).times(100).toDecimalPlaces(4)) : null,
    window: {
      from: first ? new Date(first.openTime).toISOString() : null,
      to: last === undefined ? null : new Date(last + INTERVAL_MS['1m'] - 1).toISOString(),
    },
    source: { mark: markSource(feeds, spec), bars: sourceOf(day) },
  };
}

/**
 * Schemas of `/api/v1/indicators` and `/api/v1/indicators/compute` (docs/api.md §4.7), and the bar window
 * shared with `/api/v1/backtests/run`. Indicator values are analytics, not money: decimal strings
 * rounded to 8 significant digits.
 */
import { z } from 'zod';
import { MAX_BARS, MAX_INDICATORS } from '../../../domain/indicators/registry.js';

/** `{ id, name, params }`: one indicator to compute; `id` names its series (and rule operands). */
export const indicatorRequest = z
  .object({
    id: z.string().min(1).max(40).meta({
      description:
        'Series id: a letter or _, then letters, digits, _; not a bar field (open, high, low, close, volume)',
    }),
    name: z.string().min(1).max(40).meta({ description: 'A catalogue name (GET /api/v1/indicators), e.g. `ema`' }),
    params: z
      .record(z.string().max(40), z.number())
      .optional()
      .meta({ description: 'Param name → number; missing params take their default' }),
  })
  .meta({ id: 'IndicatorRequest' });

/** The bar window fields shared by compute and backtest bodies. */
export const barWindowFields = {
  venue: z.string().min(1).max(255).meta({ description: 'Venue slug, e.g. `paper`' }),
  symbol: z.string().min(1).max(255).meta({ description: 'Venue symbol, e.g. `BTC.PAPER`' }),
  interval: z.enum(['1m', '1h']).meta({ description: 'Bar length' }),
  from: z.iso.datetime().optional().meta({ description: 'First bar opens at or after this time (ISO 8601)' }),
  to: z.iso.datetime().optional().meta({ description: 'Bars open before this time (exclusive, ISO 8601)' }),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_BARS)
    .optional()
    .meta({
      description: `Bars, 1-${MAX_BARS}. With \`from\`: the first \`limit\` bars from it; otherwise the newest \`limit\` bars before \`to\`. Default 1000, except with both from and to: the whole window, which must hold at most ${MAX_BARS} bars (else 400 validation_failed)`,
    }),
};

export const computeBody = z
  .object({
    ...barWindowFields,
    indicators: z
      .array(indicatorRequest)
      .min(1)
      .max(MAX_INDICATORS)
      .meta({ description: `1-${MAX_INDICATORS} indicators` }),
  })
  .meta({ id: 'IndicatorComputeRequest' });

const paramSpec = z.object({
  name: z.string(),
  type: z.enum(['integer', 'number']),
  default: z.number(),
  min: z.number(),
  max: z.number(),
  description: z.string(),
});

export const catalogueView = z
  .object({
    indicators: z.array(
      z.object({
        name: z.string(),
        description: z.string(),
        inputs: z.array(z.enum(['open', 'high', 'low', 'close', 'volume'])).meta({ description: 'Bar fields read' }),
        outputs: z.array(z.string()).meta({ description: 'Output names; a single output is `value`' }),
        params: z.array(paramSpec),
      }),
    ),
    significantDigits: z
      .number()
      .int()
      .meta({ description: 'Outputs are decimal strings rounded to this many significant digits' }),
    maxIndicators: z.number().int(),
    maxBars: z.number().int(),
  })
  .meta({
    id: 'IndicatorCatalogue',
    description:
      'Declarative indicator specs. Indicator values are analytics, not money: computed in floating point by trading-signals, returned as rounded decimal strings.',
  });

const seriesView = z.object({
  id: z.string(),
  name: z.string(),
  params: z.record(z.string(), z.number()).meta({ description: 'Every param, defaults filled in' }),
  values: z
    .record(z.string(), z.array(z.string().nullable()))
    .meta({ description: 'Output → values aligned with `openTime`; null while warming up' }),
});

/** The window actually covered: first bar open to last bar close. */
const windowView = z.object({ from: z.string().nullable(), to: z.string().nullable() });

/**
 * The fields every answer over a bar series opens with (spread into `IndicatorSeries` and
 * `BacktestResult`): the pair, the bar length, where the bars came from (`source`), how many bars
 * and the window they actually cover.
 */
export const barSeriesFields = {
  venue: z.string(),
  symbol: z.string(),
  interval: z.string(),
  source: z.string(),
  bars: z.number().int(),
  window: windowView,
};

export const computeView = z
  .object({
    ...barSeriesFields,
    openTime: z.array(z.string()).meta({ description: 'Bar open times (ISO 8601), oldest first' }),
    close: z.array(z.string()).meta({ description: 'Bar closes, USD' }),
    indicators: z.array(seriesView),
  })
  .meta({ id: 'IndicatorSeries' });

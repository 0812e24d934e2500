/** Request and response schemas of `/api/v1/market/*` (docs/api.md §4.6, §2.9), documented in the OpenAPI document. */
import { z } from 'zod';
import { PLAIN_DECIMAL } from '../../../domain/decimal.js';
import { MARK_SOURCES, type MarkSource } from '../../../domain/market/live-venues.js';

/**
 * The `source` of a quote and a tape, and `source.mark` of stats (domain/market/live-venues.ts `markSource`): where
 * the pair's marks, book and tape come from in this deployment, each value described.
 */
const markSource = z.enum(Object.keys(MARK_SOURCES) as [MarkSource, ...MarkSource[]]).meta({
  description: `Where the pair's marks, book and tape come from in this deployment: ${Object.entries(MARK_SOURCES)
    .map(([k, v]) => `\`${k}\` ${v}`)
    .join('; ')}`,
});

export const pairParams = z.object({ venue: z.string().min(1).max(255), symbol: z.string().min(1).max(255) });
export const quoteView = z
  .object({
    venue: z.string(),
    symbol: z.string(),
    mark: z.string(),
    bid: z.string(),
    ask: z.string(),
    ts: z.string(),
    source: markSource,
  })
  .meta({ id: 'Quote', description: 'Canonical mark (mid of best bid and offer), USD decimal strings' });
export const depthQuery = z.object({
  levels: z.coerce.number().int().min(1).max(20).default(20).meta({ description: 'Levels per side, 1-20' }),
});
export const depthView = z
  .object({
    venue: z.string(),
    symbol: z.string(),
    bookSeq: z.number().int().meta({
      description:
        'Version of the streamed book; `/ws/market` `l2Delta` frames carry the same sequence (seed: drop deltas with bookSeq ≤ this)',
    }),
    ts: z.string(),
    bids: z.array(z.tuple([z.string(), z.string()])),
    asks: z.array(z.tuple([z.string(), z.string()])),
  })
  .meta({ id: 'Depth', description: 'L2 book: `[price USD, size contracts]`, bids best first, asks best first' });

export const candleQuery = z.object({
  interval: z.enum(['1m', '1h', '1d']).meta({
    description: 'Bar length (required): `1m`, `1h` for listed symbols; `1d` for recorded Polymarket outcomes',
  }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(100)
    .meta({ description: 'Bars, newest last; 1-1000, default 100' }),
  endTime: z.iso
    .datetime()
    .optional()
    .meta({ description: 'Last bar opens at or before this time; default: the newest bar' }),
});
export const bar = z.object({
  openTime: z.string(),
  closeTime: z.string(),
  open: z.string(),
  high: z.string(),
  low: z.string(),
  close: z.string(),
  volume: z.string(),
  closed: z.boolean(),
});
export const candlesView = z
  .object({
    venue: z.string(),
    symbol: z.string(),
    interval: z.string(),
    bars: z.array(bar),
    source: z.string(),
    rebase: z
      .object({
        shiftMs: z.number().int().meta({ description: 'Added to every recorded open time, ms' }),
        recordedClose: z.string().meta({ description: 'Close of the newest recorded bar, as recorded' }),
        seamPrice: z.string().meta({ description: 'Open of the first replayed bar, which the history meets' }),
        seamTime: z.string().meta({ description: 'Open time of the first replayed bar' }),
        decimals: z.number().int().meta({ description: 'Decimal places of the rebased prices' }),
      })
      .optional()
      .meta({
        description:
          'Present when the answer holds recorded bars placed on the replay clock (`recorded:hyperliquid:rebased`): each such bar is the recorded one with open time + `shiftMs` and every price × `seamPrice` ÷ `recordedClose`, rounded half-even to `decimals` places; volume as recorded',
      }),
    window: z.object({ from: z.string().nullable(), to: z.string().nullable() }),
    truncated: z.boolean().optional(),
  })
  .meta({
    id: 'Candles',
    description:
      "Spec §2.9. One continuous series per listed symbol, oldest first, its newest bar closing at the current mark (the mark folds into its bar by the live-bar rule). Perps (every venue's; prices USD, volume contracts): the recorded Hyperliquid bars of the coin placed on the replay clock and rebased to meet the first replayed bar (`recorded:hyperliquid:rebased`, see `rebase`), then the bars the live feed aggregates from the replayed marks and tape (`live:replay`; under `VENUE_FEEDS=live` a live venue's perp aggregates the venue's own marks and prints, stored under the same label, and the quote's `source` names the feed). Prediction symbols (`*.PM`, `*.KX`; USD per share 0-1): the bars of the replayed marks, one recorded day per 10 s (`replay:polymarket`), volume `0`, up to the first bar the live feed aggregated, then the live bars (`live:replay`; under `VENUE_FEEDS=live` from the venue's own marks and prints). `source` names every source in the answer (`none` when empty), `closed: false` marks the bar still forming. Recorded Polymarket outcomes (`<marketId>-<OUTCOME>.PM` from `/market/polymarket/markets`, interval `1d`): one recorded CLOB price per day in probability units, open = high = low = close, volume `0`; source `recorded:polymarket`.",
  });

export const groupedQuery = z.object({
  step: z
    .string()
    .max(64)
    .regex(PLAIN_DECIMAL)
    .optional()
    .meta({ description: 'Bucket size, USD decimal string, a multiple of the tick' }),
});
export const statsView = z
  .object({
    ticker: z.string(),
    venue: z.string(),
    markPrice: z.string(),
    open24h: z.string().nullable(),
    high24h: z.string().nullable(),
    low24h: z.string().nullable(),
    volume24h: z.string().nullable().meta({ description: 'Contracts (base units); `0` for prediction symbols' }),
    change24h: z.string().nullable().meta({ description: 'markPrice − open24h, USD' }),
    changePct24h: z.string().nullable(),
    window: z.object({ from: z.string().nullable(), to: z.string().nullable() }),
    source: z.object({
      mark: markSource,
      bars: z.string().meta({ description: 'The sources of the bars of `window`, as the candles name them' }),
    }),
  })
  .meta({
    id: 'Stats',
    description:
      "Any listed ticker (`BTC.PAPER`, `BTC.HL`, `ETH.ASTER`, `*.PM`, `*.KX`). The 24 h window is the newest 24 h of the symbol's 1m series (the bars of `GET /market/candles/{venue}/{symbol}?interval=1m`, spec §2.9), documented in `window`; `source.bars` names their sources as the candles do.",
  });
export const tapeQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(200)
    .default(50)
    .meta({ description: 'Prints, newest first: 1-200, default 50 (docs/api.md §8)' }),
});
/** One trade print: price USD, size contracts, the aggressor's side (REST tape, `/ws/market` `Trades`). */
export const tradePrint = z.object({
  tradeId: z.string(),
  ts: z.string(),
  price: z.string(),
  size: z.string(),
  side: z.enum(['buy', 'sell']).meta({ description: 'Aggressor side' }),
});
export const tapeView = z
  .object({
    venue: z.string(),
    symbol: z.string(),
    trades: z.array(tradePrint),
    source: markSource,
  })
  .meta({
    id: 'Tape',
    description:
      'Recent prints, newest first: price USD, size contracts. A live pair (`source` `live:<venue>`, `VENUE_FEEDS=live`) prints what the venue prints, its own trade ids; a replayed perp replays the recorded Hyperliquid trades on the wall clock (`replay:hyperliquid`), trade ids `<loop>-<venue trade id>`; a replayed prediction pair has no recorded prints (an empty tape).',
  });
export const fxView = z
  .object({
    base: z.literal('USD'),
    rates: z.array(
      z.object({
        currency: z.string(),
        rate: z.string().meta({ description: 'Units of `currency` per 1 USD' }),
        source: z.string(),
        asOf: z.string(),
      }),
    ),
  })
  .meta({
    id: 'FxRates',
    description:
      "Rates for accounts not denominated in USD. Source and time per rate: stablecoins at their 1:1 peg (`peg`), anything else only from the deployment's `FX_RATES` configuration (`config`); no rate is ever invented.",
  });
export const polymarketMarketsView = z
  .object({
    markets: z.array(
      z.object({
        marketId: z.string(),
        eventTitle: z.string(),
        question: z.string(),
        startDate: z.string().nullable(),
        endDate: z.string().nullable(),
        closedTime: z.string().nullable(),
        totalVolumeUsd: z.string().nullable(),
        winningOutcome: z.string().nullable(),
        outcomes: z.array(
          z.object({
            outcome: z.string(),
            symbol: z.string(),
            tokenId: z.string(),
            lastPrice: z.string().nullable(),
            lastDate: z.string().nullable(),
            points: z.number().int(),
          }),
        ),
      }),
    ),
  })
  .meta({
    id: 'PolymarketMarkets',
    description:
      'The recorded Polymarket election markets (closed, read-only): prices in probability units (0-1). Chart an outcome with `GET /market/candles/polymarket/{symbol}?interval=1d`.',
  });

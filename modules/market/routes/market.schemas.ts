/** Request and response schemas of `/api/v1/market/*` (docs/api.md §4.6, §2.9), documented in the OpenAPI document. */
import { z } from 'zod';
import { PLAIN_DECIMAL } from '../../../domain/decimal.js';

export const pairParams = z.object({ venue: z.string().min(1).max(255), symbol: z.string().min(1).max(255) });
export const quoteView = z
  .object({
    venue: z.string(),
    symbol: z.string(),
    mark: z.string(),
    bid: z.string(),
    ask: z.string(),
    ts: z.string(),
    source: z.string(),
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
  interval: z
    .enum(['1m', '1h', '1d'])
    .meta({ description: 'Bar length (required): `1m`, `1h` for perps; `1d` for Polymarket outcomes' }),
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
    window: z.object({ from: z.string().nullable(), to: z.string().nullable() }),
    truncated: z.boolean().optional(),
  })
  .meta({
    id: 'Candles',
    description:
      'Spec §2.9. Perps: prices USD, volume contracts (base units); the recorded Hyperliquid bars (`recorded:hyperliquid`) followed by the bars the live feed aggregates from the canonical mark and the replayed tape (`live:replay`); `source` names every source in the answer, `closed: false` marks the bar still forming. Polymarket outcomes (`<marketId>-<OUTCOME>.PM`, interval `1d`): one recorded CLOB price per day in probability units (0-1, USDC per share paying 1 USDC), so open = high = low = close and volume is `0` (the history has no per-day volume); source `recorded:polymarket`. Empty `bars`: no prints in the window.',
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
    volume24h: z.string().nullable().meta({ description: 'Contracts (base units)' }),
    change24h: z.string().nullable().meta({ description: 'markPrice − open24h, USD' }),
    changePct24h: z.string().nullable(),
    window: z.object({ from: z.string().nullable(), to: z.string().nullable() }),
    source: z.object({ mark: z.string(), bars: z.string() }),
  })
  .meta({
    id: 'Stats',
    description:
      'The 24 h window is the newest 24 h of recorded 1m bars in this deployment (offline data), documented in `window`.',
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
export const tapeView = z
  .object({
    venue: z.string(),
    symbol: z.string(),
    trades: z.array(
      z.object({
        tradeId: z.string(),
        ts: z.string(),
        price: z.string(),
        size: z.string(),
        side: z.enum(['buy', 'sell']).meta({ description: 'Aggressor side' }),
      }),
    ),
    source: z.string(),
  })
  .meta({
    id: 'Tape',
    description:
      'Recent prints, newest first: price USD, size contracts. Offline the tape replays the recorded Hyperliquid trades on the wall clock (`replay:hyperliquid`); trade ids are `<loop>-<venue trade id>`.',
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

/**
 * Schemas of smart-routing decisions (docs/api.md §4.5 `/sor/decisions`, §2.11 decision shape — its
 * field names are ours, documented here), modules/oms/routes/sor.ts; the routing request itself is
 * modules/oms/routes/oms/route-intents.schemas.ts. Decimal strings: USD to 6 places, basis points to 4, prices to 8.
 */
import { z } from 'zod';
import { pageQuery } from '../../../domain/pagination.js';
import { SOR_VENUES } from '../../../domain/sor/cost.js';
import { SKIP_REASONS } from '../../../domain/sor/decide.js';

const usd = (description: string) => z.string().meta({ description: `Decimal string, USD. ${description}` });
const bps = (description: string) =>
  z.string().meta({ description: `Decimal string, basis points of qty × mark. ${description}` });
const price = (description: string) =>
  z.string().meta({ description: `Decimal string, USD per contract. ${description}` });
const skipReasons = Object.keys(SKIP_REASONS) as [keyof typeof SKIP_REASONS, ...(keyof typeof SKIP_REASONS)[]];

export const candidateView = z
  .object({
    venue: z.enum(SOR_VENUES),
    symbol: z
      .string()
      .nullable()
      .meta({ description: 'The venue symbol the asset maps to; null when the venue does not list it' }),
    eligible: z.boolean(),
    reason: z
      .enum(skipReasons)
      .optional()
      .meta({
        description: `Why it was skipped: ${Object.entries(SKIP_REASONS)
          .map(([k, v]) => `\`${k}\` ${v}`)
          .join('; ')}`,
      }),
    mark: price(
      'The venue’s canonical mark at decision time, when a fresh quote was read (an internalised account: its paper symbol’s)',
    ).optional(),
    takerFeeBps: z.string().optional().meta({
      description:
        'The taker fee used: the venue’s (Hyperliquid 4.5, Aster 3.5, Polymarket 0), or for an internalised account the tenant’s `fees.takerBps` (the platform engine’s)',
    }),
    vwap: price('Volume-weighted price of walking the book for qty').optional(),
    allInPrice: price('vwap ± fee per contract (+ for a buy): what the ranking compares').optional(),
    feeUsd: usd('vwap × qty × takerFeeBps / 10 000').optional(),
    spreadUsd: usd('(ask − bid) / 2 × qty').optional(),
    impactUsd: usd('|vwap − best level taken| × qty').optional(),
    totalCostUsd: usd('feeUsd + spreadUsd + impactUsd').optional(),
    totalCostBps: bps('totalCostUsd / (qty × mark) × 10 000').optional(),
  })
  .meta({ id: 'SorCandidate', description: 'Cost fields are present exactly when `eligible`.' });

export const decisionView = z
  .object({
    decisionId: z.string(),
    intentId: z.string().meta({ description: 'The intent composed on the selected venue' }),
    accountId: z.string(),
    asset: z.string(),
    side: z.enum(['buy', 'sell']),
    qty: z.string(),
    selectedVenue: z.enum(SOR_VENUES),
    selectedSymbol: z.string(),
    mark: price('The selected venue’s mark at decision time'),
    estimatedCostUsd: usd('The selected candidate’s totalCostUsd'),
    estimatedCostBps: bps('The selected candidate’s totalCostBps'),
    estimatedAllInPrice: price('The selected candidate’s allInPrice'),
    nextBest: z
      .object({
        venue: z.enum(SOR_VENUES),
        estimatedCostUsd: usd(''),
        estimatedCostBps: bps(''),
        allInPrice: price(''),
      })
      .nullable()
      .meta({ description: 'The second-ranked eligible venue; null when only one was eligible' }),
    savingsVsNextBestUsd: usd(
      '(next-best allInPrice − selected allInPrice) × qty, signed so that positive is saved (× −1 for a sell); null without a next best',
    ).nullable(),
    candidates: z
      .array(candidateView)
      .meta({ description: 'Every candidate venue (hyperliquid, aster, polymarket), estimated or skipped' }),
    decidedAt: z.string().meta({ description: 'ISO 8601' }),
  })
  .meta({
    id: 'SorDecision',
    description:
      'Smart-routing decision (docs/api.md §2.11). Eligible candidates are ranked by estimated all-in price (lowest for a buy, highest for a sell); equal prices go to hyperliquid, then aster, then polymarket.',
  });

/** `GET /api/v1/sor/decisions` (docs/api.md §4.5, §8: default 100, cap 500). */
export const decisionsQuery = pageQuery(500).meta({ id: 'SorDecisionsQuery' });
export const decisionsPage = z
  .object({ data: z.array(decisionView), nextCursor: z.string().nullable(), hasMore: z.boolean() })
  .meta({ id: 'SorDecisionPage', description: 'Newest first' });

/** `GET /api/v1/sor/decisions/summary`. */
export const summaryQuery = z
  .object({
    from: z.iso
      .datetime({ offset: true })
      .optional()
      .meta({ description: 'Inclusive, ISO 8601; default `to` − 30 days' }),
    to: z.iso.datetime({ offset: true }).optional().meta({ description: 'Exclusive, ISO 8601; default now' }),
  })
  .meta({ id: 'SorSummaryQuery' });

export const summaryView = z
  .object({
    from: z.string(),
    to: z.string(),
    decisions: z.number().int().meta({ description: 'Routed orders decided in the window' }),
    filled: z.number().int().meta({ description: 'Of those, the ones whose intent filled (in whole or part)' }),
    savingsCounted: z
      .number()
      .int()
      .meta({ description: 'Filled decisions that had a next-best venue: the ones realised savings sum over' }),
    avgEligibleCandidates: z
      .string()
      .meta({ description: 'Mean number of eligible venues per decision (decimal string, 2 places)' }),
    estimatedSavingsUsd: usd('Σ savingsVsNextBestUsd over the window’s decisions (at decision time)'),
    realisedSavingsUsd: usd(
      'Σ over filled decisions with a next best of s × (next-best estimated allInPrice − realised all-in price) × filledQty, where realised all-in price = average fill price + s × fees / filledQty and s = +1 buy, −1 sell',
    ),
    byVenue: z
      .array(
        z.object({
          venue: z.enum(SOR_VENUES),
          decisions: z.number().int(),
          filled: z.number().int(),
          realisedSavingsUsd: usd(''),
        }),
      )
      .meta({ description: 'The same per selected venue' }),
  })
  .meta({ id: 'SorSummary', description: 'Realised savings of smart routing over a window (docs/api.md §4.5).' });

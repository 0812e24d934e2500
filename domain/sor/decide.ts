/**
 * Smart-order-routing decision (docs/api.md §4.4 route-intents, §2.11): which candidate venue a market
 * order of `qty` of a bare asset goes to. Pure: the caller reads symbols, agents and quotes.
 *
 * Per candidate venue (in {@link SOR_VENUES} order) the first failing check is its skip reason
 * ({@link SKIP_REASONS}): listing → (internalised account) a paper twin → lot size → leverage → agent →
 * fresh quote → depth. An internalised account's candidates are all internalised (docs/api.md §1): each is
 * estimated where the platform engine would fill it — the paper twin's rules, mark and book, the tenant's
 * taker fee, no agent — so they tie and the earliest listed venue wins. Eligible
 * candidates are ranked by the estimated all-in price ({@link estimateCost}): lowest for a buy,
 * highest for a sell; equal prices go to the earlier venue. When the venues' marks agree this is the
 * lowest `totalCostUsd`. `savingsVsNextBestUsd` = s × (next-best all-in price − selected all-in
 * price) × qty (s = +1 buy, −1 sell); null when only one venue was eligible.
 *
 * When nothing is eligible the error is (docs/api.md §7.2): `asset_unknown` when no candidate lists the
 * asset; `no_quotes` when every candidate that lists it was skipped for `no_quote`;
 * `no_eligible_venue` otherwise.
 */
import { Decimal, fmt } from '../decimal.js';
import type { BookSnapshot } from '../market/types.js';
import type { SymbolSpec } from '../market/symbols.js';
import { SOR_VENUES, TAKER_FEE_BPS, estimateCost, sideSign, type CostEstimate, type SorVenue } from './cost.js';

/** Why a candidate venue was skipped, with what a trader reads for it. */
export const SKIP_REASONS = {
  asset_not_listed: 'the venue lists no symbol for this asset',
  asset_ambiguous:
    'several symbols of the venue have this base (prediction-market outcomes): send the outcome, e.g. TRUMP-INAUGURATED-YES',
  lot_size: 'qty has more decimals than the venue allows for this symbol',
  leverage_above_cap: "leverage is above the symbol's maximum on this venue",
  not_internalised:
    'the account is internalised and the platform engine has no symbol of this underlying (prediction-market outcomes)',
  no_agent: 'the account has no active, unexpired agent on this venue (POST /api/v1/accounts/{id}/agents)',
  no_quote: 'no fresh quote for the symbol (older than the mark age limit or validForMs)',
  insufficient_depth: 'the book does not hold enough size to fill qty',
} as const;
export type SkipReason = keyof typeof SKIP_REASONS;

/** Why routing could not pick a venue (docs/api.md §7.2). */
export type RoutingError = 'asset_unknown' | 'no_quotes' | 'no_eligible_venue';

/** The venue symbol an asset names, or why there is none. */
export type Listing = { spec: SymbolSpec } | { reason: 'asset_not_listed' | 'asset_ambiguous' };

/**
 * The symbol of `asset` among a venue's symbols, case-insensitive: the symbol whose name without
 * its venue suffix equals the asset (`TRUMP-INAUGURATED-YES` → `TRUMP-INAUGURATED-YES.PM`), else the
 * only symbol whose `base` equals it (`BTC` → `BTC.HL`); several such symbols are `asset_ambiguous`.
 */
export function listAsset(asset: string, symbols: readonly SymbolSpec[]): Listing {
  const a = asset.trim().toUpperCase();
  const exact = symbols.find((s) => s.symbol.slice(0, s.symbol.lastIndexOf('.')).toUpperCase() === a);
  if (exact) return { spec: exact };
  const byBase = symbols.filter((s) => s.base.toUpperCase() === a);
  if (byBase.length === 1) return { spec: byBase[0] };
  return { reason: byBase.length ? 'asset_ambiguous' : 'asset_not_listed' };
}

/** A quote as read from the mark store: prices USD, sizes contracts. */
export interface Quote {
  mark: Decimal;
  bid: Decimal;
  ask: Decimal;
  book: BookSnapshot;
}

/**
 * Where the platform engine fills an internalised account's order on a candidate (docs/api.md §1): the
 * paper symbol of the listed symbol's underlying (its lot size and leverage cap apply) and the tenant's
 * taker fee (bps), which the engine charges; null when the engine has no such symbol (`not_internalised`).
 */
export type Internalised = { spec: SymbolSpec; takerFeeBps: Decimal } | null;

/** What the caller read for one candidate venue. */
export interface VenueInput {
  venue: SorVenue;
  listing: Listing;
  /** The account has an active, unexpired agent on the venue (an internalised account needs none). */
  agentActive: boolean;
  /** A fresh quote of the symbol the order would execute on (an internalised account's: the paper twin's), or null. */
  quote: Quote | null;
  /** Present exactly for an internalised account: where the candidate's order executes. */
  internalised?: Internalised;
}

/** The routed order. `qty` in contracts; `leverage` as on compose. */
export interface RouteOrder {
  side: 'buy' | 'sell';
  qty: Decimal;
  leverage: number;
}

/**
 * One candidate as recorded and answered (decimal strings: USD to 6 places, bps to 4, prices to 8).
 * The cost fields are present exactly when `eligible`; `mark` whenever a fresh quote was read.
 */
export interface CandidateView {
  venue: SorVenue;
  symbol: string | null;
  eligible: boolean;
  reason?: SkipReason;
  mark?: string;
  takerFeeBps?: string;
  vwap?: string;
  allInPrice?: string;
  feeUsd?: string;
  spreadUsd?: string;
  impactUsd?: string;
  totalCostUsd?: string;
  totalCostBps?: string;
}

/** An eligible candidate with its estimate at full precision. */
export interface Scored {
  venue: SorVenue;
  symbol: string;
  mark: Decimal;
  estimate: CostEstimate;
}

/** The outcome of {@link decide}. */
export type Decision =
  | {
      ok: true;
      selected: Scored;
      nextBest: Scored | null;
      savingsUsd: Decimal | null;
      candidates: CandidateView[];
      eligibleCount: number;
    }
  | { ok: false; error: RoutingError; candidates: CandidateView[] };

const round = (v: Decimal, places: number) => fmt(v.toDecimalPlaces(places, Decimal.ROUND_HALF_EVEN));
/** Wire form of a USD amount (6 places). */
export const usd6 = (v: Decimal) => round(v, 6);
/** Wire form of basis points (4 places). */
export const bps4 = (v: Decimal) => round(v, 4);
/** Wire form of a price (8 places). */
export const px8 = (v: Decimal) => round(v, 8);

/**
 * The checks before the estimate, in order: the first that fails names the skip reason. `spec` is the symbol
 * the order executes on (an internalised account's: the paper twin).
 */
const CHECKS: { reason: SkipReason; fails: (spec: SymbolSpec, v: VenueInput, o: RouteOrder) => boolean }[] = [
  { reason: 'not_internalised', fails: (_s, v) => v.internalised === null },
  { reason: 'lot_size', fails: (spec, _v, o) => o.qty.decimalPlaces() > spec.szDecimals },
  { reason: 'leverage_above_cap', fails: (spec, _v, o) => o.leverage > spec.maxLeverage },
  { reason: 'no_agent', fails: (_s, v) => v.internalised === undefined && !v.agentActive },
  { reason: 'no_quote', fails: (_s, v) => !v.quote },
];

/** Decides the venue of a routed order from what was read per candidate (module doc). */
export function decide(order: RouteOrder, inputs: readonly VenueInput[]): Decision {
  const candidates: CandidateView[] = [];
  const scored: Scored[] = [];
  for (const venue of SOR_VENUES) {
    const v = inputs.find((i) => i.venue === venue);
    if (!v) continue;
    if ('reason' in v.listing) {
      candidates.push({ venue, symbol: null, eligible: false, reason: v.listing.reason });
      continue;
    }
    const spec = v.listing.spec;
    const skip = (reason: SkipReason) =>
      candidates.push({
        venue,
        symbol: spec.symbol,
        eligible: false,
        reason,
        ...(v.quote ? { mark: px8(v.quote.mark) } : {}),
      });
    const failed = CHECKS.find((c) => c.fails(v.internalised?.spec ?? spec, v, order));
    if (failed) {
      skip(failed.reason);
      continue;
    }
    const q = v.quote!;
    const fee = v.internalised?.takerFeeBps ?? new Decimal(TAKER_FEE_BPS[venue]);
    const estimate = estimateCost({
      side: order.side,
      qty: order.qty,
      mark: q.mark,
      bid: q.bid,
      ask: q.ask,
      book: q.book,
      takerFeeBps: fee,
    });
    if ('reason' in estimate) {
      skip(estimate.reason);
      continue;
    }
    scored.push({ venue, symbol: spec.symbol, mark: q.mark, estimate });
    candidates.push({
      venue,
      symbol: spec.symbol,
      eligible: true,
      mark: px8(q.mark),
      takerFeeBps: fmt(fee),
      vwap: px8(estimate.vwap),
      allInPrice: px8(estimate.allInPrice),
      feeUsd: usd6(estimate.feeUsd),
      spreadUsd: usd6(estimate.spreadUsd),
      impactUsd: usd6(estimate.impactUsd),
      totalCostUsd: usd6(estimate.totalCostUsd),
      totalCostBps: bps4(estimate.totalCostBps),
    });
  }
  if (!scored.length) return { ok: false, error: routingError(candidates), candidates };
  const s = sideSign(order.side);
  // Stable sort: equal all-in prices keep SOR_VENUES order.
  const ranked = [...scored].sort((a, b) => a.estimate.allInPrice.minus(b.estimate.allInPrice).times(s).comparedTo(0));
  const [selected, nextBest = null] = ranked;
  const savingsUsd = nextBest
    ? nextBest.estimate.allInPrice.minus(selected.estimate.allInPrice).times(s).times(order.qty)
    : null;
  return { ok: true, selected, nextBest, savingsUsd, candidates, eligibleCount: scored.length };
}

/** The error when nothing is eligible (module doc). */
function routingError(candidates: readonly CandidateView[]): RoutingError {
  const listed = candidates.filter((c) => c.reason !== 'asset_not_listed');
  if (!listed.length) return 'asset_unknown';
  return listed.every((c) => c.reason === 'no_quote') ? 'no_quotes' : 'no_eligible_venue';
}

/**
 * Realised savings of one filled routed order versus the next-best venue's estimate, USD:
 * s × (nextBestAllInPrice − realisedAllInPrice) × filledQty, where realisedAllInPrice =
 * avgFillPrice + s × feesUsd / filledQty (s = +1 buy, −1 sell). Positive: routing saved money.
 * @throws Error when `filledQty` is not positive.
 */
export function realisedSavings(i: {
  side: 'buy' | 'sell';
  nextBestAllInPrice: Decimal;
  avgFillPrice: Decimal;
  filledQty: Decimal;
  feesUsd: Decimal;
}): Decimal {
  if (i.filledQty.lte(0)) throw new Error('realisedSavings needs a positive filledQty');
  const s = sideSign(i.side);
  const realisedAllIn = i.avgFillPrice.plus(i.feesUsd.div(i.filledQty).times(s));
  return i.nextBestAllInPrice.minus(realisedAllIn).times(s).times(i.filledQty);
}

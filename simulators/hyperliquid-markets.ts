/**
 * The Hyperliquid simulator's market data (simulators/hyperliquid.ts; docs/venues.md §1.7): its perps
 * are the platform's Hyperliquid symbol table (domain/market/venues/hyperliquid.ts), its prices the
 * platform's marks of those symbols. Builds what the public `POST /info` types answer — `meta`,
 * `metaAndAssetCtxs`, `allMids`, `l2Book`, `spotMeta`, `spotMetaAndAssetCtxs`, `perpDexs`, `outcomeMeta` — typed with the response types
 * of Hyperliquid's published TypeScript SDK (`@nktkas/hyperliquid`), so a missing or misnamed field
 * fails the typecheck. Pure apart from reading marks.
 *
 * Universe: entry `i` is the perp whose asset index (`venueSymbol`) is `i`, so the SDK's
 * name → index map (its `SymbolConverter`) gives the indexes the venue uses (BTC 0, ETH 1, SOL 5).
 * Indexes the platform does not route hold the mainnet coin of that index, listed `isDelisted`
 * (never tradeable here). Margin tables: one single-tier table per leverage cap, id = the cap (the
 * venue's numbering of its plain tables).
 *
 * Book of a coin (USD prices, sizes in coins): around the mark `m`, on the price step `tick` of the
 * venue's price rule at that level (≤ 5 significant figures, ≤ 6 − szDecimals decimals; integers
 * always valid): best bid = m rounded down to the step, best ask = m rounded up; a mark on the step
 * gets bid m − tick and ask m + tick, so the mid is the mark. {@link BOOK_LEVELS} levels a side,
 * {@link LEVEL_NOTIONAL_USD} of synthetic depth each (`n` 1), plus the owners' resting limit orders at
 * their prices (merged into a level, `n` counts them), at most {@link MAX_LEVELS} a side.
 */
import type {
  AllMidsResponse,
  L2BookResponse,
  MetaAndAssetCtxsResponse,
  MetaResponse,
  OutcomeMetaResponse,
  PerpDexsResponse,
  SpotMetaAndAssetCtxsResponse,
  SpotMetaResponse,
} from '@nktkas/hyperliquid/api/info';
import { Decimal } from '../domain/decimal.js';
import { findByVenueSymbol, type SymbolSpec } from '../domain/market/symbols.js';
import { HYPERLIQUID_SYMBOLS } from '../domain/market/venues/hyperliquid.js';
import { MAX_PRICE_DECIMALS, PRICE_SIG_FIGS, specOfCoin, toWire } from '../venues/hyperliquid/wire.js';
import { sumLevels } from './book.js';

/** Synthetic levels shown on each side of a book. */
const BOOK_LEVELS = 10;
/** Levels a side the venue sends at most (`l2Book`). */
const MAX_LEVELS = 20;
/** Synthetic depth of one level, USD of notional (its size is this over the mark, rounded down to szDecimals). */
const LEVEL_NOTIONAL_USD = '50000';

/**
 * Mainnet universe entries at the indexes the platform does not route (index → coin, szDecimals,
 * leverage cap): placeholders so that routed coins keep their mainnet index; served `isDelisted`.
 */
const UNROUTED: Readonly<Record<number, readonly [name: string, szDecimals: number, maxLeverage: number]>> = {
  2: ['ATOM', 2, 5],
  3: ['MATIC', 1, 5],
  4: ['DYDX', 1, 5],
};

/** USDC, the collateral token (spot token 0), as `spotMeta` lists it. */
const USDC_TOKEN: SpotMetaResponse['tokens'][number] = {
  name: 'USDC',
  szDecimals: 8,
  weiDecimals: 8,
  index: 0,
  tokenId: '0x6d1e7cde53ba9467b783cb7c530ce054',
  isCanonical: true,
  evmContract: null,
  fullName: null,
  deployerTradingFeeShare: '0.0',
};

/** A USDC amount or USD price as the venue writes it: at most 6 decimals, half-even, as a number string ({@link toWire}). */
export const usdc = (v: Decimal): string => toWire(v.toDecimalPlaces(6, Decimal.ROUND_HALF_EVEN));

/** A resting limit order as the book shows it: side, limit price (USD) and remaining size (coins). */
export interface BookOrder {
  isBuy: boolean;
  px: Decimal;
  sz: Decimal;
}

/** The traded volume of a coin over the last day: notional (USD) and size (coins). */
export interface DayVolume {
  notional: Decimal;
  base: Decimal;
}

/** Universe size: one past the highest routed asset index. */
const UNIVERSE_SIZE = Math.max(...HYPERLIQUID_SYMBOLS.map((s) => Number(s.venueSymbol))) + 1;

/** `meta` (main dex): the universe by asset index, its margin tables, collateral token 0 (USDC). */
export function meta(): MetaResponse {
  const universe: MetaResponse['universe'] = [];
  for (let i = 0; i < UNIVERSE_SIZE; i++) {
    const spec = findByVenueSymbol('hyperliquid', String(i));
    if (spec) {
      const { base, szDecimals, maxLeverage } = spec;
      universe.push({ szDecimals, name: base, maxLeverage, marginTableId: maxLeverage });
    } else {
      const [name, szDecimals, maxLeverage] = UNROUTED[i] ?? [`@${i}`, 0, 1];
      universe.push({ szDecimals, name, maxLeverage, marginTableId: maxLeverage, isDelisted: true });
    }
  }
  const caps = [...new Set(universe.map((u) => u.maxLeverage))].sort((a, b) => a - b);
  return {
    universe,
    marginTables: caps.map((cap) => [cap, { description: '', marginTiers: [{ lowerBound: '0.0', maxLeverage: cap }] }]),
    collateralToken: 0,
  };
}

/** The price step of the venue's price rule at `mark`'s level for an asset of `szDecimals` (a power of ten ≤ 1). */
function priceStep(mark: Decimal, szDecimals: number): Decimal {
  const sigExponent = mark.e - (PRICE_SIG_FIGS - 1); // the 5th significant digit
  const exponent = Math.min(0, Math.max(sigExponent, -(MAX_PRICE_DECIMALS.perp - szDecimals)));
  return new Decimal(10).pow(exponent);
}

/** Best bid and ask around `mark` (module doc): rounded down / up to the step; a mark on the step gets ± one step. */
function touch(mark: Decimal, szDecimals: number): { bid: Decimal; ask: Decimal; tick: Decimal } {
  const tick = priceStep(mark, szDecimals);
  const down = mark.div(tick).floor().mul(tick);
  const up = mark.div(tick).ceil().mul(tick);
  return down.eq(up) ? { bid: down.sub(tick), ask: up.add(tick), tick } : { bid: down, ask: up, tick };
}

/** One side of an `l2Book` answer: levels `{px, sz, n}` (USD, coins, orders). */
type Level = NonNullable<L2BookResponse>['levels'][0];

/**
 * The `[bids, asks]` levels of a coin at `mark` (module doc), with `resting` orders merged in: bids
 * descending, asks ascending, prices and sizes as number strings.
 */
function bookLevels(spec: SymbolSpec, mark: Decimal | null, resting: BookOrder[]): [Level, Level] {
  const sides = { bid: [] as { px: Decimal; sz: Decimal }[], ask: [] as { px: Decimal; sz: Decimal }[] };
  if (mark !== null && mark.gt(0)) {
    const { bid, ask, tick } = touch(mark, spec.szDecimals);
    const size = new Decimal(LEVEL_NOTIONAL_USD).div(mark).toDecimalPlaces(spec.szDecimals, Decimal.ROUND_DOWN);
    const lot = new Decimal(10).pow(-spec.szDecimals);
    for (let k = 0; k < BOOK_LEVELS; k++) {
      sides.bid.push({ px: bid.sub(tick.mul(k)), sz: Decimal.max(size, lot) });
      sides.ask.push({ px: ask.add(tick.mul(k)), sz: Decimal.max(size, lot) });
    }
  }
  for (const o of resting) sides[o.isBuy ? 'bid' : 'ask'].push(o);
  const out = (side: 'bid' | 'ask'): Level => {
    const levels = sumLevels(sides[side].filter((o) => o.px.gt(0) && o.sz.gt(0)));
    return (side === 'bid' ? levels.reverse() : levels)
      .slice(0, MAX_LEVELS)
      .map((l) => ({ px: toWire(l.px), sz: toWire(l.sz), n: l.n }));
  };
  return [out('bid'), out('ask')];
}

/** `l2Book` of `coin` (null for a coin the universe does not route, as the venue answers an unknown coin). */
export function l2Book(coin: string, mark: Decimal | null, resting: BookOrder[], now = Date.now()): L2BookResponse {
  const spec = specOfCoin(coin);
  if (!spec) return null;
  return { coin, time: now, levels: bookLevels(spec, mark, resting) };
}

/** The mid of a book's touch (USD), or null when a side is empty. */
function midOf([bids, asks]: [Level, Level]): Decimal | null {
  if (bids.length === 0 || asks.length === 0) return null;
  return new Decimal(bids[0].px).add(asks[0].px).div(2);
}

/** `allMids`: coin → mid of its book (decimal string), for the routed coins with a mark. */
export function allMids(
  marks: ReadonlyMap<string, Decimal | null>,
  restingOf: (coin: string) => BookOrder[],
): AllMidsResponse {
  const out: AllMidsResponse = {};
  for (const spec of HYPERLIQUID_SYMBOLS) {
    const mark = marks.get(spec.base) ?? null;
    if (mark === null) continue;
    const mid = midOf(bookLevels(spec, mark, restingOf(spec.base)));
    if (mid !== null) out[spec.base] = toWire(mid);
  }
  return out;
}

/**
 * `metaAndAssetCtxs`: {@link meta} and one context per universe entry: `markPx` = `oraclePx` = the
 * mark, `midPx` and `impactPxs` from the book's touch, `prevDayPx` the mark (no history kept),
 * `funding`, `premium` and `openInterest` `"0.0"` (no funding, open interest not tracked), the day's
 * volumes from the simulator's own fills. An entry without a mark has `markPx` `"0.0"` and null mid.
 */
export function metaAndAssetCtxs(
  marks: ReadonlyMap<string, Decimal | null>,
  restingOf: (coin: string) => BookOrder[],
  volumeOf: (coin: string) => DayVolume,
): MetaAndAssetCtxsResponse {
  const m = meta();
  const ctxs = m.universe.map((u) => {
    const spec = specOfCoin(u.name);
    const mark = u.isDelisted || !spec ? null : (marks.get(u.name) ?? null);
    const levels = spec && mark ? bookLevels(spec, mark, restingOf(u.name)) : null;
    const mid = levels ? midOf(levels) : null;
    const px = mark ? toWire(mark) : '0.0';
    const vol = volumeOf(u.name);
    return {
      prevDayPx: px,
      dayNtlVlm: usdc(vol.notional),
      markPx: px,
      midPx: mid ? toWire(mid) : null,
      funding: '0.0',
      openInterest: '0.0',
      premium: mark ? '0.0' : null,
      oraclePx: px,
      impactPxs: levels && mid ? ([levels[0][0].px, levels[1][0].px] as [string, string]) : null,
      dayBaseVlm: toWire(vol.base),
    };
  });
  return [m, ctxs];
}

/** `spotMeta`: no spot pairs; the one token USDC (the perps' collateral). */
export function spotMeta(): SpotMetaResponse {
  return { universe: [], tokens: [USDC_TOKEN] };
}

/** `spotMetaAndAssetCtxs`: {@link spotMeta} and no spot asset contexts (no spot pairs). */
export function spotMetaAndAssetCtxs(): SpotMetaAndAssetCtxsResponse {
  return [spotMeta(), []];
}

/** `perpDexs`: the main dex only (its entry is `null`); no builder-deployed perp dexes. */
export function perpDexs(): PerpDexsResponse {
  return [null];
}

/** `outcomeMeta`: no outcome markets. */
export function outcomeMeta(): OutcomeMetaResponse {
  return { outcomes: [], questions: [] };
}

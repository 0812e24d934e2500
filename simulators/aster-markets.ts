/**
 * The Aster simulator's public market data (simulators/aster.ts; docs/venues.md §2.3): its perps are the
 * platform's Aster symbol table (domain/market/venues/aster.ts), its prices the platform's marks of
 * those symbols. Builds what the public routes answer, in the shapes of Aster's Futures v3 docs
 * (asterdex/api-docs `V3(Recommended)/EN/aster-finance-futures-api-v3.md`): `GET /fapi/v3/exchangeInfo`,
 * `GET /fapi/v3/depth`, `GET /fapi/v3/ticker/24hr`, `GET /fapi/v3/leverageBracket`, and the spot host's
 * `GET /api/v3/exchangeInfo` (no spot pairs). Pure apart from the clock.
 *
 * Book of a symbol (USDT prices, sizes in coins): best bid = the mark rounded down to the tick, best ask
 * = the mark rounded up (a mark on the tick: one tick either side), {@link BOOK_LEVELS} levels a side of
 * {@link LEVEL_NOTIONAL_USD} of synthetic depth each, plus the users' resting limit orders at their prices.
 */
import { Decimal } from '../domain/decimal.js';
import type { SymbolSpec } from '../domain/market/symbols.js';
import { ASTER_SYMBOLS } from '../domain/market/venues/aster.js';
import { sumLevels } from './book.js';

/** Synthetic levels shown on each side of a book. */
const BOOK_LEVELS = 10;
/** Synthetic depth of one level, USD of notional (its size is this over the mark, rounded down to the lot). */
const LEVEL_NOTIONAL_USD = '50000';
/** `limit`s `GET /fapi/v3/depth` takes (levels a side); 500 when absent. */
const DEPTH_LIMITS = [5, 10, 20, 50, 100, 500, 1000];
/** The one leverage bracket's notional cap (USDT): the symbol table holds no brackets. */
const NOTIONAL_CAP = 1_000_000;
/** Listing time of every symbol (epoch ms): the symbol table holds none. */
const ONBOARD_DATE = 1_735_689_600_000;
/** `deliveryDate` of a perpetual, as the venue writes it (year 2100). */
const PERPETUAL_DELIVERY = 4_133_404_800_000;
/** The minimum order notional (USDT) every symbol's `MIN_NOTIONAL` filter states; the simulator enforces it. */
export const MIN_NOTIONAL_USDT = '5';
const DAY_MS = 86_400_000;

/** Decimal places of a tick size string (`'0.01'` → 2). */
export const priceDecimals = (spec: SymbolSpec): number => Math.max(0, new Decimal(spec.tickSize).decimalPlaces());

/** The lot of a symbol (`10^-szDecimals`) as a decimal string. */
const lotOf = (spec: SymbolSpec): string => new Decimal(10).pow(-spec.szDecimals).toFixed(spec.szDecimals);

/** The venue's rate limits, as `exchangeInfo` states them (the simulator enforces none). */
const RATE_LIMITS = [
  { rateLimitType: 'REQUEST_WEIGHT', interval: 'MINUTE', intervalNum: 1, limit: 2400 },
  { rateLimitType: 'ORDERS', interval: 'MINUTE', intervalNum: 1, limit: 1200 },
];

/** One `exchangeInfo` symbol: a USDT-margined perpetual with the filters the simulator enforces (tick, lot, minimum notional). */
function symbolInfo(spec: SymbolSpec & { venueSymbol: string }) {
  const lot = lotOf(spec);
  return {
    symbol: spec.venueSymbol,
    pair: spec.venueSymbol,
    contractType: 'PERPETUAL',
    deliveryDate: PERPETUAL_DELIVERY,
    onboardDate: ONBOARD_DATE,
    status: 'TRADING',
    maintMarginPercent: new Decimal(50).div(spec.maxLeverage).toFixed(4),
    requiredMarginPercent: new Decimal(100).div(spec.maxLeverage).toFixed(4),
    baseAsset: spec.base,
    quoteAsset: 'USDT',
    marginAsset: 'USDT',
    pricePrecision: priceDecimals(spec),
    quantityPrecision: spec.szDecimals,
    baseAssetPrecision: 8,
    quotePrecision: 8,
    underlyingType: 'COIN',
    underlyingSubType: [],
    settlePlan: 0,
    triggerProtect: '0.0500',
    filters: [
      { filterType: 'PRICE_FILTER', minPrice: spec.tickSize, maxPrice: '10000000', tickSize: spec.tickSize },
      { filterType: 'LOT_SIZE', minQty: lot, maxQty: '1000000', stepSize: lot },
      { filterType: 'MARKET_LOT_SIZE', minQty: lot, maxQty: '1000000', stepSize: lot },
      { filterType: 'MIN_NOTIONAL', notional: MIN_NOTIONAL_USDT },
    ],
    OrderType: ['LIMIT', 'MARKET', 'STOP', 'STOP_MARKET', 'TAKE_PROFIT', 'TAKE_PROFIT_MARKET'],
    timeInForce: ['GTC', 'IOC', 'FOK', 'GTX'],
    liquidationFee: '0.010000',
    marketTakeBound: '0.05',
  };
}

/** `GET /fapi/v3/exchangeInfo`: the routed perps (module doc), USDT the one margin asset. */
export function exchangeInfo(now = Date.now()) {
  return {
    timezone: 'UTC',
    serverTime: now,
    rateLimits: RATE_LIMITS,
    exchangeFilters: [],
    assets: [{ asset: 'USDT', marginAvailable: true, autoAssetExchange: 0 }],
    symbols: ASTER_SYMBOLS.map((s) => symbolInfo(s as SymbolSpec & { venueSymbol: string })),
  };
}

/** The spot host's `GET /api/v3/exchangeInfo`: no spot pairs (the simulator is the futures venue only). */
export function spotExchangeInfo(now = Date.now()) {
  return { timezone: 'UTC', serverTime: now, rateLimits: RATE_LIMITS, exchangeFilters: [], assets: [], symbols: [] };
}

/** A resting limit order as the book shows it: side, limit price (USDT) and remaining size (coins). */
export interface BookOrder {
  isBuy: boolean;
  px: Decimal;
  sz: Decimal;
}

/**
 * The levels a side `GET /fapi/v3/depth` may show: the `limit` asked if it is one the venue takes, 500
 * when absent. @returns null for any other `limit`.
 */
export function depthLimit(raw: string | null): number | null {
  if (raw === null || raw === '') return 500;
  const n = Number(raw);
  return DEPTH_LIMITS.includes(n) ? n : null;
}

/**
 * `GET /fapi/v3/depth` of a symbol at `mark` (module doc), at most `limit` levels a side: bids
 * descending, asks ascending, `[price, qty]` with the tick's and the lot's decimals. No mark: only the
 * resting orders. `halfSpread` (a fraction, default 0) widens the synthetic touch: best bid = mark × (1 −
 * halfSpread) rounded down to the tick, best ask = mark × (1 + halfSpread) rounded up (simulators/aster-prices.ts).
 */
export function depth(
  spec: SymbolSpec,
  mark: Decimal | null,
  resting: BookOrder[],
  limit: number,
  now = Date.now(),
  halfSpread: Decimal | string = '0',
) {
  const sides = { bid: [] as { px: Decimal; sz: Decimal }[], ask: [] as { px: Decimal; sz: Decimal }[] };
  if (mark !== null && mark.gt(0)) {
    const tick = new Decimal(spec.tickSize);
    const h = new Decimal(halfSpread);
    const down = mark.mul(new Decimal(1).sub(h)).div(tick).floor().mul(tick);
    const up = mark.mul(new Decimal(1).add(h)).div(tick).ceil().mul(tick);
    const [bid, ask] = down.eq(up) ? [down.sub(tick), up.add(tick)] : [down, up];
    const lot = new Decimal(lotOf(spec));
    const size = Decimal.max(
      lot,
      new Decimal(LEVEL_NOTIONAL_USD).div(mark).toDecimalPlaces(spec.szDecimals, Decimal.ROUND_DOWN),
    );
    for (let k = 0; k < BOOK_LEVELS; k++) {
      sides.bid.push({ px: bid.sub(tick.mul(k)), sz: size });
      sides.ask.push({ px: ask.add(tick.mul(k)), sz: size });
    }
  }
  for (const o of resting) sides[o.isBuy ? 'bid' : 'ask'].push(o);
  const out = (side: 'bid' | 'ask') => {
    const levels = sumLevels(sides[side].filter((o) => o.px.gt(0) && o.sz.gt(0)));
    return (side === 'bid' ? levels.reverse() : levels)
      .slice(0, limit)
      .map((l) => [l.px.toFixed(priceDecimals(spec)), l.sz.toFixed(spec.szDecimals)]);
  };
  return { lastUpdateId: now, E: now, T: now, bids: out('bid'), asks: out('ask') };
}

/** One of the simulator's trades, as the ticker counts it. */
export interface TickerTrade {
  id: number;
  qty: Decimal;
  quoteQty: Decimal;
  time: number;
}

/**
 * `GET /fapi/v3/ticker/24hr` of a symbol: no price history is kept, so every price (open, high, low,
 * last, previous close, weighted average without trades) is the mark and the change is zero; volume,
 * quote volume, count and the first and last trade ids are the simulator's own trades of the last 24 h
 * (`trades`, oldest first; ids −1 when none).
 */
export function ticker24hr(
  spec: SymbolSpec & { venueSymbol: string },
  mark: Decimal,
  trades: TickerTrade[],
  now = Date.now(),
) {
  const pd = priceDecimals(spec);
  const day = trades.filter((t) => t.time > now - DAY_MS && t.time <= now);
  const volume = day.reduce((s, t) => s.add(t.qty), new Decimal(0));
  const quoteVolume = day.reduce((s, t) => s.add(t.quoteQty), new Decimal(0));
  const px = mark.toFixed(pd);
  return {
    symbol: spec.venueSymbol,
    priceChange: new Decimal(0).toFixed(pd),
    priceChangePercent: '0.000',
    weightedAvgPrice: volume.isZero() ? px : quoteVolume.div(volume).toFixed(pd),
    prevClosePrice: px,
    lastPrice: px,
    lastQty: new Decimal(0).toFixed(spec.szDecimals),
    openPrice: px,
    highPrice: px,
    lowPrice: px,
    volume: volume.toFixed(spec.szDecimals),
    quoteVolume: quoteVolume.toFixed(2),
    openTime: now - DAY_MS,
    closeTime: now,
    firstId: day.at(0)?.id ?? -1,
    lastId: day.at(-1)?.id ?? -1,
    count: day.length,
  };
}

/**
 * `GET /fapi/v3/leverageBracket` entry of a symbol: one bracket, up to the symbol's leverage cap and
 * {@link NOTIONAL_CAP}, maintenance ratio 1 / (2 × cap) (the symbol table holds no tiers).
 */
export function leverageBracket(spec: SymbolSpec & { venueSymbol: string }) {
  return {
    symbol: spec.venueSymbol,
    brackets: [
      {
        bracket: 1,
        initialLeverage: spec.maxLeverage,
        notionalCap: NOTIONAL_CAP,
        notionalFloor: 0,
        maintMarginRatio: 1 / (2 * spec.maxLeverage),
        cum: 0,
      },
    ],
  };
}

/** `maxNotionalValue` of a position: the notional cap of its one bracket, as text. */
export const MAX_NOTIONAL_VALUE = String(NOTIONAL_CAP);

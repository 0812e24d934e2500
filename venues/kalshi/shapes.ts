/**
 * The JSON shapes the Kalshi adapter reads (docs/venues.md §4.2), as zod schemas of the fields it
 * uses (the rest of each object passes through unchecked), and their reading in the platform's
 * vocabulary (venues/types.ts). Every count is a fixed-point `*_fp` string (contracts, 2 decimals),
 * every price, cost and fee a fixed-point `*_dollars` string (USD, up to 6 decimals); the integer
 * `count` / cents fields Kalshi retired are not read. Direction is `book_side` (`bid`/`ask`), the
 * deprecated `side`/`action` are not read. Pure (no I/O).
 *
 * Reading "as" a side: an order or fill is one direction in Kalshi's single YES book, which a
 * platform symbol can name two ways (a bid buys YES or sells NO). The caller who knows the symbol
 * (status, cancel, lookup, an order's fills) reads it as that symbol's side; without one
 * (`orders()`, unfiltered fills) it is read as a buy of the outcome it leaves the member long
 * (`outcome_side`): a bid as a buy of YES, an ask as a buy of NO.
 */
import { z } from 'zod';
import { Decimal, ZERO } from '../../domain/decimal.js';
import { fullyPaidAccount } from '../account.js';
import { text } from '../wire.js';
import type { VenueAccount, VenueFill, VenueOrder } from '../types.js';
import {
  ACTION_OF,
  OUTCOME_OF,
  otherSide,
  plain,
  platformStatus,
  platformSymbol,
  sidePrice,
  type Action,
  type BookSide,
  type KalshiSide,
} from './wire.js';

/** A fixed-point decimal string (`"10.00"`, `"0.5600"`). */
const fixed = z.string().regex(/^-?\d+(\.\d+)?$/, 'a fixed-point decimal string');
const bookSide = z.enum(['bid', 'ask']);
const time = z.string().nullish();

/**
 * A Kalshi order (`GET /portfolio/orders/{id}` → `{order}`, `GET /portfolio/orders` → `{orders}`).
 * `*_cost_dollars` are what the member paid for the outcome it went long (`outcome_side`), summed
 * over the order's fills. The venue also sends `user_id`, `outcome_side` (≡ `book_side`), `type`,
 * `expiration_time`, `self_trade_prevention_type`, `order_group_id`, `cancel_order_on_pause`,
 * `subaccount_number`, `exchange_index`.
 */
export const wireOrderSchema = z.looseObject({
  order_id: text,
  client_order_id: text.nullish(),
  ticker: text,
  book_side: bookSide,
  status: text,
  yes_price_dollars: fixed,
  no_price_dollars: fixed,
  fill_count_fp: fixed,
  remaining_count_fp: fixed,
  initial_count_fp: fixed,
  taker_fill_cost_dollars: fixed,
  maker_fill_cost_dollars: fixed,
  taker_fees_dollars: fixed.optional(),
  maker_fees_dollars: fixed.optional(),
  created_time: time,
  last_update_time: time,
});
export type WireOrder = z.infer<typeof wireOrderSchema>;

/**
 * `POST /portfolio/events/orders` → 201: the new order's id, what filled at once and what rests
 * (`remaining_count` 0 for an IOC's canceled rest), the average fill price (YES price, present once
 * something filled) and the matching engine's time `ts_ms` (epoch ms). Not a full order.
 */
export const wireCreatedSchema = z.looseObject({
  order_id: text,
  client_order_id: text.nullish(),
  fill_count: fixed,
  remaining_count: fixed,
  average_fill_price: fixed.nullish(),
  average_fee_paid: fixed.nullish(),
  ts_ms: z.number().optional(),
});
export type WireCreated = z.infer<typeof wireCreatedSchema>;

/**
 * A Kalshi fill (`GET /portfolio/fills` → `{fills, cursor}`): `count_fp` contracts at
 * `yes_price_dollars` / `no_price_dollars`, `fee_cost` USD, `created_time` ISO 8601 (`ts` epoch
 * seconds, legacy). A fill names no client order id. The venue also sends `trade_id` (= `fill_id`),
 * `market_ticker` (= `ticker`), `outcome_side`, `subaccount_number`, `exchange_index`.
 */
export const wireFillSchema = z.looseObject({
  fill_id: text,
  order_id: text,
  ticker: text,
  book_side: bookSide,
  count_fp: fixed,
  yes_price_dollars: fixed,
  no_price_dollars: fixed,
  is_taker: z.boolean(),
  fee_cost: fixed,
  created_time: text.optional(),
  ts: z.number().optional(),
});
export type WireFill = z.infer<typeof wireFillSchema>;

/**
 * `GET /portfolio/balance`: the member's free cash `balance_dollars` (USD) and the value of its
 * positions `portfolio_value` (whole cents: the response has no dollar twin of it). The venue also
 * sends `balance` (cents), `updated_ts` and `balance_breakdown`.
 */
export const wireBalanceSchema = z.looseObject({
  balance_dollars: fixed,
  portfolio_value: z.number().int().optional(),
});
export type WireBalance = z.infer<typeof wireBalanceSchema>;

/**
 * One market position (`GET /portfolio/positions` → `{market_positions, event_positions, cursor}`):
 * `position_fp` signed contracts (+ YES, − NO), `market_exposure_dollars` their cost, USD. The venue
 * also sends `total_traded_dollars`, `realized_pnl_dollars`, `fees_paid_dollars`, `last_updated_ts`.
 */
export const wireMarketPositionSchema = z.looseObject({
  ticker: text,
  position_fp: fixed,
  market_exposure_dollars: fixed,
});
export type WireMarketPosition = z.infer<typeof wireMarketPositionSchema>;

/** How an order or fill of `book` is read as symbol side `as` (default: the outcome it is long). */
function direction(book: BookSide, as?: KalshiSide): { side: KalshiSide; action: Action } {
  const side = as ?? OUTCOME_OF[book];
  return { side, action: ACTION_OF[`${side}:${book}`] };
}

/** An epoch-ms time from ISO text, else `fallback`. */
const msOf = (iso: string | null | undefined, fallback: number): number => {
  const t = Date.parse(iso ?? '');
  return Number.isFinite(t) ? t : fallback;
};

/**
 * A Kalshi order in the platform's vocabulary, read as symbol side `as` (module doc): the symbol and
 * action, that side's price, counts, the status from the STATUS table, and the average fill price =
 * (taker + maker fill cost) ÷ filled contracts, which is the outcome's price, turned to `as`'s side.
 */
export function toVenueOrder(w: WireOrder, as?: KalshiSide): VenueOrder {
  const { side, action } = direction(w.book_side, as);
  const filled = new Decimal(w.fill_count_fp);
  const outlay = new Decimal(w.taker_fill_cost_dollars).plus(w.maker_fill_cost_dollars);
  const avgOutcome = filled.gt(0) ? outlay.div(filled) : null;
  const avg = avgOutcome && (side === OUTCOME_OF[w.book_side] ? avgOutcome : otherSide(avgOutcome));
  return {
    venueOrderId: w.order_id,
    clientOrderId: w.client_order_id || null,
    symbol: platformSymbol(w.ticker, side),
    side: action,
    type: 'limit',
    qty: plain(w.initial_count_fp),
    price: plain(side === 'yes' ? w.yes_price_dollars : w.no_price_dollars),
    status: platformStatus(w.status),
    filledQty: plain(filled),
    avgFillPrice: avg ? plain(avg.toDecimalPlaces(6, Decimal.ROUND_HALF_EVEN)) : null,
    updatedAt: msOf(w.last_update_time ?? w.created_time, Date.now()),
  };
}

/**
 * The order a `POST /portfolio/events/orders` answer describes (`created`), for the platform order
 * it placed (`sent`: its symbol, action, type, size and side price): open while contracts rest,
 * filled when all filled, else canceled (an IOC's unfilled rest); the average fill price is the
 * venue's YES price turned to the symbol's side.
 */
export function createdOrder(
  created: WireCreated,
  sent: { symbol: string; side: KalshiSide; action: Action; type: string; qty: string; price: string },
): VenueOrder {
  const filled = new Decimal(created.fill_count);
  const resting = new Decimal(created.remaining_count);
  const status = resting.gt(0) ? 'open' : filled.gte(sent.qty) ? 'filled' : 'canceled';
  const avg = created.average_fill_price && filled.gt(0) ? sidePrice(sent.side, created.average_fill_price) : null;
  return {
    venueOrderId: created.order_id,
    clientOrderId: created.client_order_id || null,
    symbol: sent.symbol,
    side: sent.action,
    type: sent.type,
    qty: plain(sent.qty),
    price: plain(sent.price),
    status,
    filledQty: plain(filled),
    avgFillPrice: avg ? plain(avg) : null,
    updatedAt: created.ts_ms ?? Date.now(),
  };
}

/** A Kalshi fill in the platform's vocabulary, read as symbol side `as` (module doc); the fee is the venue's `fee_cost`. */
export function toVenueFill(f: WireFill, as?: KalshiSide): VenueFill {
  const { side, action } = direction(f.book_side, as);
  return {
    venueTradeId: f.fill_id,
    venueOrderId: f.order_id,
    clientOrderId: null,
    symbol: platformSymbol(f.ticker, side),
    side: action,
    qty: plain(f.count_fp),
    price: plain(side === 'yes' ? f.yes_price_dollars : f.no_price_dollars),
    feeUsd: plain(f.fee_cost),
    time: msOf(f.created_time, (f.ts ?? 0) * 1000),
  };
}

/**
 * The member's account (venues/account.ts `fullyPaidAccount`): cash from `balance_dollars`, the
 * positions' value from `portfolio_value` (cents → USD), each open market position as the symbol of
 * the side held (`position_fp` > 0: YES, < 0: NO) with its average entry = exposure ÷ contracts.
 */
export function toVenueAccount(b: WireBalance, markets: WireMarketPosition[]): VenueAccount {
  const positions = markets
    .map((m) => ({ m, qty: new Decimal(m.position_fp) }))
    .filter(({ qty }) => !qty.isZero())
    .map(({ m, qty }) => ({
      symbol: platformSymbol(m.ticker, qty.gt(ZERO) ? 'yes' : 'no'),
      qty: plain(qty.abs()),
      avgEntryPrice: plain(
        new Decimal(m.market_exposure_dollars).div(qty.abs()).toDecimalPlaces(6, Decimal.ROUND_HALF_EVEN),
      ),
      markPrice: null,
      unrealizedPnlUsd: null,
      leverage: null,
    }));
  const value = b.portfolio_value === undefined ? undefined : plain(new Decimal(b.portfolio_value).div(100));
  return fullyPaidAccount(plain(b.balance_dollars), positions, value);
}

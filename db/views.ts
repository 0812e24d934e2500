/**
 * Row → wire mappings shared by REST responses and `/ws/risk` frames, so a field has one name
 * everywhere. Decimals stay strings; times are ISO 8601.
 */
import type { InferEntity } from '@mikro-orm/core';
import { canon, Decimal, fmt } from '../domain/decimal.js';
import type { IntentView } from '../domain/oms/intent.js';
import type { Fill, OrderIntent, Position, Trade } from './entities.js';

/** The plain row shape of an entity schema. */
export type Row<S> = InferEntity<S>;
type IntentRow = Row<typeof OrderIntent>;

/** An intent as the API shows it (docs/api.md §2.6 fields + lifecycle). */
export function intentToView(i: IntentRow): IntentView {
  return {
    intentId: i.id,
    accountId: i.accountId,
    clientOrderId: i.clientOrderId ?? null,
    venue: i.venue,
    symbol: i.symbol,
    side: i.side as IntentView['side'],
    type: i.type as IntentView['type'],
    qty: canon(i.qty),
    price: canon(i.price),
    triggerPrice: canon(i.triggerPrice),
    stopLimitPrice: canon(i.stopLimitPrice),
    reduceOnly: i.reduceOnly,
    timeInForce: i.timeInForce as IntentView['timeInForce'],
    leverage: canon(i.leverage),
    state: i.state as IntentView['state'],
    orderStatus: (i.orderStatus ?? null) as IntentView['orderStatus'],
    venueOrderId: i.venueOrderId ?? null,
    filledQty: canon(i.filledQty),
    avgFillPrice: canon(i.avgFillPrice),
    lastEvent: i.lastEvent,
    rejectReason: i.rejectReason ?? null,
    createdAt: new Date(i.createdAt).toISOString(),
    updatedAt: new Date(i.updatedAt).toISOString(),
  };
}

/** A working order as `GET /accounts/{id}/orders` and `Open-Orders-Update` show it. */
export function workingOrderView(i: IntentRow) {
  const v = intentToView(i);
  return { ...v, remainingQty: fmt(new Decimal(i.qty).minus(i.filledQty)) };
}

/** A fill (docs/api.md §2.8). */
export function fillView(f: Row<typeof Fill>) {
  return {
    fillId: f.id,
    intentId: f.intentId,
    accountId: f.accountId,
    venue: f.venue,
    symbol: f.symbol,
    side: f.side,
    qty: canon(f.qty),
    price: canon(f.price),
    feeUsd: canon(f.feeUsd),
    liquidity: f.liquidity,
    realizedPnlUsd: canon(f.realizedPnlUsd),
    venueOrderId: f.venueOrderId,
    venueTradeId: f.venueTradeId,
    executedAt: new Date(f.executedAt).toISOString(),
  };
}

/** A position with its mark and unrealised PnL (USD). `mark` null when no fresh mark exists. */
export function positionView(p: Row<typeof Position>, mark: Decimal | null) {
  const qty = new Decimal(p.qty);
  const entry = new Decimal(p.avgEntryPrice);
  return {
    accountId: p.accountId,
    venue: p.venue,
    symbol: p.symbol,
    side: qty.isZero() ? 'flat' : qty.isPos() ? 'long' : 'short',
    qty: fmt(qty),
    avgEntryPrice: fmt(entry),
    markPrice: mark ? fmt(mark) : null,
    notionalUsd: mark ? fmt(qty.abs().times(mark)) : null,
    unrealizedPnlUsd: mark ? fmt(mark.minus(entry).times(qty)) : null,
    realizedPnlUsd: canon(p.realizedPnlUsd),
    leverage: canon(p.leverage),
    openedAt: p.openedAt ? new Date(p.openedAt).toISOString() : null,
    updatedAt: new Date(p.updatedAt).toISOString(),
  };
}

/** A closed round trip (docs/api.md §2.8). */
export function tradeView(t: Row<typeof Trade>) {
  return {
    tradeId: t.id,
    accountId: t.accountId,
    venue: t.venue,
    symbol: t.symbol,
    side: t.side,
    qty: canon(t.qty),
    entryPrice: canon(t.entryPrice),
    exitPrice: canon(t.exitPrice),
    realizedPnlUsd: canon(t.realizedPnlUsd),
    feesUsd: canon(t.feesUsd),
    openedAt: new Date(t.openedAt).toISOString(),
    closedAt: new Date(t.closedAt).toISOString(),
    source: t.source,
  };
}

/**
 * Row → wire mappings shared by REST responses and `/ws/risk` frames, so a field has one name
 * everywhere. Decimals stay strings; times are ISO 8601.
 */
import type { InferEntity } from '@mikro-orm/core';
import { Decimal, fmt } from '../domain/decimal.js';
import type { IntentView } from '../domain/oms/intent.js';
import type { Fill, OrderIntent, Position, Trade } from './entities.js';

/** The plain row shape of an entity schema. */
export type Row<S> = InferEntity<S>;
type IntentRow = Row<typeof OrderIntent>;

const num = (v: string | null | undefined) => (v == null ? null : fmt(new Decimal(v)));

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
    qty: fmt(new Decimal(i.qty)),
    price: num(i.price),
    triggerPrice: num(i.triggerPrice),
    stopLimitPrice: num(i.stopLimitPrice),
    reduceOnly: i.reduceOnly,
    timeInForce: i.timeInForce as IntentView['timeInForce'],
    leverage: fmt(new Decimal(i.leverage)),
    state: i.state as IntentView['state'],
    orderStatus: (i.orderStatus ?? null) as IntentView['orderStatus'],
    venueOrderId: i.venueOrderId ?? null,
    filledQty: fmt(new Decimal(i.filledQty)),
    avgFillPrice: num(i.avgFillPrice),
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
    qty: fmt(new Decimal(f.qty)),
    price: fmt(new Decimal(f.price)),
    feeUsd: fmt(new Decimal(f.feeUsd)),
    liquidity: f.liquidity,
    realizedPnlUsd: fmt(new Decimal(f.realizedPnlUsd)),
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
    realizedPnlUsd: fmt(new Decimal(p.realizedPnlUsd)),
    leverage: fmt(new Decimal(p.leverage)),
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
    qty: fmt(new Decimal(t.qty)),
    entryPrice: fmt(new Decimal(t.entryPrice)),
    exitPrice: fmt(new Decimal(t.exitPrice)),
    realizedPnlUsd: fmt(new Decimal(t.realizedPnlUsd)),
    feesUsd: fmt(new Decimal(t.feesUsd)),
    openedAt: new Date(t.openedAt).toISOString(),
    closedAt: new Date(t.closedAt).toISOString(),
    source: t.source,
  };
}

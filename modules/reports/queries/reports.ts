/**
 * Reports over a window (docs/api.md §4.7): orders, fills, closed positions (round trips), daily realised
 * PnL and funding payments, across the caller's accounts or one of them. Volume comes from fills,
 * PnL from trades (docs/api.md §2.8).
 */
import type { EntityManager, EntityName } from '@mikro-orm/postgresql';
import { Decimal, fmt } from '../../../domain/decimal.js';
import { Trade } from '../../../db/entities.js';
import type { Caller } from '../../../api/context.js';
import { accountsInScope } from '../../../api/auth/ownership.js';

/** A report window: one account (the caller's) or all of them, `[from, to)` ISO 8601, at most `limit` rows. */
export interface ReportWindow {
  accountId?: string;
  from?: string;
  to?: string;
  limit: number;
}

/** The accounts a report covers and the window's condition on `field`. @throws as ownedAccount (auth/ownership.ts). */
async function scope(em: EntityManager, caller: Caller, q: ReportWindow, field: string) {
  const accountIds = await accountsInScope(em, caller, q.accountId);
  const time = { ...(q.from ? { $gte: new Date(q.from) } : {}), ...(q.to ? { $lt: new Date(q.to) } : {}) };
  return {
    accountIds,
    where: { accountId: { $in: accountIds }, ...(Object.keys(time).length ? { [field]: time } : {}) },
  };
}

/** The window's rows of `entity`, newest `field` first, as `{ [key]: views }`. */
export async function reportList<T>(
  em: EntityManager,
  caller: Caller,
  list: { entity: EntityName<T>; field: string; key: string; view: (row: T) => unknown },
  q: ReportWindow,
) {
  const { where } = await scope(em, caller, q, list.field);
  const rows = (await em.find(list.entity as never, where, {
    orderBy: { [list.field]: 'desc' } as never,
    limit: q.limit,
  })) as T[];
  return { [list.key]: rows.map(list.view) };
}

/** Realised PnL per UTC day of the trades closed in the window, oldest first (dailyPnlView). */
export async function dailyPnl(em: EntityManager, caller: Caller, q: ReportWindow) {
  const { where } = await scope(em, caller, q, 'closedAt');
  const trades = await em.find(Trade, where, { orderBy: { closedAt: 'asc' } });
  const days = new Map<string, { pnl: Decimal; fees: Decimal; n: number }>();
  for (const t of trades) {
    const day = t.closedAt.toISOString().slice(0, 10);
    const d = days.get(day) ?? { pnl: new Decimal(0), fees: new Decimal(0), n: 0 };
    days.set(day, { pnl: d.pnl.plus(t.realizedPnlUsd), fees: d.fees.plus(t.feesUsd), n: d.n + 1 });
  }
  return {
    days: [...days.entries()].map(([date, d]) => ({
      date,
      realizedPnlUsd: fmt(d.pnl),
      feesUsd: fmt(d.fees),
      netPnlUsd: fmt(d.pnl.minus(d.fees)),
      trades: d.n,
    })),
  };
}

/** The funding payments of the window, newest hour first, and their total (fundingReportView; USD decimal strings). */
export async function fundingPayments(em: EntityManager, caller: Caller, q: ReportWindow) {
  const { accountIds } = await scope(em, caller, q, 'hour');
  const rows = await em.getConnection().execute<
    {
      account_id: string;
      venue: string;
      symbol: string;
      hour: Date;
      position_qty: string;
      mark_price: string;
      rate: string;
      amount_usd: string;
      created_at: Date;
    }[]
  >(
    `select account_id, venue, symbol, hour, position_qty::text, mark_price::text, rate::text, amount_usd::text, created_at from funding_payments
      where tenant_id = ? and account_id in (select jsonb_array_elements_text(?::jsonb)) and hour >= coalesce(?::timestamptz, '-infinity') and hour < coalesce(?::timestamptz, 'infinity')
      order by hour desc, account_id, symbol limit ?`,
    [
      caller.tenantId,
      JSON.stringify(accountIds),
      q.from ? new Date(q.from) : null,
      q.to ? new Date(q.to) : null,
      q.limit,
    ],
  );
  const funding = rows.map((r) => ({
    accountId: r.account_id,
    venue: r.venue,
    symbol: r.symbol,
    hour: new Date(r.hour).toISOString(),
    positionQty: r.position_qty,
    markPrice: r.mark_price,
    rate: r.rate,
    amountUsd: r.amount_usd,
    paidAt: new Date(r.created_at).toISOString(),
  }));
  return { funding, totalUsd: fmt(funding.reduce((t, f) => t.plus(f.amountUsd), new Decimal(0))) };
}

/**
 * What the analytics reads work on (docs/api.md §4.7, §2.8): the fills and trades of a window `[from, to)`
 * of the caller's accounts (all of them combined, or one), and the starting equity = the accounts'
 * deposits (`funding.deposit` events, minus `funding.withdrawal`, plus the signed `funding.transfer`) + the net PnL of trades closed
 * before `from`. The computations are domain/analytics/metrics.ts.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal, ZERO } from '../../../domain/decimal.js';
import { netPnl, type FillInput, type TradeInput } from '../../../domain/analytics/metrics.js';
import { AccountEvent, Fill, Trade } from '../../../db/entities.js';
import { accountsInScope } from '../../../api/auth/ownership.js';
import type { Caller } from '../../../api/context.js';

/** The window of an analytics read (ISO 8601 bounds). */
export interface AnalyticsWindow {
  accountId?: string;
  from?: string;
  to?: string;
}

/** One analytics read's data: fills and trades of the window (oldest first), and the starting equity (USD). */
export interface Dataset {
  accountIds: string[];
  window: { from: string | null; to: string | null };
  fills: FillInput[];
  trades: TradeInput[];
  startEquity: Decimal;
}

/** Loads the dataset of the window (fills only when `withFills`). @throws as ownedAccount (auth/ownership.ts). */
export async function analyticsDataset(
  em: EntityManager,
  caller: Caller,
  q: AnalyticsWindow,
  withFills: boolean,
): Promise<Dataset> {
  const accountIds = await accountsInScope(em, caller, q.accountId);
  const from = q.from ? new Date(q.from) : null;
  const to = q.to ? new Date(q.to) : null;
  const window = { from: from?.toISOString() ?? null, to: to?.toISOString() ?? null };
  if (!accountIds.length) return { accountIds, window, fills: [], trades: [], startEquity: ZERO };
  const inIds = { accountId: { $in: accountIds } };
  const executedAt = { ...(from ? { $gte: from } : {}), ...(to ? { $lt: to } : {}) };
  const fills = withFills
    ? await em.find(
        Fill,
        { ...inIds, ...(from || to ? { executedAt } : {}) },
        { orderBy: { executedAt: 'asc', id: 'asc' } },
      )
    : [];
  const trades = await em.find(
    Trade,
    { ...inIds, ...(to ? { closedAt: { $lt: to } } : {}) },
    { orderBy: { closedAt: 'asc', id: 'asc' } },
  );
  const funding = await em.find(AccountEvent, {
    ...inIds,
    kind: { $in: ['funding.deposit', 'funding.withdrawal', 'funding.transfer'] },
  });
  const asTrade = (t: (typeof trades)[number]): TradeInput => ({
    id: t.id,
    venue: t.venue,
    symbol: t.symbol,
    side: t.side,
    qty: t.qty,
    realizedPnlUsd: t.realizedPnlUsd,
    feesUsd: t.feesUsd,
    closedAt: t.closedAt.getTime(),
    source: t.source,
  });
  let startEquity = funding.reduce((s, e) => {
    const raw = e.data.amountUsd ?? 0;
    if (typeof raw !== 'string' && typeof raw !== 'number')
      throw new TypeError(`event ${e.id} field amountUsd is not a decimal: ${JSON.stringify(raw)}`);
    const amount = new Decimal(String(raw));
    // A transfer is signed per account (− out, + in): between two accounts in scope it nets to nothing.
    return e.kind === 'funding.withdrawal' ? s.minus(amount.abs()) : s.plus(amount);
  }, ZERO);
  const inWindow: TradeInput[] = [];
  for (const t of trades) {
    if (from && t.closedAt < from) startEquity = startEquity.plus(netPnl(t));
    else inWindow.push(asTrade(t));
  }
  return {
    accountIds,
    window,
    fills: fills.map((f) => ({
      venue: f.venue,
      symbol: f.symbol,
      qty: f.qty,
      price: f.price,
      feeUsd: f.feeUsd,
      executedAt: f.executedAt.getTime(),
    })),
    trades: inWindow,
    startEquity,
  };
}

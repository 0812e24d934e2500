/**
 * Reads of smart-routing decisions (docs/api.md §4.5): the history of the accounts the caller owns, and
 * the realised savings over a window (sor.schemas.ts `summaryView` documents each figure).
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { ApiError } from '../../../domain/errors.js';
import { Decimal, ZERO } from '../../../domain/decimal.js';
import { decodeCursor, toPage } from '../../../domain/pagination.js';
import { SOR_VENUES, type SorVenue } from '../../../domain/sor/cost.js';
import { realisedSavings, usd6 } from '../../../domain/sor/decide.js';
import { platformEm } from '../../../db/orm.js';
import type { Caller } from '../../../api/context.js';
import { toDecisionView, type DecisionRow } from '../presenters/sor.js';

/** Default summary window: 30 days (ms). */
const SUMMARY_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;

/** SQL condition: decisions of the accounts the caller owns, in its tenant. */
const owned = (caller: Caller) => ({
  sql: `d.tenant_id = ? and d.account_id in (select id from accounts where tenant_id = ? and owner_id = ?)`,
  args: [caller.tenantId, caller.tenantId, caller.ownerId],
});

/** A page of the caller's decisions, newest first: `{ data, nextCursor, hasMore }`. @throws ApiError `400 invalid_cursor`. */
export async function decisionsPage(orm: MikroORM, caller: Caller, query: { limit: number; cursor?: string }) {
  const where = owned(caller);
  const args: unknown[] = [...where.args];
  let after = '';
  if (query.cursor) {
    const c = decodeCursor(query.cursor);
    after = ` and (d.created_at < ? or (d.created_at = ? and d.id < ?))`;
    args.push(new Date(c.at), new Date(c.at), c.id);
  }
  const sql = `select d.* from sor_decisions d where ${where.sql}${after} order by d.created_at desc, d.id desc limit ${query.limit + 1}`;
  const rows = await platformEm(orm).getConnection().execute<DecisionRow[]>(sql, args);
  const page = toPage(rows, query.limit, (r) => ({ at: new Date(r.created_at).toISOString(), id: r.id }));
  return { data: page.items.map(toDecisionView), nextCursor: page.nextCursor, hasMore: page.nextCursor !== null };
}

/** One decision joined with its intent's fill and fees. */
interface SavingsRow {
  selected_venue: SorVenue;
  side: 'buy' | 'sell';
  eligible_count: number;
  savings_usd: string | null;
  next_best_all_in_price: string | null;
  filled_qty: string | null;
  avg_fill_price: string | null;
  fees: string;
}

/**
 * The realised savings of the caller's decisions in `[from, to)` (default the 30 days before `to`,
 * default now), in total and per selected venue. @throws ApiError `400 validation_failed` when `from` is not before `to`.
 */
export async function savingsSummary(orm: MikroORM, caller: Caller, query: { from?: string; to?: string }) {
  const to = query.to ? new Date(query.to) : new Date();
  const from = query.from ? new Date(query.from) : new Date(to.getTime() - SUMMARY_WINDOW_MS);
  if (from >= to)
    throw new ApiError('validation_failed', [
      { path: 'query.from', message: '`from` must be before `to`', code: 'window' },
    ]);
  const where = owned(caller);
  const rows = await platformEm(orm)
    .getConnection()
    .execute<SavingsRow[]>(
      `select d.selected_venue, d.side, d.eligible_count, d.savings_usd, d.next_best_all_in_price, i.filled_qty, i.avg_fill_price, f.fees
       from sor_decisions d
       left join order_intents i on i.id = d.intent_id and i.tenant_id = d.tenant_id
       left join lateral (select coalesce(sum(x.fee_usd), 0) as fees from fills x where x.intent_id = d.intent_id and x.tenant_id = d.tenant_id) f on true
      where ${where.sql} and d.created_at >= ? and d.created_at < ?`,
      [...where.args, from, to],
    );
  const total = { decisions: 0, filled: 0, savingsCounted: 0, eligible: 0, estimated: ZERO, realised: ZERO };
  const byVenue = new Map<SorVenue, { decisions: number; filled: number; realised: Decimal }>();
  for (const r of rows) {
    const v = byVenue.get(r.selected_venue) ?? { decisions: 0, filled: 0, realised: ZERO };
    byVenue.set(r.selected_venue, v);
    total.decisions++;
    v.decisions++;
    total.eligible += r.eligible_count;
    if (r.savings_usd != null) total.estimated = total.estimated.plus(r.savings_usd);
    const filledQty = new Decimal(r.filled_qty ?? 0);
    if (filledQty.lte(0) || r.avg_fill_price == null) continue;
    total.filled++;
    v.filled++;
    if (r.next_best_all_in_price == null) continue;
    const saved = realisedSavings({
      side: r.side,
      nextBestAllInPrice: new Decimal(r.next_best_all_in_price),
      avgFillPrice: new Decimal(r.avg_fill_price),
      filledQty,
      feesUsd: new Decimal(r.fees ?? 0),
    });
    total.savingsCounted++;
    total.realised = total.realised.plus(saved);
    v.realised = v.realised.plus(saved);
  }
  return {
    from: from.toISOString(),
    to: to.toISOString(),
    decisions: total.decisions,
    filled: total.filled,
    savingsCounted: total.savingsCounted,
    avgEligibleCandidates: total.decisions ? new Decimal(total.eligible).div(total.decisions).toFixed(2) : '0.00',
    estimatedSavingsUsd: usd6(total.estimated),
    realisedSavingsUsd: usd6(total.realised),
    byVenue: SOR_VENUES.filter((venue) => byVenue.has(venue)).map((venue) => {
      const v = byVenue.get(venue)!;
      return { venue, decisions: v.decisions, filled: v.filled, realisedSavingsUsd: usd6(v.realised) };
    }),
  };
}

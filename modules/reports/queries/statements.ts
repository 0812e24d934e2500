/**
 * Monthly statements (docs/api.md §4.7 "Statement documents"): the months with activity of the caller's
 * accounts, and one statement built on request from the account event log and the round trips
 * (domain/statements/statement.ts); nothing is stored.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../../../domain/errors.js';
import { STATE_EVENT_KINDS } from '../../../domain/statements/replay.js';
import { buildStatement, monthBounds } from '../../../domain/statements/statement.js';
import { Trade, type AccountRow } from '../../../db/entities.js';
import { tradeView } from '../../../db/views.js';
import { accountsInScope } from '../../../api/auth/ownership.js';
import type { Caller } from '../../../api/context.js';
import { stateEvents } from '../../accounts/queries/state-history.js';

/** The path of one statement document. */
const statementPath = (accountId: string, month: string, format: 'csv' | 'pdf') =>
  `/api/v1/reports/statements/${encodeURIComponent(accountId)}/${month}?format=${format}`;

/** One statement per account (the caller's, or `accountId`) and UTC month with activity, with its CSV and PDF paths. @throws as ownedAccount. */
export async function statementList(em: EntityManager, caller: Caller, accountId: string | undefined) {
  const ids = await accountsInScope(em, caller, accountId);
  const rows = ids.length
    ? await em.getConnection().execute<{ account_id: string; month: string }[]>(
        `select account_id, to_char(created_at at time zone 'UTC', 'YYYY-MM') as month from account_events
           where tenant_id = ? and account_id in (select jsonb_array_elements_text(?::jsonb)) and kind in (select jsonb_array_elements_text(?::jsonb))
         union
         select account_id, to_char(closed_at at time zone 'UTC', 'YYYY-MM') as month from trades
           where tenant_id = ? and account_id in (select jsonb_array_elements_text(?::jsonb))
         order by account_id, month`,
        [caller.tenantId, JSON.stringify(ids), JSON.stringify(STATE_EVENT_KINDS), caller.tenantId, JSON.stringify(ids)],
      )
    : [];
  return {
    statements: rows.map((r) => ({
      accountId: r.account_id,
      month: r.month,
      urls: { csv: statementPath(r.account_id, r.month, 'csv'), pdf: statementPath(r.account_id, r.month, 'pdf') },
    })),
  };
}

/**
 * The statement of `account` for `month` (YYYY-MM, UTC): opening balance, deposits and withdrawals,
 * fills, round trips, fees, funding and the closing balance. @throws ApiError `404 statement_not_found` (no activity that month).
 */
export async function statementOf(em: EntityManager, account: AccountRow, month: string) {
  const { start, end } = monthBounds(month);
  const events = await stateEvents(em, account.id, end);
  const trades = await em.find(
    Trade,
    { accountId: account.id, closedAt: { $gte: start, $lt: end } },
    { orderBy: { closedAt: 'asc', id: 'asc' } },
  );
  if (!trades.length && !events.some((e) => e.createdAt >= start))
    throw new ApiError('statement_not_found', `account ${account.id} has no activity in ${month}`);
  return buildStatement({
    account: { id: account.id, accountNumber: account.accountNumber, name: account.name },
    month,
    events,
    roundTrips: trades.map(tradeView),
  });
}

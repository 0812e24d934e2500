/**
 * `/api/v1/reports/statements*` (docs/api.md §4.7 "Statement documents"): the list of monthly statements
 * of the caller's accounts and each statement as a CSV or PDF download. Statements are built on
 * request from the account event log and the round trips (domain/statements/statement.ts); nothing
 * is stored.
 */
import Router from '@koa/router';
import { Account, Trade } from '../../db/entities.js';
import { scoped } from '../../db/orm.js';
import { tradeView } from '../../db/views.js';
import { ApiError } from '../../domain/errors.js';
import { statementCsv } from '../../domain/statements/csv.js';
import { statementPdf } from '../../domain/statements/pdf.js';
import { STATE_EVENT_KINDS } from '../../domain/statements/replay.js';
import { buildStatement, monthBounds } from '../../domain/statements/statement.js';
import { callerOf, gate } from '../middleware/auth.js';
import type { ApiDeps, ApiState } from '../context.js';
import type { OpenApiRegistry } from '../openapi.js';
import { endpoint } from '../route.js';
import { ownedAccount } from './accounts.js';
import { stateEvents } from './state-history.js';
import { statementListQuery, statementListView, statementParams, statementQuery } from './statements.schemas.js';

/** The path of one statement document. */
export const statementPath = (accountId: string, month: string, format: 'csv' | 'pdf') =>
  `/api/v1/reports/statements/${encodeURIComponent(accountId)}/${month}?format=${format}`;

/**
 * Registers, under `/api/v1/reports` (trader audience, any tier):
 * - `GET /statements?accountId=` → `{ statements: [{ accountId, month: 'YYYY-MM', urls: { csv, pdf } }] }`,
 *   every account and UTC month with activity.
 * - `GET /statements/:accountId/:month?format=csv|pdf` (default csv) → the document as an attachment
 *   `statement-<accountId>-<month>.<csv|pdf>`: opening balance, deposits and withdrawals, fills,
 *   round trips with realised PnL, fees, funding payments and the closing balance, USD, with
 *   closing = opening + deposits − withdrawals + realised PnL − fees + funding.
 * Errors: `400 validation_failed` (month not YYYY-MM, unknown format), `404 account_not_found`
 * (absent or another tenant's), `403 forbidden` (another trader's), `404 statement_not_found`
 * (no activity in that month).
 */
export function statementRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1/reports' });
  const tags = ['reports'];
  const read = gate({ audience: 'trader' });

  endpoint(
    router,
    openapi,
    { method: 'get', path: '/statements', summary: 'Monthly statement documents of the caller’s accounts (one per account and month with activity)', tags, gate: read, schemas: { query: statementListQuery }, responses: { '200': { description: 'Statements', schema: statementListView } } },
    async (ctx, { query }) => {
      const caller = callerOf(ctx);
      const em = scoped(deps.orm, caller.tenantId);
      const ids = query.accountId ? [(await ownedAccount(em, caller, query.accountId)).id] : (await em.find(Account, { ownerId: caller.ownerId })).map((a) => a.id);
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
      ctx.body = {
        statements: rows.map((r) => ({ accountId: r.account_id, month: r.month, urls: { csv: statementPath(r.account_id, r.month, 'csv'), pdf: statementPath(r.account_id, r.month, 'pdf') } })),
      };
    },
  );

  endpoint(
    router,
    openapi,
    {
      method: 'get',
      path: '/statements/:accountId/:month',
      summary: 'One monthly statement as a CSV (default) or PDF attachment; totals reconcile: closing = opening + deposits − withdrawals + realised PnL − fees + funding',
      tags,
      gate: read,
      schemas: { params: statementParams, query: statementQuery },
      responses: {
        '200': {
          description:
            '`text/csv` or `application/pdf`. Months are UTC; an event belongs to the month it was logged in. Realised PnL and fees are those of the month’s fills (the cash they moved); round trips closed in the month are listed for reference, and manual (imported) round trips never move cash so they stay out of the reconciliation. CSV columns: section,time,venue,symbol,side,qty,price,exitPrice,amountUsd,feeUsd,realizedPnlUsd,reference,detail (see domain/statements/csv.ts).',
          headers: { 'Content-Type': '`text/csv; charset=utf-8` or `application/pdf`', 'Content-Disposition': '`attachment; filename=statement-<accountId>-<month>.<csv|pdf>`' },
        },
      },
    },
    async (ctx, { params, query }) => {
      const caller = callerOf(ctx);
      const em = scoped(deps.orm, caller.tenantId);
      const account = await ownedAccount(em, caller, params.accountId);
      const { start, end } = monthBounds(params.month);
      const events = await stateEvents(em, account.id, end);
      const trades = await em.find(Trade, { accountId: account.id, closedAt: { $gte: start, $lt: end } }, { orderBy: { closedAt: 'asc', id: 'asc' } });
      if (!trades.length && !events.some((e) => e.createdAt >= start)) throw new ApiError('statement_not_found', `account ${account.id} has no activity in ${params.month}`);
      const statement = buildStatement({ account: { id: account.id, accountNumber: account.accountNumber, name: account.name }, month: params.month, events, roundTrips: trades.map(tradeView) });
      const filename = `statement-${account.id}-${params.month}.${query.format}`;
      ctx.set('Content-Disposition', `attachment; filename=${filename}`);
      if (query.format === 'pdf') {
        ctx.type = 'application/pdf';
        ctx.body = await statementPdf(statement);
      } else {
        ctx.type = 'text/csv; charset=utf-8';
        ctx.body = statementCsv(statement);
      }
    },
  );
  return router;
}

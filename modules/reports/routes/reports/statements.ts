/**
 * `/api/v1/reports/statements*` (docs/api.md §4.7 "Statement documents"), trader audience, any tier
 * (modules/reports/queries/statements.ts):
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
import Router from '@koa/router';
import { statementCsv } from '../../../../domain/statements/csv.js';
import { statementPdf } from '../../../../domain/statements/pdf.js';
import { ownedAccount } from '../../../../api/auth/ownership.js';
import type { ApiDeps, ApiState } from '../../../../api/context.js';
import { callerOf, gate, callerEm } from '../../../../api/middleware/auth.js';
import type { OpenApiRegistry } from '../../../../api/openapi.js';
import { statementList, statementOf } from '../../queries/statements.js';
import { routesOf } from '../../../../api/route.js';
import { statementListQuery, statementListView, statementParams, statementQuery } from './statements.schemas.js';

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function statementRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1/reports' });
  const tags = ['reports'];
  const read = gate({ audience: 'trader' });

  const route = routesOf(router, openapi, { tags });

  route
    .get(
      '/statements',
      'Monthly statement documents of the caller’s accounts (one per account and month with activity)',
      read,
    )
    .input({ query: statementListQuery })
    .answers({ '200': { description: 'Statements', schema: statementListView } })
    .handle(async (ctx, { query }) => {
      ctx.body = await statementList(callerEm(deps.orm, ctx), callerOf(ctx), query.accountId);
    });

  route
    .get(
      '/statements/:accountId/:month',
      'One monthly statement as a CSV (default) or PDF attachment; totals reconcile: closing = opening + deposits − withdrawals + realised PnL − fees + funding',
      read,
    )
    .input({ params: statementParams, query: statementQuery })
    .answers({
      '200': {
        description:
          '`text/csv` or `application/pdf`. Months are UTC; an event belongs to the month it was logged in. Realised PnL and fees are those of the month’s fills (the cash they moved); round trips closed in the month are listed for reference, and manual (imported) round trips never move cash so they stay out of the reconciliation. CSV columns: section,time,venue,symbol,side,qty,price,exitPrice,amountUsd,feeUsd,realizedPnlUsd,reference,detail (see domain/statements/csv.ts).',
        types: ['text/csv', 'application/pdf'],
        headers: {
          'Content-Type': '`text/csv; charset=utf-8` or `application/pdf`',
          'Content-Disposition': '`attachment; filename=statement-<accountId>-<month>.<csv|pdf>`',
        },
      },
    })
    .handle(async (ctx, { params, query }) => {
      const em = callerEm(deps.orm, ctx);
      const account = await ownedAccount(em, callerOf(ctx), params.accountId);
      const statement = await statementOf(em, account, params.month);
      ctx.set('Content-Disposition', `attachment; filename=statement-${account.id}-${params.month}.${query.format}`);
      if (query.format === 'pdf') {
        ctx.type = 'application/pdf';
        ctx.body = await statementPdf(statement);
      } else {
        ctx.type = 'text/csv; charset=utf-8';
        ctx.body = statementCsv(statement);
      }
    });

  return router;
}

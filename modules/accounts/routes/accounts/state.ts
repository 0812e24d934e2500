/**
 * `/api/v1/accounts/{id}/state` and `/state/history` (docs/api.md §2.5, §4.3, §8), trader audience, any tier:
 * - `GET /accounts/{id}/state` → the account state per venue; no top-level totals. A routed account's is
 *   what its venues report (modules/accounts/queries/venue-account.ts), with `unavailable` venues named.
 * - `GET /accounts/{id}/state/history` → `{ points: StatePoint[], truncated }`, oldest first (USD decimal
 *   strings; sampling described in `stateHistoryView`), read from the stored state snapshots.
 *   Window-based: `truncated`, no cursor.
 * Errors: `400 validation_failed` (limit above 5000 or below 1, bad ISO time), `404 account_not_found`
 * (absent or another tenant's), `403 forbidden` (another trader's account in the tenant).
 */
import Router from '@koa/router';
import { accountStateOf } from '../../../../db/account-state.js';
import { ownedAccount, ownedBy } from '../../../../api/auth/ownership.js';
import type { ApiDeps, ApiState } from '../../../../api/context.js';
import type { QuotesHub } from '../../../../api/ws/quotes-hub.js';
import { callerOf, gate, callerEm } from '../../../../api/middleware/auth.js';
import type { OpenApiRegistry } from '../../../../api/openapi.js';
import { statePoints } from '../../queries/state-history.js';
import { readVenueAccounts, routedStateView } from '../../queries/venue-account.js';
import { executionModeOf } from '../../../../domain/oms/execution.js';
import { positionMarks } from '../../queries/position-marks.js';
import { routesOf } from '../../../../api/route.js';
import { accountParams, accountStateView } from './accounts.schemas.js';
import { stateHistoryQuery, stateHistoryView } from './state.schemas.js';

/**
 * The router of the endpoints listed in this module's header; each one is also registered in `openapi`.
 * An internalised account's state is computed from memory when it can: the account's rows from
 * `deps.accountStates`, the marks from `quotes` (docs/api.md §2.5 "Freshness"); a routed account's is read
 * from its venues on every request (§2.5 "Routed accounts").
 */
export function accountStateRoutes(deps: ApiDeps, openapi: OpenApiRegistry, quotes: QuotesHub): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1' });
  const tags = ['accounts'];
  const read = gate({ audience: 'trader' });

  const route = routesOf(router, openapi, { tags });

  route
    .get('/accounts/:id/state', 'Account state per venue (docs/api.md §2.5); no top-level totals', read)
    .input({ params: accountParams })
    .answers({ '200': { description: 'State', schema: accountStateView } })
    .handle(async (ctx, { params }) => {
      const em = callerEm(deps.orm, ctx);
      const rows = await deps.accountStates.rows(em, params.id);
      const account = ownedBy(callerOf(ctx), rows?.account ?? null, params.id);
      ctx.body =
        executionModeOf(account.executionMode) === 'routed'
          ? routedStateView(account, await readVenueAccounts(deps, account))
          : accountStateOf(rows!, await positionMarks(em, quotes, rows!.positions));
    });

  route
    .get(
      '/accounts/:id/state/history',
      'Equity and margin time series from stored state snapshots; window-based, `truncated`, no cursor',
      read,
    )
    .input({ params: accountParams, query: stateHistoryQuery })
    .answers({ '200': { description: 'Points, oldest first', schema: stateHistoryView } })
    .handle(async (ctx, { params, query }) => {
      const em = callerEm(deps.orm, ctx);
      await ownedAccount(em, callerOf(ctx), params.id);
      ctx.body = await statePoints(em, params.id, query);
    });

  return router;
}

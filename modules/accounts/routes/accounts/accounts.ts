/**
 * `/api/v1/accounts` and `/api/v1/accounts/{id}/*` (docs/api.md §4.3): every owned account, one account,
 * its positions and working orders, the cursor-paginated histories, manual trades, and the funding operations
 * (deposits, withdrawals, transfers: `fullTrading`, `Idempotency-Key`). All reads work on any tier. Sub-resources with a file of their own in this folder: `state`, `agents`,
 * `order-history`, `suspension`.
 */
import Router from '@koa/router';
import { Fill, OrderIntent, Trade } from '../../../../db/entities.js';
import { openPositions } from '../../../../db/account-state.js';
import { fillView, intentToView, tradeView, workingOrderView } from '../../../../db/views.js';
import { ownAccounts, ownedAccount } from '../../../../api/auth/ownership.js';
import { createAccount, updateAccount } from '../../commands/accounts.js';
import { importManualTrade } from '../../commands/manual-trade.js';
import { requestFundingOperation } from '../../commands/funding-operations.js';
import { toFundingOperationView } from '../../presenters/funding-operations.js';
import { idempotency } from '../../../../api/middleware/idempotency.js';
import { IDEMPOTENCY_HEADER } from '../../../../api/middleware/oms-write.js';
import type { ApiContext, ApiDeps, ApiState } from '../../../../api/context.js';
import { callerOf, gate, callerEm } from '../../../../api/middleware/auth.js';
import type { OpenApiRegistry } from '../../../../api/openapi.js';
import { toAccountView } from '../../presenters/accounts.js';
import { eventsPage, fundingPage, historyPage } from '../../queries/accounts.js';
import { readVenueAccounts, routedPositionsView } from '../../queries/venue-account.js';
import { executionModeOf } from '../../../../domain/oms/execution.js';
import { intentView } from '../../../../domain/oms/intent.js';
import { fillSchema, tradeSchema } from '../../../../api/views.schemas.js';
import { routesOf } from '../../../../api/route.js';
import {
  accountParams,
  accountView,
  createAccountBody,
  eventsQuery,
  fundingAmountBody,
  fundingOperationView,
  fundingQuery,
  historyQuery,
  manualTradeBody,
  openOrdersView,
  pageOf,
  positionListView,
  patchAccountBody,
  transferBody,
} from './accounts.schemas.js';

/** The newest-first histories of an account: path, answer key, summary, what they list and its schema. */
const HISTORIES = [
  {
    path: '/accounts/:id/orders',
    key: 'orders',
    summary: "The platform's order book: every intent the OMS handled, newest first",
    entity: OrderIntent,
    timeField: 'createdAt',
    view: intentToView,
    item: intentView,
  },
  {
    path: '/accounts/:id/fills',
    key: 'fills',
    summary: 'Executions, newest first',
    entity: Fill,
    timeField: 'executedAt',
    view: fillView,
    item: fillSchema,
  },
  {
    path: '/accounts/:id/trades',
    key: 'trades',
    summary: 'Closed round trips, newest first',
    entity: Trade,
    timeField: 'closedAt',
    view: tradeView,
    item: tradeSchema,
  },
];

/**
 * The funding operations a trader asks for on an internalised account (docs/api.md §4.3 "Funding operations";
 * modules/accounts/commands/funding-operations.ts): path, operation, body, summary.
 */
const FUNDING_WRITES = [
  {
    path: '/accounts/:id/deposits',
    type: 'deposit',
    body: fundingAmountBody,
    summary: "Deposit to an internalised account, under the tenant's funding policy",
  },
  {
    path: '/accounts/:id/withdrawals',
    type: 'withdrawal',
    body: fundingAmountBody,
    summary: 'Withdraw from an internalised account, at most its margin available',
  },
  {
    path: '/accounts/:id/transfers',
    type: 'transfer',
    body: transferBody,
    summary: "Transfer to another of the caller's internalised accounts, both balances at once",
  },
] as const;

/** The router of the endpoints listed in this module's header; each one is also registered in `openapi`. */
export function accountRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1' });
  const read = gate({ audience: 'trader' });
  const write = gate({ audience: 'trader', write: true });
  const fundingWrite = gate({ audience: 'trader', tier: 'fullTrading', write: true });
  const tags = ['accounts'];
  /** A unit of work in the caller's tenant, and the caller's account `id` in it. @throws as ownedAccount. */
  const owned = async (ctx: ApiContext, id: string) => {
    const em = callerEm(deps.orm, ctx);
    return { em, account: await ownedAccount(em, callerOf(ctx), id) };
  };

  const route = routesOf(router, openapi, { tags });

  route
    .get('/accounts', 'Every owned account, whole', read)
    .answers({
      '200': { description: 'Accounts', schema: pageOf('accounts', accountView).omit({ nextCursor: true }) },
    })
    .handle(async (ctx) => {
      const rows = await ownAccounts(callerEm(deps.orm, ctx), callerOf(ctx));
      ctx.body = { accounts: rows.map(toAccountView) };
    });

  route
    .post('/accounts', "Open an account, internalised or routed as the tenant's policy decides", write)
    .input({ body: createAccountBody })
    .answers({ '201': { description: 'Created', schema: accountView } })
    .handle(async (ctx, { body }) => {
      const row = await createAccount(deps, callerOf(ctx), body);
      ctx.status = 201;
      ctx.body = toAccountView(row);
    });

  route
    .get('/accounts/:id', 'One account summary', read)
    .input({ params: accountParams })
    .answers({ '200': { description: 'Account', schema: accountView } })
    .handle(async (ctx, { params }) => {
      ctx.body = toAccountView((await owned(ctx, params.id)).account);
    });

  route
    .patch('/accounts/:id', 'Update name and settings', write)
    .input({ params: accountParams, body: patchAccountBody })
    .answers({ '200': { description: 'Updated', schema: accountView } })
    .handle(async (ctx, { params, body }) => {
      ctx.body = toAccountView(await updateAccount(deps, callerOf(ctx), params.id, body));
    });

  route
    .get(
      '/accounts/:id/positions',
      "Open positions across venues, whole (a routed account's as its venues report them)",
      read,
    )
    .input({ params: accountParams })
    .answers({ '200': { description: 'Positions', schema: positionListView } })
    .handle(async (ctx, { params }) => {
      const { em, account } = await owned(ctx, params.id);
      ctx.body =
        executionModeOf(account.executionMode) === 'routed'
          ? routedPositionsView(account.id, await readVenueAccounts(deps, account))
          : { positions: await openPositions(em, params.id) };
    });

  route
    .get(
      '/accounts/:id/open-orders',
      'Working orders (venue order status `open`), oldest first: the REST snapshot of `Open-Orders-Update` (docs/api.md §6.3 rule 3)',
      read,
    )
    .input({ params: accountParams })
    .answers({
      '200': {
        description: '{ orders }: intents with `remainingQty` (contracts)',
        schema: openOrdersView,
      },
    })
    .handle(async (ctx, { params }) => {
      const { em } = await owned(ctx, params.id);
      const open = await em.find(
        OrderIntent,
        { accountId: params.id, orderStatus: 'open' },
        { orderBy: { createdAt: 'asc', id: 'asc' } },
      );
      ctx.body = { orders: open.map(workingOrderView) };
    });

  for (const history of HISTORIES) {
    const { path, key, summary, item } = history;
    route
      .get(path, summary, read)
      .input({ params: accountParams, query: historyQuery })
      .answers({ '200': { description: key, schema: pageOf(key, item) } })
      .handle(async (ctx, { params, query }) => {
        const { em } = await owned(ctx, params.id);
        ctx.body = await historyPage(em, history as never, params.id, query);
      });
  }

  route
    .post(
      '/accounts/:id/manual-trades',
      'Import one off-platform round trip (docs/api.md §2.10): counts in PnL, not in volume',
      write,
    )
    .input({ params: accountParams, body: manualTradeBody })
    .answers({ '201': { description: 'The imported trade (`source: manual`)', schema: tradeSchema } })
    .handle(async (ctx, { params, body }) => {
      const trade = await importManualTrade(deps, callerOf(ctx), params.id, body);
      ctx.status = 201;
      ctx.body = trade;
    });

  for (const w of FUNDING_WRITES) {
    route
      .post(w.path, w.summary, fundingWrite)
      .input({ params: accountParams, body: w.body })
      .answers({
        '201': { description: 'Completed: the balance moved', schema: fundingOperationView },
        '202': { description: "Pending: waits for an operator's approval", schema: fundingOperationView },
      })
      .with({ requires: 'fullTrading', use: [idempotency(deps.orm)], headers: IDEMPOTENCY_HEADER })
      .handle(async (ctx, { params, body }) => {
        const op = await requestFundingOperation(deps, callerOf(ctx), params.id, { type: w.type, ...body });
        ctx.status = op.status === 'pending' ? 202 : 201;
        ctx.body = toFundingOperationView(op);
      });
  }

  route
    .get('/accounts/:id/funding', 'Deposit, withdrawal and transfer ledger, newest first', read)
    .input({ params: accountParams, query: fundingQuery })
    .answers({ '200': { description: 'Ledger', schema: pageOf('events') } })
    .handle(async (ctx, { params, query }) => {
      const { em } = await owned(ctx, params.id);
      ctx.body = await fundingPage(em, params.id, query);
    });

  route
    .get('/accounts/:id/events', 'The account audit log (the /ws/risk event log), newest first', read)
    .input({ params: accountParams, query: eventsQuery })
    .answers({ '200': { description: 'Events', schema: pageOf('events') } })
    .handle(async (ctx, { params, query }) => {
      const { em } = await owned(ctx, params.id);
      ctx.body = await eventsPage(em, params.id, query);
    });

  return router;
}

/**
 * `/api/v1/accounts/*` and `/api/v1/sandbox/paper-account` (docs/api.md §4.3): every owned account, its
 * state per venue, positions, and the cursor-paginated histories. All reads work on any tier.
 */
import Router from '@koa/router';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../../domain/errors.js';
import { decodeCursor, toPage } from '../../domain/pagination.js';
import { Account, AccountEvent, Fill, OrderIntent, Trade, type AccountRow } from '../../db/entities.js';
import { DEFAULT_PAPER_DEPOSIT_USD, provisionPaperAccount } from '../../db/accounts.js';
import { accountState, openPositions } from '../../db/account-state.js';
import { scoped } from '../../db/orm.js';
import { fillView, intentToView, tradeView, workingOrderView } from '../../db/views.js';
import { callerOf, gate } from '../middleware/auth.js';
import type { ApiContext, ApiDeps, ApiState, Caller } from '../context.js';
import type { OpenApiRegistry } from '../openapi.js';
import { endpoint } from '../route.js';
import { accountParams, accountStateView, accountView, createAccountBody, eventsQuery, fundingQuery, historyQuery, manualTradeBody, pageOf, patchAccountBody } from './accounts.schemas.js';
import { randomBytes } from 'node:crypto';
import { Decimal, dec, fmt } from '../../domain/decimal.js';
import { VENUE_SUFFIX } from '../../domain/market/symbols.js';
import { appendEvents, lockAccount } from '../../db/events.js';

const toView = (a: AccountRow) => ({
  accountId: a.id,
  accountNumber: a.accountNumber,
  name: a.name,
  executionMode: a.executionMode,
  baseCurrency: a.baseCurrency,
  tradingGroupId: a.tradingGroupId ?? null,
  settings: a.settings,
  createdAt: a.createdAt.toISOString(),
});

/**
 * The caller's account `id` in the caller's tenant.
 * @throws ApiError `404 account_not_found` (absent or another tenant's), `403 forbidden` (another trader's).
 */
export async function ownedAccount(em: EntityManager, caller: Caller, id: string): Promise<AccountRow> {
  const account = await em.findOne(Account, { id });
  if (!account) throw new ApiError('account_not_found', `no account ${id}`);
  if (account.ownerId !== caller.ownerId) throw new ApiError('forbidden', 'this account belongs to another trader');
  return account;
}

/**
 * The account a write acts on: `given`, else the credential's active account; the caller's own.
 * @throws ApiError `400 validation_failed` when neither exists, and as {@link ownedAccount}.
 */
export async function targetAccount(em: EntityManager, caller: Caller, given: string | undefined): Promise<AccountRow> {
  const id = given ?? caller.accountId;
  if (!id) throw new ApiError('validation_failed', [{ path: 'body.accountId', message: 'this credential has no active account; send accountId', code: 'required' }]);
  return ownedAccount(em, caller, id);
}

/** Keyset condition for newest-first lists ordered by (`field` desc, id desc). */
function after(cursor: string | undefined, field: string) {
  if (!cursor) return {};
  const { at, id } = decodeCursor(cursor);
  return { $or: [{ [field]: { $lt: new Date(at) } }, { [field]: new Date(at), id: { $lt: id } }] };
}

export function accountRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1' });
  const read = gate({ audience: 'trader' });
  const tags = ['accounts'];
  const em = (ctx: ApiContext) => scoped(deps.orm, callerOf(ctx).tenantId);
  const account = async (ctx: ApiContext, id: string) => ownedAccount(em(ctx), callerOf(ctx), id);

  endpoint(router, openapi, { method: 'get', path: '/accounts', summary: 'Every owned account, whole', tags, gate: read, schemas: {}, responses: { '200': { description: 'Accounts', schema: pageOf('accounts', accountView).omit({ nextCursor: true }) } } }, async (ctx) => {
    const rows = await em(ctx).find(Account, { ownerId: callerOf(ctx).ownerId }, { orderBy: { createdAt: 'asc' } });
    ctx.body = { accounts: rows.map(toView) };
  });

  const create = async (ctx: ApiContext, body: { name: string; initialDepositUsd?: string }) => {
    const caller = callerOf(ctx);
    const row = await provisionPaperAccount(em(ctx), { tenantId: caller.tenantId, ownerId: caller.ownerId, name: body.name, depositUsd: body.initialDepositUsd ?? DEFAULT_PAPER_DEPOSIT_USD });
    ctx.status = 201;
    ctx.body = toView(row);
  };
  endpoint(router, openapi, { method: 'post', path: '/accounts', summary: 'Create a paper (internalised) account', tags, gate: gate({ audience: 'trader', write: true }), schemas: { body: createAccountBody }, responses: { '201': { description: 'Created', schema: accountView } } }, async (ctx, { body }) => create(ctx, body));

  endpoint(
    router,
    openapi,
    {
      method: 'post',
      path: '/sandbox/paper-account',
      summary: 'Provision a paper account; any tier below fullTrading gets tier_insufficient',
      tags,
      gate: gate({ audience: 'trader', write: true }),
      schemas: { body: createAccountBody },
      responses: { '201': { description: 'Created', schema: accountView } },
      requires: 'fullTrading',
    },
    async (ctx, { body }) => {
      const caller = callerOf(ctx);
      if (caller.tier !== 'fullTrading') throw new ApiError('tier_insufficient', `credential tier is ${caller.tier}; this route needs fullTrading`, { held: caller.tier, needed: 'fullTrading' });
      await create(ctx, body);
    },
  );

  endpoint(router, openapi, { method: 'get', path: '/accounts/:id', summary: 'One account summary', tags, gate: read, schemas: { params: accountParams }, responses: { '200': { description: 'Account', schema: accountView } } }, async (ctx, { params }) => {
    ctx.body = toView(await account(ctx, params.id));
  });

  endpoint(router, openapi, { method: 'patch', path: '/accounts/:id', summary: 'Update name and settings', tags, gate: gate({ audience: 'trader', write: true }), schemas: { params: accountParams, body: patchAccountBody }, responses: { '200': { description: 'Updated', schema: accountView } } }, async (ctx, { params, body }) => {
    const e = em(ctx);
    const row = await ownedAccount(e, callerOf(ctx), params.id);
    if (body.name !== undefined) row.name = body.name;
    if (body.settings !== undefined) row.settings = { ...row.settings, ...body.settings };
    await e.flush();
    ctx.body = toView(row);
  });

  endpoint(router, openapi, { method: 'get', path: '/accounts/:id/state', summary: 'Account state per venue (docs/api.md §2.5); no top-level totals', tags, gate: read, schemas: { params: accountParams }, responses: { '200': { description: 'State', schema: accountStateView } } }, async (ctx, { params }) => {
    const e = em(ctx);
    ctx.body = await accountState(e, await ownedAccount(e, callerOf(ctx), params.id));
  });

  endpoint(router, openapi, { method: 'get', path: '/accounts/:id/positions', summary: 'Open positions across venues, whole', tags, gate: read, schemas: { params: accountParams }, responses: { '200': { description: 'Positions' } } }, async (ctx, { params }) => {
    const e = em(ctx);
    await ownedAccount(e, callerOf(ctx), params.id);
    ctx.body = { positions: await openPositions(e, params.id) };
  });

  endpoint(
    router,
    openapi,
    { method: 'get', path: '/accounts/:id/open-orders', summary: 'Working orders (venue order status `open`), oldest first: the REST snapshot of `Open-Orders-Update` (docs/api.md §6.3 rule 3)', tags, gate: read, schemas: { params: accountParams }, responses: { '200': { description: '{ orders }: intents with `remainingQty` (contracts)' } } },
    async (ctx, { params }) => {
      const e = em(ctx);
      await ownedAccount(e, callerOf(ctx), params.id);
      const open = await e.find(OrderIntent, { accountId: params.id, orderStatus: 'open' }, { orderBy: { createdAt: 'asc', id: 'asc' } });
      ctx.body = { orders: open.map(workingOrderView) };
    },
  );

  /** A newest-first cursor list of one account's rows. */
  const history = <T extends { id: string }>(path: string, key: string, summary: string, entity: unknown, timeField: string, view: (r: T) => unknown) =>
    endpoint(router, openapi, { method: 'get', path, summary, tags, gate: read, schemas: { params: accountParams, query: historyQuery }, responses: { '200': { description: key, schema: pageOf(key) } } }, async (ctx, { params, query }) => {
      const e = em(ctx);
      await ownedAccount(e, callerOf(ctx), params.id);
      const rows = (await e.find(entity as never, { accountId: params.id, ...after(query.cursor, timeField) } as never, { orderBy: { [timeField]: 'desc', id: 'desc' } as never, limit: query.limit + 1 })) as unknown as T[];
      const page = toPage(rows, query.limit, (r) => ({ at: new Date((r as Record<string, unknown>)[timeField] as Date).toISOString(), id: r.id }));
      ctx.body = { [key]: page.items.map(view), nextCursor: page.nextCursor };
    });
  history('/accounts/:id/orders', 'orders', "The platform's order book: every intent the OMS handled, newest first", OrderIntent, 'createdAt', intentToView as never);
  history('/accounts/:id/fills', 'fills', 'Executions, newest first', Fill, 'executedAt', fillView as never);
  history('/accounts/:id/trades', 'trades', 'Closed round trips, newest first', Trade, 'closedAt', tradeView as never);

  endpoint(
    router,
    openapi,
    { method: 'post', path: '/accounts/:id/manual-trades', summary: 'Import one off-platform round trip (docs/api.md §2.10): counts in PnL, not in volume', tags, gate: gate({ audience: 'trader', write: true }), schemas: { params: accountParams, body: manualTradeBody }, responses: { '201': { description: 'The imported trade (`source: manual`)' } } },
    async (ctx, { params, body }) => {
      const caller = callerOf(ctx);
      const suffix = body.symbol.split('.').at(-1) ?? '';
      const venue = Object.entries(VENUE_SUFFIX).find(([, s]) => s === suffix)?.[0];
      if (!/^[A-Z0-9]+\.[A-Z0-9]+$/.test(body.symbol) || !venue) throw new ApiError('validation_failed', [{ path: 'body.symbol', message: `a venue-suffixed symbol such as BTC.PAPER (suffixes: ${Object.values(VENUE_SUFFIX).join(', ')})`, code: 'symbol_suffix' }]);
      const [qty, entry, exit] = [dec(body.qty), dec(body.entryPrice), dec(body.exitPrice)];
      const pnl = (body.side === 'long' ? exit.minus(entry) : entry.minus(exit)).times(qty);
      const trade = await em(ctx).transactional(async (tx) => {
        await ownedAccount(tx, caller, params.id);
        await lockAccount(tx, params.id);
        const row = tx.create(Trade, {
          id: `mt_${randomBytes(10).toString('hex')}`,
          tenantId: caller.tenantId,
          accountId: params.id,
          venue,
          symbol: body.symbol,
          side: body.side,
          qty: fmt(qty),
          entryPrice: fmt(entry),
          exitPrice: fmt(exit),
          realizedPnlUsd: fmt(pnl),
          feesUsd: fmt(dec(body.fees ?? 0)),
          openedAt: new Date(body.entryTime),
          closedAt: new Date(body.exitTime),
          exitFillId: null,
          source: 'manual',
        });
        await appendEvents(tx, caller.tenantId, params.id, [{ kind: 'trade.imported', frameType: 'Fill', venue, data: tradeView(row) }]);
        return row;
      });
      ctx.status = 201;
      ctx.body = tradeView(trade);
    },
  );

  endpoint(router, openapi, { method: 'get', path: '/accounts/:id/funding', summary: 'Deposit, withdrawal and transfer ledger, newest first', tags, gate: read, schemas: { params: accountParams, query: fundingQuery }, responses: { '200': { description: 'Ledger', schema: pageOf('events') } } }, async (ctx, { params, query }) => {
    const e = em(ctx);
    await ownedAccount(e, callerOf(ctx), params.id);
    const where: Record<string, unknown> = { accountId: params.id, kind: { $like: 'funding.%' } };
    if (query.cursor) where.seq = { $lt: Number(decodeCursor(query.cursor).id) };
    const rows = await e.find(AccountEvent, where, { orderBy: { seq: 'desc' }, limit: query.limit + 1 });
    const page = toPage(rows, query.limit, (r) => ({ at: r.createdAt.toISOString(), id: String(r.seq) }));
    ctx.body = { events: page.items.map((r) => ({ eventId: `${r.accountId}:${r.seq}`, type: r.kind.replace(/^funding\./, ''), venue: r.venue ?? null, occurredAt: r.createdAt.toISOString(), ...r.data })), nextCursor: page.nextCursor };
  });

  endpoint(router, openapi, { method: 'get', path: '/accounts/:id/events', summary: 'The account audit log (the /ws/risk event log), newest first', tags, gate: read, schemas: { params: accountParams, query: eventsQuery }, responses: { '200': { description: 'Events', schema: pageOf('events') } } }, async (ctx, { params, query }) => {
    const e = em(ctx);
    await ownedAccount(e, callerOf(ctx), params.id);
    const where: Record<string, unknown> = { accountId: params.id };
    if (query.kind) where.kind = query.kind;
    if (query.venue) where.venue = query.venue;
    if (query.from || query.to) where.createdAt = { ...(query.from ? { $gte: new Date(query.from) } : {}), ...(query.to ? { $lt: new Date(query.to) } : {}) };
    if (query.cursor) where.seq = { $lt: Number(decodeCursor(query.cursor).id) };
    const rows = await e.find(AccountEvent, where, { orderBy: { seq: 'desc' }, limit: query.limit + 1 });
    const page = toPage(rows, query.limit, (r) => ({ at: r.createdAt.toISOString(), id: String(r.seq) }));
    ctx.body = {
      events: page.items.map((r) => ({ eventId: `${r.accountId}:${r.seq}`, seq: r.seq, kind: r.kind, topic: r.topic, venue: r.venue ?? null, occurredAt: r.createdAt.toISOString(), data: r.data })),
      nextCursor: page.nextCursor,
    };
  });

  return router;
}

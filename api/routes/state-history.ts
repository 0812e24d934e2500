/**
 * `GET /api/v1/accounts/{id}/state/history` (docs/api.md §4.3, §8): the equity and margin series of an
 * account, read from its stored state snapshots (`account_state_snapshots`, db/state-snapshots.ts).
 * Window-based: `truncated`, no cursor. Also home of {@link stateEvents}, the event-log read the
 * statements replay (domain/statements/replay.ts).
 */
import Router from '@koa/router';
import { AccountEvent, AccountStateSnapshot } from '../../db/entities.js';
import { scoped } from '../../db/orm.js';
import { STATE_EVENT_KINDS, type LogEvent } from '../../domain/statements/replay.js';
import { callerOf, gate } from '../middleware/auth.js';
import type { ApiDeps, ApiState } from '../context.js';
import type { OpenApiRegistry } from '../openapi.js';
import { endpoint } from '../route.js';
import { accountParams } from './accounts.schemas.js';
import { ownedAccount } from './accounts.js';
import { stateHistoryQuery, stateHistoryView } from './state-history.schemas.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { InferEntity } from '@mikro-orm/core';
import { Decimal, fmt } from '../../domain/decimal.js';

/**
 * The state-changing events of an account, seq ascending, logged before `to` when given
 * (the replay needs everything from the first event to build cumulative balances).
 */
export async function stateEvents(em: EntityManager, accountId: string, to?: Date): Promise<LogEvent[]> {
  const rows = await em.find(AccountEvent, { accountId, kind: { $in: [...STATE_EVENT_KINDS] }, ...(to ? { createdAt: { $lt: to } } : {}) }, { orderBy: { seq: 'asc' } });
  return rows.map((r) => ({ seq: r.seq, kind: r.kind, venue: r.venue ?? null, data: r.data, createdAt: new Date(r.createdAt) }));
}

/**
 * Registers `GET /accounts/:id/state/history` → `{ points: StatePoint[], truncated }`, oldest first
 * (USD decimal strings; sampling described in `stateHistoryView`). Any tier.
 * Errors: `400 validation_failed` (limit above 5000 or below 1, bad ISO time), `404 account_not_found`
 * (absent or another tenant's), `403 forbidden` (another trader's account in the tenant).
 */
export function stateHistoryRoutes(deps: ApiDeps, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/api/v1' });
  endpoint(
    router,
    openapi,
    {
      method: 'get',
      path: '/accounts/:id/state/history',
      summary: 'Equity and margin time series from stored state snapshots; window-based, `truncated`, no cursor',
      tags: ['accounts'],
      gate: gate({ audience: 'trader' }),
      schemas: { params: accountParams, query: stateHistoryQuery },
      responses: { '200': { description: 'Points, oldest first', schema: stateHistoryView } },
    },
    async (ctx, { params, query }) => {
      const em = scoped(deps.orm, callerOf(ctx).tenantId);
      await ownedAccount(em, callerOf(ctx), params.id);
      const ts = { ...(query.from ? { $gte: new Date(query.from) } : {}), ...(query.to ? { $lt: new Date(query.to) } : {}) };
      // Newest first, one more than the limit to know whether the window holds more.
      const rows = await em.find(
        AccountStateSnapshot,
        { accountId: params.id, ...(query.venue ? { venue: query.venue } : {}), ...(query.from || query.to ? { ts } : {}) },
        { orderBy: { ts: 'desc', id: 'desc' }, limit: query.limit + 1 },
      );
      const truncated = rows.length > query.limit;
      ctx.body = { points: rows.slice(0, query.limit).reverse().map(statePointView), truncated };
    },
  );
  return router;
}

/** One snapshot row as a `StatePoint` of the API. */
function statePointView(r: InferEntity<typeof AccountStateSnapshot>) {
  return {
    ts: new Date(r.ts).toISOString(),
    venue: r.venue,
    reason: r.reason as 'deposit' | 'fill' | 'funding' | 'hourly' | 'backfill',
    hour: r.hour ? new Date(r.hour).toISOString() : null,
    equityUsd: fmt(new Decimal(r.equityUsd)),
    balanceUsd: fmt(new Decimal(r.balanceUsd)),
    unrealizedPnlUsd: fmt(new Decimal(r.unrealizedPnlUsd)),
    marginUsedUsd: fmt(new Decimal(r.marginUsedUsd)),
    marginAvailableUsd: fmt(new Decimal(r.marginAvailableUsd)),
    openPositions: r.openPositions,
  };
}

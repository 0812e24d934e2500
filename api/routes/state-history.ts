/**
 * `GET /api/v1/accounts/{id}/state/history` (spec §4.3, §8): the equity series of an account,
 * replayed from its event log (domain/statements/replay.ts). Window-based: `truncated`, no cursor.
 */
import Router from '@koa/router';
import { AccountEvent } from '../../db/entities.js';
import { scoped } from '../../db/orm.js';
import { replayPoints, STATE_EVENT_KINDS, windowPoints, type LogEvent } from '../../domain/statements/replay.js';
import { callerOf, gate } from '../middleware/auth.js';
import type { ApiDeps, ApiState } from '../context.js';
import type { OpenApiRegistry } from '../openapi.js';
import { endpoint } from '../route.js';
import { accountParams } from './accounts.schemas.js';
import { ownedAccount } from './accounts.js';
import { stateHistoryQuery, stateHistoryView } from './state-history.schemas.js';
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * The state-changing events of an account, seq ascending, logged before `to` when given
 * (the replay needs everything from the first event to build cumulative balances).
 */
export async function stateEvents(em: EntityManager, accountId: string, to?: Date): Promise<LogEvent[]> {
  const rows = await em.find(AccountEvent, { accountId, kind: { $in: [...STATE_EVENT_KINDS] }, ...(to ? { createdAt: { $lt: to } } : {}) }, { orderBy: { seq: 'asc' } });
  return rows.map((r) => ({ seq: r.seq, kind: r.kind, venue: r.venue ?? null, data: r.data, createdAt: new Date(r.createdAt) }));
}

/**
 * Registers `GET /accounts/:id/state/history` → `{ points: StatePoint[], truncated }` (USD decimal
 * strings; see `stateHistoryView` for how a point is computed). Any tier.
 * Errors: `400 validation_failed` (limit above 5000, bad ISO time), `404 account_not_found`
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
      summary: 'Equity time series replayed from the account event log; window-based, `truncated`, no cursor',
      tags: ['accounts'],
      gate: gate({ audience: 'trader' }),
      schemas: { params: accountParams, query: stateHistoryQuery },
      responses: { '200': { description: 'Points, oldest first', schema: stateHistoryView } },
    },
    async (ctx, { params, query }) => {
      const em = scoped(deps.orm, callerOf(ctx).tenantId);
      await ownedAccount(em, callerOf(ctx), params.id);
      const events = await stateEvents(em, params.id, query.to ? new Date(query.to) : undefined);
      ctx.body = windowPoints(replayPoints(events), query);
    },
  );
  return router;
}

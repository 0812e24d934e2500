/**
 * Every order the venues saw for an account (docs/api.md §4.3 `/order-history`), including orders placed
 * in the venue's own interface — unlike `/orders`, which lists what went through the platform's OMS.
 * Paper orders are the platform engine's own (`order_intents` once dispatched); routed venues' orders
 * are refreshed from the venue first (workflow `venue-orders-<account>-<venue>`,
 * modules/oms/activities/venue-orders.ts; skipped when refreshed under 2 s ago) and read from `venue_orders`.
 */
import { Decimal, fmt } from '../../../domain/decimal.js';
import { ROUTED_VENUES } from '../../../domain/oms/intent.js';
import { decodeCursor, encodeCursor } from '../../../domain/pagination.js';
import { platformEm } from '../../../db/orm.js';
import { venueOrdersSyncWorkflowId } from '../../oms/workflows/venue-orders.definitions.js';
import { venueOrdersSyncWorkflow } from '../../oms/workflows/venue-orders.js';
import type { ApiDeps, Caller } from '../../../api/context.js';

/** A venue list refreshed less than this long ago is read as is (ms). */
const FRESH_MS = 2_000;

/** One order of the union of `venue_orders` and the paper intents. */
interface Row {
  venue: string;
  venue_order_id: string;
  client_order_id: string | null;
  intent_id: string | null;
  source: 'platform' | 'venue';
  symbol: string;
  side: 'buy' | 'sell';
  type: string;
  qty: string;
  price: string | null;
  status: string;
  filled_qty: string;
  avg_fill_price: string | null;
  updated_at: Date;
}

const decOrNull = (v: string | null) => (v == null ? null : fmt(new Decimal(v)));

/** An order as `GET /order-history` shows it (order-history.schemas.ts `orderHistoryView`). */
function orderView(r: Row) {
  return {
    venue: r.venue,
    venueOrderId: r.venue_order_id,
    clientOrderId: r.client_order_id,
    intentId: r.intent_id,
    source: r.source,
    symbol: r.symbol,
    side: r.side,
    type: r.type,
    qty: fmt(new Decimal(r.qty)),
    price: decOrNull(r.price),
    status: r.status,
    filledQty: fmt(new Decimal(r.filled_qty)),
    avgFillPrice: decOrNull(r.avg_fill_price),
    updatedAt: new Date(r.updated_at).toISOString(),
  };
}

/**
 * Refreshes the routed venues' lists of the account that are stale (the workflow does the venue I/O);
 * a failed refresh serves the last known list.
 */
async function refresh(deps: ApiDeps, accountId: string, venues: readonly string[]) {
  const conn = platformEm(deps.orm).getConnection();
  const agents = await conn.execute<{ venue: string }[]>(
    `select distinct venue from agent_wallets where account_id = ? and status = 'active' and venue in (${venues.map(() => '?').join(',')})`,
    [accountId, ...venues],
  );
  await Promise.all(
    agents.map(async ({ venue }) => {
      const [last] = await conn.execute<{ synced: Date | null }[]>(
        `select max(synced_at) as synced from venue_orders where account_id = ? and venue = ?`,
        [accountId, venue],
      );
      if (last?.synced && Date.now() - new Date(last.synced).getTime() < FRESH_MS) return;
      const options = {
        workflowId: venueOrdersSyncWorkflowId(accountId, venue),
        taskQueue: deps.config.temporal.taskQueue,
        args: [accountId, venue] as [string, string],
      };
      await deps.temporal.workflow
        .execute(venueOrdersSyncWorkflow, {
          ...options,
          workflowIdConflictPolicy: 'USE_EXISTING',
          workflowExecutionTimeout: '30 seconds',
        })
        .catch((err) =>
          deps.logger.warn({ err, accountId, venue }, 'venue order refresh failed; serving the last known list'),
        );
    }),
  );
}

/** Filters and page of `GET /order-history`. */
export interface OrderHistoryQuery {
  venue?: string;
  symbol?: string;
  status?: string;
  limit: number;
  cursor?: string;
}

/**
 * One page of the account's orders, newest change first: `{ orders, nextCursor }` (no `hasMore`).
 * The account must be the caller's (checked by the route). @throws ApiError `400 invalid_cursor`.
 */
export async function orderHistory(deps: ApiDeps, caller: Caller, accountId: string, query: OrderHistoryQuery) {
  const routed = query.venue ? ROUTED_VENUES.filter((v) => v === query.venue) : ROUTED_VENUES;
  if (routed.length) await refresh(deps, accountId, routed);

  const where: string[] = [];
  const args: unknown[] = [accountId, caller.tenantId, accountId, caller.tenantId];
  if (query.venue) {
    where.push('o.venue = ?');
    args.push(query.venue);
  }
  if (query.symbol) {
    where.push('o.symbol = ?');
    args.push(query.symbol);
  }
  if (query.status) {
    where.push('o.status = ?');
    args.push(query.status);
  }
  if (query.cursor) {
    const c = decodeCursor(query.cursor);
    where.push('(o.updated_at < ? or (o.updated_at = ? and o.venue || o.venue_order_id < ?))');
    args.push(new Date(c.at), new Date(c.at), c.id);
  }
  const rows = await platformEm(deps.orm)
    .getConnection()
    .execute<Row[]>(
      `select * from (
       select venue, venue_order_id, client_order_id, intent_id, source, symbol, side, type, qty, price, status, filled_qty, avg_fill_price, updated_at
         from venue_orders where account_id = ? and tenant_id = ?
       union all
       select venue, venue_order_id, id as client_order_id, id as intent_id, 'platform' as source, symbol, side, type, qty, price, order_status as status,
              filled_qty, avg_fill_price, updated_at
         from order_intents where account_id = ? and tenant_id = ? and venue = 'paper' and order_status is not null
     ) o ${where.length ? `where ${where.join(' and ')}` : ''}
     order by o.updated_at desc, o.venue || o.venue_order_id desc limit ${query.limit + 1}`,
      args,
    );
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    orders: page.map(orderView),
    nextCursor:
      rows.length > query.limit && last
        ? encodeCursor({ at: new Date(last.updated_at).toISOString(), id: last.venue + last.venue_order_id })
        : null,
  };
}

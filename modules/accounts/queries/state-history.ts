/**
 * An account's state over time (docs/api.md §4.3, §8): the equity and margin series from its stored
 * state snapshots (`account_state_snapshots`, db/state-snapshots.ts), and the state-changing events
 * the statements replay (domain/statements/replay.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { STATE_EVENT_KINDS, type LogEvent } from '../../../domain/statements/replay.js';
import { AccountEvent, AccountStateSnapshot } from '../../../db/entities.js';
import { statePointView } from '../presenters/accounts.js';

/**
 * The state-changing events of an account, seq ascending, logged before `to` when given
 * (the replay needs everything from the first event to build cumulative balances).
 */
export async function stateEvents(em: EntityManager, accountId: string, to?: Date): Promise<LogEvent[]> {
  const rows = await em.find(
    AccountEvent,
    { accountId, kind: { $in: [...STATE_EVENT_KINDS] }, ...(to ? { createdAt: { $lt: to } } : {}) },
    { orderBy: { seq: 'asc' } },
  );
  return rows.map((r) => ({
    seq: r.seq,
    kind: r.kind,
    venue: r.venue ?? null,
    data: r.data,
    createdAt: new Date(r.createdAt),
  }));
}

/**
 * The newest `limit` state points of the window `[from, to)` (of `venue` only, when given), oldest
 * first: `{ points, truncated }` (`truncated` when the window holds more).
 */
export async function statePoints(
  em: EntityManager,
  accountId: string,
  query: { venue?: string; from?: string; to?: string; limit: number },
) {
  const ts = {
    ...(query.from ? { $gte: new Date(query.from) } : {}),
    ...(query.to ? { $lt: new Date(query.to) } : {}),
  };
  // Newest first, one more than the limit to know whether the window holds more.
  const rows = await em.find(
    AccountStateSnapshot,
    { accountId, ...(query.venue ? { venue: query.venue } : {}), ...(query.from || query.to ? { ts } : {}) },
    { orderBy: { ts: 'desc', id: 'desc' }, limit: query.limit + 1 },
  );
  return { points: rows.slice(0, query.limit).reverse().map(statePointView), truncated: rows.length > query.limit };
}

/**
 * The append-only account event log (docs/architecture.md "Data and events"). Appends run inside the
 * caller's transaction, after the account row is locked, so `seq` is gap-free per account and
 * the row commits with the change it reports; the insert trigger NOTIFYs `account_events`.
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account } from './entities.js';
import { sqlFor, type Db } from './sql.js';

/** `/ws/risk` topics and the frame types published under each (documented in the README). */
export const TOPIC_OF_FRAME = {
  'Order-Intent-Update': 'Order-Intent-Changed',
  'Open-Orders-Update': 'Order-Intent-Changed',
  'Position-Changed': 'Position-Changed',
  Fill: 'Fills',
  'Funding-Update': 'Funding',
} as const;
export type FrameType = keyof typeof TOPIC_OF_FRAME;

/** One event to append. `data` becomes the frame body (decimal strings, ISO times). */
export interface NewEvent {
  kind: string;
  frameType: FrameType;
  venue: string | null;
  data: Record<string, unknown>;
}

/**
 * Locks the account row for the rest of the transaction (serialises every change to one account:
 * fills, positions, balances, event seq).
 * @throws Error when the account does not exist in the em's tenant.
 */
export async function lockAccount(em: EntityManager, accountId: string) {
  return em.findOneOrFail(Account, { id: accountId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
}

/**
 * The insert of {@link appendEvents} as a statement (`text` with `$1…$4`, `values`); `when` (optional) is a condition
 * the rows are inserted under, for a caller that makes it part of a larger statement (`where exists (…)`); `lastSeq`
 * (optional) an expression of the account's last `seq` that the events are numbered after, for a statement that read
 * it when it took the account lock (modules/oms/activities/ledger.ts `LOCKED`); by default the insert reads it itself.
 */
export function appendEventsStatement(
  tenantId: string,
  accountId: string,
  events: NewEvent[],
  when = '',
  lastSeq = '(select coalesce(max(seq), 0) from account_events where account_id = $2::varchar)',
): { text: string; values: unknown[] } {
  const rows = events.map((e, i) => ({
    n: i + 1,
    kind: e.kind,
    topic: TOPIC_OF_FRAME[e.frameType],
    frame_type: e.frameType,
    venue: e.venue,
    data: e.data,
  }));
  return {
    text: `insert into account_events (tenant_id, account_id, seq, kind, topic, frame_type, venue, data, created_at)
     select $1::varchar, $2::varchar, ${lastSeq} + e.n,
            e.kind, e.topic, e.frame_type, e.venue, e.data, $3::timestamptz
       from jsonb_to_recordset($4::jsonb) as e(n int, kind text, topic text, frame_type text, venue text, data jsonb)
      ${when ? `where ${when}` : ''}
      order by e.n`,
    values: [tenantId, accountId, new Date().toISOString(), JSON.stringify(rows)],
  };
}

/**
 * Appends events in order, numbered after the account's last `seq`, in ONE statement (the next seq is read
 * inside the insert; issue 15: one round trip fewer per transaction than reading it first). The account must
 * already be locked by {@link lockAccount}, so no other transaction numbers events of it meanwhile. Through a MikroORM
 * fork (in a transaction) the rows are written at once, after its pending changes (db/sql.ts `sqlOf`); in the
 * ledger's transaction with its other writes, before its next read or commit (db/sql.ts `Sql.write`). The insert
 * trigger NOTIFYs them at commit.
 */
export async function appendEvents(db: Db, tenantId: string, accountId: string, events: NewEvent[]): Promise<void> {
  if (!events.length) return;
  const { text, values } = appendEventsStatement(tenantId, accountId, events);
  await sqlFor(db).write(text, values);
}

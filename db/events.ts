/**
 * The append-only account event log (docs/architecture.md "Data and events"). Appends run inside the
 * caller's transaction, after the account row is locked, so `seq` is gap-free per account and
 * the row commits with the change it reports; the insert trigger NOTIFYs `account_events`.
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, AccountEvent } from './entities.js';

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

/** Appends events in order; the account must already be locked by {@link lockAccount}. */
export async function appendEvents(
  em: EntityManager,
  tenantId: string,
  accountId: string,
  events: NewEvent[],
): Promise<void> {
  if (!events.length) return;
  const [{ seq }] = await em
    .getConnection()
    .execute<{ seq: number }[]>(
      'select coalesce(max(seq), 0)::int as seq from account_events where account_id = ?',
      [accountId],
      'all',
      em.getTransactionContext(),
    );
  events.forEach((e, i) =>
    em.create(
      AccountEvent,
      {
        tenantId,
        accountId,
        seq: seq + i + 1,
        kind: e.kind,
        topic: TOPIC_OF_FRAME[e.frameType],
        frameType: e.frameType,
        venue: e.venue,
        data: e.data,
      },
      { partial: true },
    ),
  );
}

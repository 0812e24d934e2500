/**
 * Accounts and their histories as the API shows them (docs/api.md §2.5, §4.3; accounts/*.schemas.ts).
 * Intents, fills, trades and positions: db/views.ts (the worker's `/ws/risk` frames use the same views).
 */
import type { InferEntity } from '@mikro-orm/core';
import { Decimal, fmt } from '../../../domain/decimal.js';
import type { AccountEvent, AccountRow, AccountStateSnapshot } from '../../../db/entities.js';
import type { SnapshotReason } from '../../../db/state-snapshots.js';

type EventRow = InferEntity<typeof AccountEvent>;

/** An account (accounts.schemas.ts `accountView`). */
export function toAccountView(a: AccountRow) {
  return {
    accountId: a.id,
    accountNumber: a.accountNumber,
    name: a.name,
    executionMode: a.executionMode,
    baseCurrency: a.baseCurrency,
    tradingGroupId: a.tradingGroupId ?? null,
    settings: a.settings,
    createdAt: a.createdAt.toISOString(),
  };
}

/** A `funding.*` event as a ledger entry of `GET /accounts/{id}/funding`: its type without the prefix, and its data. */
export function fundingEntryView(r: EventRow) {
  return {
    eventId: `${r.accountId}:${r.seq}`,
    type: r.kind.replace(/^funding\./, ''),
    venue: r.venue ?? null,
    occurredAt: r.createdAt.toISOString(),
    ...r.data,
  };
}

/** An event of the audit log `GET /accounts/{id}/events` (the /ws/risk event log). */
export function auditEventView(r: EventRow) {
  return {
    eventId: `${r.accountId}:${r.seq}`,
    seq: r.seq,
    kind: r.kind,
    topic: r.topic,
    venue: r.venue ?? null,
    occurredAt: r.createdAt.toISOString(),
    data: r.data,
  };
}

/** One state snapshot as a `StatePoint` (state.schemas.ts `stateHistoryView`; USD decimal strings). */
export function statePointView(r: InferEntity<typeof AccountStateSnapshot>) {
  return {
    ts: new Date(r.ts).toISOString(),
    venue: r.venue,
    reason: r.reason as SnapshotReason | 'backfill',
    hour: r.hour ? new Date(r.hour).toISOString() : null,
    equityUsd: fmt(new Decimal(r.equityUsd)),
    balanceUsd: fmt(new Decimal(r.balanceUsd)),
    unrealizedPnlUsd: fmt(new Decimal(r.unrealizedPnlUsd)),
    marginUsedUsd: fmt(new Decimal(r.marginUsedUsd)),
    marginAvailableUsd: fmt(new Decimal(r.marginAvailableUsd)),
    openPositions: r.openPositions,
  };
}

/** An account's suspension (suspension.schemas.ts `suspensionView`). */
export function suspensionView(a: AccountRow) {
  return {
    accountId: a.id,
    suspended: a.suspendedAt != null,
    suspendedAt: a.suspendedAt?.toISOString() ?? null,
    reason: a.suspensionReason ?? null,
  };
}

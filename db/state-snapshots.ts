/**
 * Account state snapshots (docs/api.md §4.3 `GET /accounts/{id}/state/history`, table
 * `account_state_snapshots`): the §2.5 state of one account on one venue — equity, balance,
 * unrealised PnL, margin used and available, USD — valued at the current canonical marks exactly as
 * `GET /accounts/{id}/state` values it (db/account-state.ts, domain/paper/account.ts).
 *
 * Written inside the transaction that changes the state (under the account lock), so a snapshot
 * commits with its change or not at all:
 * - `deposit`: the opening deposit (db/accounts.ts);
 * - `fill`: an execution that filled (modules/oms/activities/ledger.ts);
 * - `funding`: a funding payment (modules/accounts/activities/funding.ts);
 * - `withdrawal`, `transfer` (and `deposit`): a funding operation completed (modules/accounts/commands/funding-operations.ts);
 * - `hourly`: the funding run's hourly sample of every account holding positions on the venue,
 *   at most one per account, venue and funding hour (equity moves with the marks in between).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal, fmt } from '../domain/decimal.js';
import { venueState } from '../domain/paper/account.js';
import { marksFor, valueVenue } from './account-state.js';
import { AccountBalance, Position } from './entities.js';

/** Why a snapshot was written (the `reason` column; `backfill` is the migration's own). */
export type SnapshotReason = 'deposit' | 'withdrawal' | 'transfer' | 'fill' | 'funding' | 'hourly';

/** What {@link recordStateSnapshot} needs. */
export interface SnapshotInput {
  tenantId: string;
  accountId: string;
  venue: string;
  reason: SnapshotReason;
  /** The funding hour (ISO 8601, on the hour) of a `funding` or `hourly` sample. */
  hour?: string | null;
  /** When the state was reached; default now. */
  at?: Date;
}

/**
 * The state of one account on one venue as the caller's transaction already holds it: the balance (USD decimal
 * string), every position row there (flat ones are skipped) and the marks of their symbols keyed `<venue> <symbol>`
 * (USD; a position without one is valued at its average entry). The ledger passes it after a fill (issue 15).
 */
export interface KnownVenueState {
  balanceUsd: string;
  positions: { venue: string; symbol: string; qty: string; avgEntryPrice: string; leverage: string }[];
  marks: Map<string, Decimal>;
}

/**
 * Values the account's state on `input.venue` now and inserts one snapshot row in `em`'s
 * transaction. Flushes `em` first, so the state includes the caller's pending changes. Positions
 * without a mark are valued at their average entry (as `/state` does). `known`: the state the caller's
 * transaction holds (then nothing is read); absent, it is read through `em`.
 *
 * An `hourly` sample is skipped when the account already has a snapshot for that hour (rerun of the
 * hour; also guarded by a partial unique index). Returns false when nothing was written (that case,
 * or no balance row on the venue). The caller holds the account lock (db/events.ts `lockAccount`).
 */
export async function recordStateSnapshot(
  em: EntityManager,
  input: SnapshotInput,
  known?: KnownVenueState,
): Promise<boolean> {
  await em.flush();
  const now = known ? knownState(known) : await stateNow(em, input.accountId, input.venue);
  if (!now) return false;
  const { state: s, openPositions } = now;
  const hour = input.hour ?? null;
  const params = [
    input.tenantId,
    input.accountId,
    input.venue,
    input.at ?? new Date(),
    input.reason,
    hour,
    fmt(s.equityUsd),
    fmt(s.balanceUsd),
    fmt(s.unrealizedPnlUsd),
    fmt(s.marginUsedUsd),
    fmt(s.marginAvailableUsd),
    openPositions,
  ];
  const columns = `(tenant_id, account_id, venue, ts, reason, hour, equity_usd, balance_usd, unrealized_pnl_usd, margin_used_usd, margin_available_usd, open_positions)`;
  const sql =
    input.reason === 'hourly'
      ? `insert into account_state_snapshots ${columns}
         select ?, ?, ?, ?, ?, ?::timestamptz, ?, ?, ?, ?, ?, ?
         where not exists (select 1 from account_state_snapshots where account_id = ? and venue = ? and hour = ?::timestamptz)
         on conflict do nothing returning id`
      : `insert into account_state_snapshots ${columns} values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning id`;
  const rows = await em
    .getConnection()
    .execute<{ id: string }[]>(
      sql,
      input.reason === 'hourly' ? [...params, input.accountId, input.venue, hour] : params,
      'all',
      em.getTransactionContext(),
    );
  return rows.length > 0;
}

/** The §2.5 state and open positions' count of a {@link KnownVenueState}. */
function knownState(known: KnownVenueState): { state: ReturnType<typeof venueState>; openPositions: number } {
  const open = known.positions.filter((p) => !new Decimal(p.qty).isZero());
  return { state: valueVenue(known.balanceUsd, open, known.marks), openPositions: open.length };
}

/**
 * The §2.5 state of the account on `venue` as `em` reads it now (balance row and open positions, valued at
 * the stored canonical marks; a position without one at its average entry), with its open positions'
 * count; null when the account holds no balance there. Reads through `em` (flush it first to include
 * pending changes); the caller holds the account lock when it acts on the answer.
 */
export async function stateNow(
  em: EntityManager,
  accountId: string,
  venue: string,
): Promise<{ state: ReturnType<typeof venueState>; openPositions: number } | null> {
  const balance = await em.findOne(AccountBalance, { accountId, venue });
  if (!balance) return null;
  const positions = await em.find(Position, { accountId, venue, qty: { $ne: '0' } });
  const marks = await marksFor(em, positions);
  const state = valueVenue(balance.balanceUsd, positions, marks);
  return { state, openPositions: positions.length };
}

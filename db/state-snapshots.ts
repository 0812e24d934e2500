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
import { Decimal, fmt } from '../domain/decimal.js';
import { venueState } from '../domain/paper/account.js';
import { marksFor, valueVenue, type HeldPosition } from './account-state.js';
import { sqlFor, type Db } from './sql.js';

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
  positions: HeldPosition[];
  marks: Map<string, Decimal>;
}

/**
 * Values the account's state on `input.venue` now and inserts one snapshot row in `db`'s transaction (the ledger's,
 * or a MikroORM fork's, whose pending changes are flushed first, so the state includes them). Positions without a
 * mark are valued at their average entry (as `/state` does). `known`: the state the caller's transaction holds
 * (then nothing is read); absent, it is read through `db`.
 *
 * An `hourly` sample is skipped when the account already has a snapshot for that hour (rerun of the
 * hour; also guarded by a partial unique index). Returns false when nothing was written (that case,
 * or no balance row on the venue). The caller holds the account lock (db/events.ts `lockAccount`).
 */
export async function recordStateSnapshot(db: Db, input: SnapshotInput, known?: KnownVenueState): Promise<boolean> {
  const sql = sqlFor(db);
  const now = known ? knownState(known) : await stateNow(sql, input.accountId, input.venue);
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
  if (input.reason !== 'hourly') {
    // Always one row; in the ledger's transaction it is sent with the transaction's other writes.
    await sql.write(
      `insert into account_state_snapshots ${columns} values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      params,
    );
    return true;
  }
  const inserted = await sql.rows<{ id: string }>(
    `insert into account_state_snapshots ${columns}
     select $1::varchar, $2::varchar, $3::varchar, $4::timestamptz, $5, $6::timestamptz, $7::numeric, $8::numeric, $9::numeric, $10::numeric, $11::numeric, $12::int
      where not exists (select 1 from account_state_snapshots where account_id = $2::varchar and venue = $3::varchar and hour = $6::timestamptz)
     on conflict do nothing returning id`,
    params,
  );
  return inserted.length > 0;
}

/** The §2.5 state and open positions' count of a {@link KnownVenueState}. */
function knownState(known: KnownVenueState): { state: ReturnType<typeof venueState>; openPositions: number } {
  const open = known.positions.filter((p) => !new Decimal(p.qty).isZero());
  return { state: valueVenue(known.balanceUsd, open, known.marks), openPositions: open.length };
}

/**
 * The §2.5 state of the account on `venue` as `db` reads it now (balance row and open positions, valued at
 * the stored canonical marks; a position without one at its average entry), with its open positions'
 * count; null when the account holds no balance there. Reads through `db` (a MikroORM fork's pending changes are
 * flushed first); the caller holds the account lock when it acts on the answer.
 */
export async function stateNow(
  db: Db,
  accountId: string,
  venue: string,
): Promise<{ state: ReturnType<typeof venueState>; openPositions: number } | null> {
  const sql = sqlFor(db);
  const [balance] = await sql.rows<{ balanceUsd: string }>(
    `select balance_usd::text as "balanceUsd" from account_balances where account_id = $1 and venue = $2`,
    [accountId, venue],
  );
  if (!balance) return null;
  const positions = await sql.rows<HeldPosition>(
    `select venue, symbol, qty::text as qty, avg_entry_price::text as "avgEntryPrice", leverage::text as leverage
       from positions where account_id = $1 and venue = $2 and qty <> 0`,
    [accountId, venue],
  );
  const marks = await marksFor(sql, positions);
  const state = valueVenue(balance.balanceUsd, positions, marks);
  return { state, openPositions: positions.length };
}

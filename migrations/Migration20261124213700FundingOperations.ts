/**
 * Funding operations (docs/api.md §4.3 "Funding operations", issue 17): one row per deposit, withdrawal or
 * transfer a trader asked for on its internalised accounts.
 * - `account_id`: the account it acts on (a deposit's target; a withdrawal's or transfer's source);
 *   `to_account_id`: a transfer's destination (the caller's own, never `account_id`), null otherwise.
 * - `amount_usd` > 0, USD; `status` `pending` (held for an operator) → `completed` | `rejected`, or
 *   `completed` at once; `requested_by` the trader's credential id, `decided_by` the operator's credential id
 *   of an approval or rejection, `reject_reason` the operator's words, `decided_at` when it left `pending`.
 * Pending operations are listed per tenant, newest first (`GET /api/v1/operator/funding?status=pending`).
 *
 * The state snapshots (`account_state_snapshots.reason`) gain `withdrawal` and `transfer` beside `deposit`.
 */
import { Migration } from '@mikro-orm/migrations';

const REASONS_BEFORE = `'deposit', 'fill', 'funding', 'hourly', 'backfill'`;
const REASONS_AFTER = `${REASONS_BEFORE}, 'withdrawal', 'transfer'`;

export class Migration20261124213700FundingOperations extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "funding_operations" (
        "id" varchar(255) primary key,
        "tenant_id" varchar(255) not null,
        "account_id" varchar(255) not null references "accounts" ("id"),
        "to_account_id" varchar(255) null references "accounts" ("id"),
        "type" varchar(16) not null check ("type" in ('deposit', 'withdrawal', 'transfer')),
        "amount_usd" numeric not null check ("amount_usd" > 0),
        "status" varchar(16) not null check ("status" in ('pending', 'completed', 'rejected')),
        "requested_by" varchar(255) not null,
        "decided_by" varchar(255) null,
        "reject_reason" text null,
        "created_at" timestamptz not null default now(),
        "decided_at" timestamptz null,
        check (("type" = 'transfer') = ("to_account_id" is not null)),
        check ("to_account_id" is null or "to_account_id" <> "account_id")
      )`,
    );
    this.addSql(
      `create index "funding_operations_tenant_status_idx" on "funding_operations" ("tenant_id", "status", "created_at" desc, "id" desc)`,
    );
    this.addSql(`create index "funding_operations_account_idx" on "funding_operations" ("account_id", "created_at")`);
    this.addSql(
      `alter table "account_state_snapshots" drop constraint "account_state_snapshots_reason_check", add constraint "account_state_snapshots_reason_check" check ("reason" in (${REASONS_AFTER}))`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`delete from "account_state_snapshots" where "reason" in ('withdrawal', 'transfer')`);
    this.addSql(
      `alter table "account_state_snapshots" drop constraint "account_state_snapshots_reason_check", add constraint "account_state_snapshots_reason_check" check ("reason" in (${REASONS_BEFORE}))`,
    );
    this.addSql(`drop table if exists "funding_operations"`);
  }
}

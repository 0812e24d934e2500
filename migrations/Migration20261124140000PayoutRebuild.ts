/**
 * Payouts that follow a moving Safe and the operator's cancel (docs/api.md §3.5, §4.8; issue 21):
 * - `safe_nonce`: the Safe nonce the payout's current Safe transaction (`safe_tx_hash`) is built for, a
 *   decimal string; the workflow rebuilds both when the Safe executes another transaction at that nonce.
 *   Null for payouts prepared before this migration (their workflow holds the nonce).
 * - `cancel_reason`, `canceled_at`: the operator's cancel; status `canceled` joins the allowed statuses. A
 *   canceled payout no longer counts against the payout ceiling.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration20261124140000PayoutRebuild extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "payouts" add column "safe_nonce" varchar(78) null check ("safe_nonce" ~ '^[0-9]+$'), add column "cancel_reason" text null, add column "canceled_at" timestamptz null`,
    );
    this.addSql(`alter table "payouts" drop constraint "payouts_status_check"`);
    this.addSql(
      `alter table "payouts" add constraint "payouts_status_check" check ("status" in ('requested', 'authorized', 'executed', 'rejected', 'canceled'))`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(
      `update "payouts" set "status" = 'rejected', "reject_reason" = "cancel_reason" where "status" = 'canceled'`,
    );
    this.addSql(`alter table "payouts" drop constraint "payouts_status_check"`);
    this.addSql(
      `alter table "payouts" add constraint "payouts_status_check" check ("status" in ('requested', 'authorized', 'executed', 'rejected'))`,
    );
    this.addSql(
      `alter table "payouts" drop column "safe_nonce", drop column "cancel_reason", drop column "canceled_at"`,
    );
  }
}

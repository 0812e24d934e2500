/**
 * Funding payments on paper perps (docs/api.md §4.3 funding ledger, §4.7 `/reports/funding`): one row per
 * account, venue, symbol and funding hour. The primary key makes a payment happen at most once
 * however often the hour's workflow or activity runs.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122171000FundingPayments extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "funding_payments" ("account_id" varchar(255) not null, "venue" varchar(255) not null, "symbol" varchar(255) not null, "hour" timestamptz not null, "tenant_id" varchar(255) not null, "position_qty" numeric not null, "mark_price" numeric not null, "rate" numeric not null, "amount_usd" numeric not null, "created_at" timestamptz not null default now(), primary key ("account_id", "venue", "symbol", "hour"))`,
    );
    this.addSql(`create index "funding_payments_tenant_hour_idx" on "funding_payments" ("tenant_id", "hour")`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "funding_payments"`);
  }
}

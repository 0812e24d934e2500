/**
 * Manual trades (docs/api.md §2.10): off-platform round trips imported by the trader. They count in PnL
 * but not in volume, so they have no exit fill; `source` tells them apart.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122112500ManualTrades extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "trades" add column "source" varchar(16) not null default 'platform'`);
    this.addSql(`alter table "trades" alter column "exit_fill_id" drop not null`);
  }

  override async down(): Promise<void> {
    this.addSql(`delete from "trades" where "source" = 'manual'`);
    this.addSql(`alter table "trades" alter column "exit_fill_id" set not null`);
    this.addSql(`alter table "trades" drop column "source"`);
  }
}

/**
 * Entry fees carried by an open position (USD), so a round trip's `feesUsd` holds both its exit fee
 * and its pro-rata share of the entry fees (docs/api.md §2.8: PnL from trades, net of every fee paid).
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122172000PositionEntryFees extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "positions" add column "entry_fees_usd" numeric not null default 0`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "positions" drop column "entry_fees_usd"`);
  }
}

/**
 * Flatten and reverse legs are recorded up front with their batch and position in it, so that
 * signing a later leg before its predecessor dispatched answers `409 batch_predecessor_pending`.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122110000BatchLegs extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "order_intents" add column "batch_id" varchar(255) null, add column "batch_leg" int null`);
    this.addSql(
      `create index "order_intents_batch_index" on "order_intents" ("batch_id", "batch_leg") where "batch_id" is not null`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "order_intents_batch_index"`);
    this.addSql(`alter table "order_intents" drop column "batch_leg", drop column "batch_id"`);
  }
}

/** Recorded OHLCV bars per venue symbol and interval (docs/api.md §2.9), loaded from data/recorded by the worker. */
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122111500Candles extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "candles" ("venue" varchar(255) not null, "symbol" varchar(255) not null, "interval" varchar(8) not null, "open_time" timestamptz not null, "open" numeric not null, "high" numeric not null, "low" numeric not null, "close" numeric not null, "volume" numeric not null, "source" varchar(64) not null, primary key ("venue", "symbol", "interval", "open_time"))`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "candles"`);
  }
}

/**
 * On-demand market streams (docs/api.md §4.6 cold cache, §6.1 `/ws/market`; docs/architecture.md "one producer per
 * symbol"): the demand register the api writes, the L2 book and the trade tape the producer keeps
 * per pair, and the NOTIFY channel `market_demand` that wakes producers at once.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration20261122170000MarketStreams extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "market_streams" ("venue" varchar(255) not null, "symbol" varchar(255) not null, "demanded_at" timestamptz not null default now(), "heartbeat_at" timestamptz null, primary key ("venue", "symbol"))`,
    );
    this.addSql(
      `create table "market_books" ("venue" varchar(255) not null, "symbol" varchar(255) not null, "book_seq" bigint not null, "ts" timestamptz not null, "bids" jsonb not null, "asks" jsonb not null, primary key ("venue", "symbol"))`,
    );
    this.addSql(
      `create table "market_trades" ("id" bigserial primary key, "venue" varchar(255) not null, "symbol" varchar(255) not null, "trade_id" varchar(64) not null, "ts" timestamptz not null, "price" numeric not null, "size" numeric not null, "side" varchar(4) not null check ("side" in ('buy', 'sell')))`,
    );
    this.addSql(`create index "market_trades_pair_idx" on "market_trades" ("venue", "symbol", "id" desc)`);
    this.addSql(`alter table "candles" add column "live" boolean not null default false`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "candles" drop column "live"`);
    this.addSql(`drop table if exists "market_trades"`);
    this.addSql(`drop table if exists "market_books"`);
    this.addSql(`drop table if exists "market_streams"`);
  }
}

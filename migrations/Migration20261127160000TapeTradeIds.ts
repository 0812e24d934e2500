/**
 * A live venue's trade prints are its tape (modules/market/feeds/streams.ts, issue 18): `market_trades.trade_id` holds
 * the venue's own trade id, and Polymarket's is its settlement transaction hash (`0x` + 64 hex = 66 characters),
 * which the `varchar(64)` of migration MarketStreams cannot hold. The column becomes `text` (no row changes; the
 * index does not cover it).
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration20261127160000TapeTradeIds extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "market_trades" alter column "trade_id" type text`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "market_trades" alter column "trade_id" type varchar(64) using left("trade_id", 64)`);
  }
}

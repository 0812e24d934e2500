/**
 * A partial index on the live bars of `candles` (issue 17 item 9, issue 15): every candles, stats,
 * indicators and backtest read finds where a pair's series joins — its first and newest live bar
 * (modules/market/queries/series.ts `perpEdges`) — and, on the primary key alone, that walked past the
 * pair's ~8,000 recorded bars on each request.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration20261124220000LiveCandlesIndex extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create index "candles_live_idx" on "candles" ("venue", "symbol", "interval", "open_time") where "live"`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "candles_live_idx"`);
  }
}

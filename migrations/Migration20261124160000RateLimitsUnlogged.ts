/**
 * The request rate counters (`rate_limits`, migration RateLimits) become an UNLOGGED table (issue 15):
 * they live for one to ten seconds, so their writes skip the write-ahead log and its flush on every
 * counted request. A PostgreSQL crash empties the table, which restarts every window: acceptable for
 * counters, never for money. (Unlogged tables are not replicated to standbys; a failover starts the
 * windows afresh in the same way.)
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration20261124160000RateLimitsUnlogged extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "rate_limits" set unlogged`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "rate_limits" set logged`);
  }
}
